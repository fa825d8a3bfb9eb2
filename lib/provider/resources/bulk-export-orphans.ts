/**
 * A create of a bulk export that got no answer (the request timed out, or terraform was interrupted) may have created
 * the export all the same, and a scheduled one then goes on spawning exports that no state holds. So the provider
 * looks for it: the one export made since the request went out (by the platform's clock) with exactly the requested
 * settings is taken into state, as if the platform had answered; several, or none yet, are an error that names them and says what to do,
 * rather than an error after which another apply makes one more.
 */
import type { BulkExportClient } from '../../api/bulk-export';
import type { BulkExport, BulkExportCreate } from '../../api/schemas/bulk-export';
import { DiagnosticError } from '../framework';
import { DEFAULT_EXPORT_FORMAT_VERSION, sameFilter, sameInstant, sameUuid } from './bulk-export-checks';

/**
 * How much earlier than the request, by the platform's clock, an export it made may say it was created: the `Date`
 * header that gives the platform's time has whole seconds.
 */
const DATE_RESOLUTION_MS = 2_000;

/** The time allowed to list the exports (the create's own signal may have been aborted already). */
const LIST_TIMEOUT_MS = 30_000;

/** Whether an error of a create means that no answer came: the export may exist or not. */
export function unanswered(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

const sameList = (a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean =>
  (a ?? null) === null ? (b ?? null) === null : b != null && a!.length === b.length && a!.every((item, i) => item === b[i]);

/**
 * Whether `e` is what `body` asks for (not a child of a schedule, not cancelled), created at `sinceMs` (platform time)
 * or after: an export of the same settings made before, such as the one this resource replaces, is not it.
 */
function isRequested(e: BulkExport, body: BulkExportCreate, sinceMs: number): boolean {
  return (
    e.source_bulk_export_id === null &&
    e.status !== 'Cancelled' &&
    sameUuid(e.bulk_export_destination_id, body.bulk_export_destination_id) &&
    sameUuid(e.session_id, body.session_id) &&
    sameInstant(e.start_time, body.start_time) &&
    ((body.end_time ?? null) === null ? e.end_time === null : e.end_time !== null && sameInstant(e.end_time, body.end_time!)) &&
    e.interval_hours === (body.interval_hours ?? null) &&
    ((body.filter ?? null) === null ? e.filter === null : e.filter !== null && sameFilter(e.filter, body.filter!)) &&
    sameList(e.export_fields, body.export_fields) &&
    e.format_version === (body.format_version ?? DEFAULT_EXPORT_FORMAT_VERSION) &&
    Date.parse(e.created_at) >= sinceMs - DATE_RESOLUTION_MS
  );
}

/**
 * The export an unanswered create made: returned when there is exactly one; otherwise a DiagnosticError naming the
 * candidates (or saying that none is listed yet) and how to go on.
 */
export async function exportCreatedUnanswered(
  client: BulkExportClient,
  body: BulkExportCreate,
  sentAtMs: number,
  err: Error,
): Promise<BulkExport | DiagnosticError> {
  let candidates: BulkExport[] | undefined;
  try {
    const listed = await client.listExports({ timeoutMs: LIST_TIMEOUT_MS });
    // the moment the request went out, by the platform's clock (from the Date of the list's answer)
    const sentAtPlatformMs = sentAtMs + ((client.transport.serverNow() ?? Date.now()) - Date.now());
    candidates = listed.filter((e) => isRequested(e, body, sentAtPlatformMs));
  } catch {
    // the list is a help: without it, the error says what to look for
  }
  if (candidates?.length === 1) return candidates[0];
  const summary = 'The platform did not answer the create of the bulk export';
  const cancel =
    'Cancel the ones this configuration does not need (`PATCH /api/v1/bulk-exports/<id>` with `{"status": "Cancelled"}`): ' +
    'a scheduled export goes on spawning exports until it is cancelled.';
  if (candidates && candidates.length > 1) {
    const ids = candidates.map((e) => `${e.id} (${e.status}, created ${e.created_at})`).join(', ');
    return new DiagnosticError(
      summary,
      `${err.message}. Several exports with exactly these settings were created since the request went out: ${ids}. ` +
        `Import the one to keep (\`terraform import <this resource's address> <id>\`) instead of applying again, which would create another. ${cancel}`,
    );
  }
  return new DiagnosticError(
    summary,
    `${err.message}. It may have created the export all the same; ${candidates ? 'none with these settings is listed yet' : 'the exports could not be listed'}. ` +
      'List the exports (`GET /api/v1/bulk-exports`) before applying again, and import the one that appears ' +
      `(\`terraform import <this resource's address> <id>\`). ${cancel}`,
  );
}
