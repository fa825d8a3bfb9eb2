/**
 * A create of a bulk export that got no clear answer (no answer in time, terraform interrupted, a connection lost or a
 * 5xx once the request was sent, a success whose body could not be read) may have created the export all the same,
 * and a scheduled one then goes on spawning exports that no state holds. Sending it again could make a second one (on a
 * platform that ignores `Idempotency-Key`), so the provider looks for it instead, again and again within the create's
 * time limit: the one export made since the request went out (by the platform's clock) with exactly the requested
 * settings is taken into state, as if the platform had answered; several, or none, are an error that names them and
 * says what to do.
 */
import type { BulkExportClient } from '../../../api/bulk-export';
import type { BulkExport, BulkExportCreate } from '../../../api/schemas/bulk-export';
import { DiagnosticError } from '../../framework';
import { sameUuid } from '../../../api/ids';
import { sameFilter, sameInstant } from './checks';
import { createdSince, tryUntilAnswered, outcomeMeans, unansweredSummary, type UnansweredCreate } from '../shared/unanswered-create';

const sameList = (a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean =>
  (a ?? null) === null ? (b ?? null) === null : b != null && a!.length === b.length && a!.every((item, i) => item === b[i]);

/** Whether `e` is what `body` asks for: not a child of a schedule, not cancelled, the same settings. */
function isRequested(e: BulkExport, body: BulkExportCreate): boolean {
  const { bulk_export_destination_id: destination, session_id: session, start_time: start } = e;
  // settings the answer leaves out cannot show that the export is the requested one
  if (destination === undefined || session === undefined || start === undefined) return false;
  return (
    (e.source_bulk_export_id ?? null) === null &&
    e.status !== 'Cancelled' &&
    sameUuid(destination, body.bulk_export_destination_id) &&
    sameUuid(session, body.session_id) &&
    sameInstant(start, body.start_time) &&
    ((body.end_time ?? null) === null ? (e.end_time ?? null) === null : e.end_time != null && sameInstant(e.end_time, body.end_time!)) &&
    (e.interval_hours ?? null) === (body.interval_hours ?? null) &&
    ((body.filter ?? null) === null ? (e.filter ?? null) === null : e.filter != null && sameFilter(e.filter, body.filter!)) &&
    sameList(e.export_fields, body.export_fields) &&
    (body.format_version == null || e.format_version === body.format_version)
  );
}

/**
 * The export an unanswered create made, looked for again and again within the create's time limit: returned when
 * there is exactly one; otherwise a DiagnosticError naming the candidates (or saying that none is listed yet) and how
 * to go on. An export of the same settings made before the request, such as the one this resource replaces, is not
 * it.
 */
export async function exportCreatedUnanswered(
  client: BulkExportClient,
  body: BulkExportCreate,
  sent: UnansweredCreate,
): Promise<BulkExport | DiagnosticError> {
  const summary = unansweredSummary(sent.outcome, 'the bulk export');
  const cancel =
    'Cancel the ones this configuration does not need (`PATCH /api/v1/bulk-exports/<id>` with `{"status": "Cancelled"}`): ' +
    'a scheduled export goes on spawning exports until it is cancelled.';
  const result = await tryUntilAnswered(sent, async (options) => {
    const candidates = (await client.listExports(options)).filter((e) => isRequested(e, body) && createdSince(e.created_at, sent.sentAtMs, client.transport));
    if (candidates.length <= 1) return candidates[0] ?? null;
    const ids = candidates.map((e) => `${e.id} (${e.status}, created ${e.created_at})`).join(', ');
    throw new DiagnosticError(
      summary,
      `${sent.err.message}. Several exports with exactly these settings were created since the request went out: ${ids}. ` +
        `Import the one to keep (\`terraform import <this resource's address> <id>\`) instead of applying again, which would create another. ${cancel}`,
    );
  });
  if (result.found) return result.found;
  const failure = result.lastFailure ? ` (${result.lastFailure.message})` : '';
  return new DiagnosticError(
    summary,
    `${sent.err.message}. ${outcomeMeans(sent.outcome, 'export')}; ${result.listed ? 'none with these settings is listed yet' : `the exports could not be listed${failure}`}. ` +
      'Applying again sends the same create, with the same `Idempotency-Key`: a platform that honours the key answers it with the export this ' +
      'create made. On one that does not, list the exports (`GET /api/v1/bulk-exports`) before applying again, and import the one that appears ' +
      `(\`terraform import <this resource's address> <id>\`). ${cancel}`,
  );
}
