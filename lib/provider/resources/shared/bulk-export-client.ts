/**
 * The bulk export API as the export resources reach it: one client per configured provider and workspace, created
 * (and its zod-using module loaded) on first use, and the few facts about API errors the handlers branch on.
 */
import type { BulkExportClient } from '../../../api/bulk-export';
import type { ProviderContext } from '../../context';

/**
 * The bulk export client of the configured provider (tracing API URL, API key, workspace), or of `tenantId` (the
 * workspace an object in state is in).
 */
export function bulkExportClient(ctx: ProviderContext, tenantId?: string | null): BulkExportClient {
  return ctx.client(`bulk-export/${ctx.workspaceKey(tenantId)}`, (c) => {
    const { BulkExportClient: Client } = require('../../../api/bulk-export') as typeof import('../../../api/bulk-export');
    return new Client(c.transportOptions('tracing', tenantId));
  });
}

/** The HTTP status of an API error, if it carries one. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The `detail` string of an error body (`{"detail": "..."}`), if there is one. */
export function detailOf(err: unknown): string | undefined {
  const detail = (err as { body?: { detail?: unknown } } | null)?.body?.detail;
  return typeof detail === 'string' ? detail : undefined;
}

/** Whether `text` is a UUID, the form the spec gives a tracing project's `session_id` (its other ids are plain strings). */
export { isUuid } from '../../../api/ids';
