import type { LocalBulkExportClient } from '../../support/complete-answers';
import { isFinalBulkExportStatus, type BulkExportRecord as BulkExport } from '../../../lib/api/schemas/bulk-export';

/** Polls `probe` until it returns a value other than undefined; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until an export reaches a final status, and returns it. */
export function waitForFinalExport(client: LocalBulkExportClient, id: string): Promise<BulkExport> {
  return waitFor(`export ${id} to finish`, async () => {
    const current = await client.getExport(id);
    return isFinalBulkExportStatus(current.status) ? current : undefined;
  });
}
