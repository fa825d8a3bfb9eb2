/**
 * `agentplatform_bulk_export`: an export of one tracing project's runs to an export destination, as Parquet files.
 * With `end_time` it is one-off (optionally waited for until Completed); with `interval_hours` it is scheduled: the
 * platform spawns one export per interval. Exports are immutable, so every argument forces replacement; destroy
 * cancels an export still in progress (a scheduled one, and with `cancel_spawned_on_destroy` its spawned exports).
 */
import type { BulkExportClient } from '../../../api/bulk-export';
import type { BulkExport } from '../../../api/schemas/bulk-export';
import {
  DiagnosticError,
  defineResource,
  given,
  timeoutMs,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type ReadRequest,
  type UpdateRequest,
} from '../../framework';
import { FINAL_EXPORT_STATUSES } from './checks';
import { workspaceOf } from '../shared/workspace';
import { bulkExportClient, statusOf } from '../shared/bulk-export-client';
import { apiFailure } from '../shared/bulk-export-messages';
import { EXPORT_BODY_FIELDS, exportCancelledOutside, exportEndedUnwatched } from './messages';
import { createBody, localSettings, toModel } from './body';
import { exportCreatedUnanswered } from './find';
import { createOutcome, takeCreateKey, unansweredSummary } from '../shared/unanswered-create';
import { confirmGone } from '../../api-errors';
import { settle } from './wait';
import { plan, validate } from './plan';
import { BULK_EXPORT_TIMEOUTS, bulkExportSchema, type BulkExportModel, type BulkExportSchema } from './schema';

type Schema = BulkExportSchema;
const timeouts = BULK_EXPORT_TIMEOUTS;

// ---- create ----

async function create({ planned, ctx, signal, diagnostics }: CreateRequest<Schema>): Promise<BulkExportModel> {
  const client = bulkExportClient(ctx);
  const body = createBody(planned);
  const sentAtMs = Date.now();
  let created: BulkExport;
  try {
    created = await client.createExport(body, { signal, idempotencyKey: takeCreateKey('agentplatform_bulk_export', body) });
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw apiFailure(diagnostics, err, 'create the bulk export', EXPORT_BODY_FIELDS);
    const deadlineMs = sentAtMs + timeoutMs(planned.timeouts, 'create', timeouts);
    const found = await exportCreatedUnanswered(client, body, { sentAtMs, err: err as Error, outcome, stop: signal, deadlineMs });
    if (found instanceof DiagnosticError) throw found;
    diagnostics.warning(
      unansweredSummary(outcome, 'the bulk export'),
      `${(err as Error).message}. It had created export ${found.id} with exactly these settings: it is kept in state.`,
    );
    created = found;
  }
  const model = toModel(created, planned);
  const kind = model.interval_hours === null ? 'one-off' : `scheduled every ${model.interval_hours}h`;
  ctx.log.info(`created bulk export ${created.id} (${kind}), status ${created.status}`);
  if (model.interval_hours !== null || !planned.wait_for_completion) return model;
  return settle({ ctx, signal, diagnostics }, client, model);
}

// ---- read ----

async function read({ state, ctx, signal, diagnostics }: ReadRequest<Schema>): Promise<BulkExportModel | null> {
  const client = bulkExportClient(ctx, workspaceOf(state));
  let current: BulkExport;
  try {
    current = await client.getExport(state.id!, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    await confirmGone(err, 'tracing', () => client.listExports({ signal }));
    return null;
  }
  // Destroy removes what it cancels from state, so a cancelled export in state was cancelled by someone else. It
  // stays in state, and the plan replaces it (see plan): its destroy still cancels what a schedule spawned.
  if (current.status === 'Cancelled') exportCancelledOutside(diagnostics, current.id, state.interval_hours !== null && state.cancel_spawned_on_destroy === true);
  // a one-off export that ended badly since the state last saw it in progress (not at import): said until it is recorded
  const wasRunning = typeof state.status === 'string' && !FINAL_EXPORT_STATUSES.includes(state.status);
  if (wasRunning && (current.status === 'Failed' || current.status === 'TimedOut') && given(current.interval_hours, state.interval_hours) === null) {
    // the runs only add detail: a refresh that cannot list them still records the status
    const runs = await client.listExportRuns(current.id, { signal }).catch((err: Error) => err);
    exportEndedUnwatched(diagnostics, current, state.status!, runs, (text) => client.transport.redact(text));
  }
  return toModel(current, state);
}
// ---- update ----

async function update({ planned, prior }: UpdateRequest<Schema>): Promise<BulkExportModel> {
  // Every API attribute forces replacement: only Terraform's own settings change in place, and the arguments written
  // otherwise for the same value (the same instant, the same tracing project id in another case, the same filter spaced otherwise,
  // the same fields in another order)
  const { destination_id, session_id, start_time, end_time, filter, export_fields } = planned;
  return { ...prior, ...localSettings(planned), destination_id, session_id, start_time, end_time, filter, export_fields };
}

// ---- delete ----

async function remove({ state, ctx, signal, diagnostics }: DeleteRequest<Schema>): Promise<void> {
  const client = bulkExportClient(ctx, workspaceOf(state));
  const id = state.id!;
  try {
    const current = await client.getExport(id, { signal });
    if (FINAL_EXPORT_STATUSES.includes(current.status)) {
      ctx.log.info(`bulk export ${id} is ${current.status}: removed from state only`);
    } else {
      await cancel(client, id, signal);
      ctx.log.info(`cancelled bulk export ${id}`);
    }
  } catch (err) {
    if (statusOf(err) !== 404) throw apiFailure(diagnostics, err, `cancel bulk export ${id}`, EXPORT_BODY_FIELDS);
    return confirmGone(err, 'tracing', () => client.listExports({ signal }));
  }
  if (state.interval_hours === null || !state.cancel_spawned_on_destroy) return;
  try {
    const spawned = (await client.listExports({ signal })).filter((e) => e.source_bulk_export_id === id && !FINAL_EXPORT_STATUSES.includes(e.status));
    for (const child of spawned) await cancel(client, child.id, signal);
    ctx.log.info(`cancelled ${spawned.length} export(s) spawned by bulk export ${id}`);
  } catch (err) {
    throw apiFailure(diagnostics, err, `cancel the exports spawned by bulk export ${id}`, EXPORT_BODY_FIELDS);
  }
}

/** PATCH status Cancelled; an export that finished (409) or vanished (404) meanwhile needs nothing more. */
async function cancel(client: BulkExportClient, id: string, signal: AbortSignal): Promise<void> {
  try {
    await client.cancelExport(id, { signal });
  } catch (err) {
    if (statusOf(err) !== 409 && statusOf(err) !== 404) throw err;
  }
}

// ---- import ----

async function importExport({ id, ctx, signal }: ImportRequest): Promise<Partial<BulkExportModel>> {
  if (id.trim() === '') throw new DiagnosticError('Invalid import id', 'Import a bulk export by its id, as the platform shows it.');
  try {
    await bulkExportClient(ctx).getExport(id, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    throw new DiagnosticError('Cannot import bulk export', `There is no bulk export ${id} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`);
  }
  return { id };
}

export default defineResource({
  typeName: 'agentplatform_bulk_export',
  schema: bulkExportSchema,
  validate,
  plan,
  create,
  read,
  update,
  delete: remove,
  import: importExport,
});
