/**
 * `agentplatform_bulk_export`: an export of one tracing project's runs to an export destination, as Parquet files.
 * With `end_time` it is one-off (optionally waited for until Completed); with `interval_hours` it is scheduled: the
 * platform spawns one export per interval. Exports are immutable, so every argument forces replacement; destroy
 * cancels an export still in progress (a scheduled one, and with `cancel_spawned_on_destroy` its spawned exports).
 */
import type { BulkExportClient } from '../../api/bulk-export';
import type { BulkExport } from '../../api/schemas/bulk-export';
import { INTERVAL_HOURS_MAX, INTERVAL_HOURS_MIN, MAX_EXPORT_DAYS } from '../../api/schemas/bulk-export-constants';
import {
  DiagnosticError,
  UNKNOWN,
  attr,
  defineResource,
  given,
  defineSchema,
  element,
  isKnown,
  timeoutMs,
  timeoutsAttribute,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type PlanRequest,
  type ReadRequest,
  type SchemaModel,
  type UpdateRequest,
  type ValidateRequest,
} from '../framework';
import {
  exportDays,
  FINAL_EXPORT_STATUSES,
  exportFieldProblem,
  filterProblem,
  instantMicros,
  sameFilter,
  sameInstant,
  sameUuid,
  timestampProblem,
} from './bulk-export-checks';
import { planWorkspace, tenantIdAttribute, workspaceOf } from './shared/workspace';
import { bulkExportClient, isUuid, statusOf } from './shared/bulk-export-client';
import { checkDueIntervals, checkEndNotAhead, warnOfArguments, warnOfTwin } from './bulk-export-warnings';
import {
  EXPORT_BODY_FIELDS,
  apiFailure,
  exportCancelledOutside,
  exportCancelledWhileWaiting,
  exportEndedUnwatched,
  exportFailed,
  exportRangeTooLong,
  exportSettingIgnored,
  exportTimedOut,
  exportWaitEnded,
} from './bulk-export-messages';
import { createBody, localSettings, toModel } from './bulk-export-model';
import { exportCreatedUnanswered } from './bulk-export-orphans';
import { createOutcome, takeCreateKey, unansweredSummary } from './shared/unanswered-create';
import { confirmGone } from '../api-errors';
import { waitForExport } from './bulk-export-wait';

// ---- model ----

/** The attributes of `agentplatform_bulk_export` as handlers see them. */
export type BulkExportModel = SchemaModel<typeof bulkExportSchema>;


// ---- schema ----

const timeouts = timeoutsAttribute({ create: '60m' });

// spec: Bulk export, `session_id` is a string (uuid)
const uuidProblem = (what: string) => (value: string): string | undefined =>
  isUuid(value) ? undefined : `must be ${what} (a UUID); got ${JSON.stringify(value)}.`;

/** The schema of `agentplatform_bulk_export`. */
export const bulkExportSchema = defineSchema({
  description:
    'An export of the runs of one tracing project to an export destination, as Parquet files (one export run per UTC ' +
    'day of the range). With `end_time` it is one-off; with `interval_hours` it is scheduled: the platform spawns an ' +
    'export of each interval, 10 minutes after the interval ends. Exports cannot change, so every argument replaces ' +
    'the export, except a change that only writes the same value otherwise (the same instant, a tracing project ' +
    'id in another case, a filter that the platform\'s parser reads the same, its strings compared in Unicode NFC), which is made in place. Destroy cancels an export still in progress and only forgets a finished one.',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'The export id; `terraform import` takes it.' }),
    destination_id: attr.string({
      required: true,
      requiresReplace: true,
      // the spec types a destination id as a plain string: only the same text is the same id
      description: 'Where to write, e.g. `agentplatform_export_destination.bucket.id`.',
    }),
    session_id: attr.string({
      required: true,
      requiresReplace: true,
      validate: uuidProblem('a tracing project id'),
      sameValue: sameUuid,
      description: 'The tracing project (session) whose runs are exported.',
    }),
    start_time: attr.string({
      required: true,
      requiresReplace: true,
      validate: timestampProblem,
      sameValue: sameInstant,
      description: 'Start of the range of runs (ISO 8601, UTC), e.g. `"2025-01-01T00:00:00Z"`.',
    }),
    end_time: attr.string({
      optional: true,
      requiresReplace: true,
      validate: timestampProblem,
      sameValue: sameInstant,
      description:
        'End of the range (ISO 8601, UTC, after `start_time`): a one-off export. Exactly one of `end_time` and `interval_hours`.',
    }),
    // spec: Scheduled exports, rule 1: interval_hours is an integer from 1 to 168
    interval_hours: attr.number({
      optional: true,
      integer: true,
      min: INTERVAL_HOURS_MIN,
      max: INTERVAL_HOURS_MAX,
      requiresReplace: true,
      description: 'Hours per spawned export: a scheduled export from `start_time` on. Exactly one of `end_time` and `interval_hours`.',
    }),
    filter: attr.string({
      optional: true,
      requiresReplace: true,
      validate: filterProblem,
      sameValue: sameFilter,
      description:
        'Only runs matching this filter expression, e.g. `and(eq(run_type, "llm"), gt(total_tokens, 1000))`; its shape ' +
        '(function-style operators) is checked at plan time, the functions and fields it names by the platform. All runs of ' +
        'the range when left out.',
    }),
    export_fields: attr.list(element.string, {
      optional: true,
      requiresReplace: true,
      unordered: true,
      // spec: Exportable fields, the table of the columns of the Parquet files
      validateElement: exportFieldProblem,
      description:
        'Only these fields become columns (every exportable field when left out), checked at plan time against the ' +
        'platform\'s exportable fields; leaving out `inputs` and `outputs` makes exports much smaller.',
    }),
    format_version: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      requiresReplace: true,
      description:
        'Parquet layout, e.g. `v2_beta` (typed columns for JSON and timestamps, Hive-compliant folders). Sent only when set; ' +
        'left out, the platform chooses, and its choice is read after apply.',
    }),
    wait_for_completion: attr.bool({
      optional: true,
      computed: true,
      default: false,
      description: 'On create of a one-off export, wait until it is `Completed` (bounded by `timeouts.create`); `Failed` fails the apply with the run errors, `TimedOut` with what to change in the export. Without waiting, a refresh that finds the export `Failed` or `TimedOut` while the state holds it in progress warns with the run errors (at every plan until an apply, or `terraform apply -refresh-only`, records the status).',
    }),
    cancel_spawned_on_destroy: attr.bool({
      optional: true,
      computed: true,
      default: false,
      description: 'On destroy of a scheduled export, also cancel the exports it spawned that are not finished (the platform leaves them running otherwise). A destroy reads it from the state: set it with an apply before the destroy.',
    }),
    timeouts,
    status: attr.string({ computed: true, useStateForUnknown: true, description: 'Status: `Created`, `Running`, `Completed`, `Failed`, `Cancelled` or `TimedOut` (a scheduled export stays `Running`), or a status the platform added since, as it names it.' }),
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the export was created (RFC 3339).' }),
    finished_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the export reached a final status, if it has.' }),
    tenant_id: tenantIdAttribute('bulk export'),
  },
});

type Schema = typeof bulkExportSchema;

// ---- validate ----

function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
  const { end_time: end, interval_hours: interval } = config;
  // spec: Bulk export, `end_time` is required for non-scheduled exports and must be omitted for scheduled exports
  if (end === null && interval === null) {
    diagnostics.error(
      'Missing end_time or interval_hours',
      'Set `end_time` for a one-off export of the range, or `interval_hours` for a scheduled export from `start_time` on.',
      'end_time',
    );
  } else if (end !== null && interval !== null && isKnown(end) && isKnown(interval)) {
    diagnostics.error(
      'Conflicting end_time and interval_hours',
      'Set exactly one: `end_time` for a one-off export, or `interval_hours` for a scheduled one (which has no end).',
      'end_time',
    );
  }
  // spec: Bulk export, an export copies the runs "of one tracing project and a time range", the range given by
  // `start_time` and `end_time` (the export body's table); an end at or before the start makes no range, though the
  // spec states no such rule in words
  if (typeof end === 'string' && typeof config.start_time === 'string') {
    const start = instantMicros(config.start_time);
    const stop = instantMicros(end);
    if (!Number.isNaN(start) && !Number.isNaN(stop) && stop <= start) {
      diagnostics.error('Invalid end_time', `\`end_time\` (${end}) must be after \`start_time\` (${config.start_time}).`, 'end_time');
    }
  }
}

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

/** Waits for a one-off export to finish and returns its state; never throws, so the id is kept in state. */
async function settle(
  req: Pick<CreateRequest<Schema>, 'ctx' | 'signal' | 'diagnostics'>,
  client: BulkExportClient,
  model: BulkExportModel,
): Promise<BulkExportModel> {
  const id = model.id!;
  const allowedMs = timeoutMs(model.timeouts, 'create', timeouts);
  try {
    const outcome = await waitForExport({ client, exportId: id, timeoutMs: allowedMs, signal: req.signal, log: req.ctx.log });
    if (outcome.kind !== 'finished') {
      exportWaitEnded(req.diagnostics, id, outcome.kind, allowedMs, outcome.lastStatus);
      return { ...model, status: outcome.lastStatus ?? model.status };
    }
    const finished = outcome.export;
    if (finished.status === 'Failed') {
      const runs = await client.listExportRuns(id, { signal: req.signal });
      exportFailed(req.diagnostics, finished, runs, (text) => client.transport.redact(text));
    } else if (finished.status === 'TimedOut') exportTimedOut(req.diagnostics, finished);
    else if (finished.status === 'Cancelled') exportCancelledWhileWaiting(req.diagnostics, finished);
    return toModel(finished, model);
  } catch (err) {
    const problem = apiFailure(req.diagnostics, err, `follow bulk export ${id}`, EXPORT_BODY_FIELDS);
    req.diagnostics.error(problem.summary, problem.detail, problem.path);
    return model;
  }
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

// ---- plan ----

async function plan({ config, prior, planned, requireReplace, diagnostics, ctx }: PlanRequest<Schema>): Promise<void> {
  const moves = planWorkspace({ ctx, prior, planned, diagnostics, requireReplace }, 'bulk export');
  // at plan rather than validate, which terraform runs on destroy too
  if (config.wait_for_completion === true && typeof config.interval_hours === 'number') exportSettingIgnored(diagnostics, 'wait_for_completion');
  if (config.cancel_spawned_on_destroy === true && config.interval_hours === null && config.end_time !== null) exportSettingIgnored(diagnostics, 'cancel_spawned_on_destroy');
  // a cancelled export cannot be restarted: a new one takes its place
  if (prior?.status === 'Cancelled') {
    planned.status = UNKNOWN;
    requireReplace('status');
  }
  // Terraform shows the warnings of a replacement's first plan only (the one with the prior state)
  const replacing = prior !== null && (moves || prior.status === 'Cancelled' || REPLACING_ATTRIBUTES.some((key) => !sameArgument(key, prior, planned)));
  if (prior !== null && !replacing) return keepPlatformValues(prior, planned);
  warnOfArguments(config, diagnostics);
  warnOfTwin(config, diagnostics);
  const { start_time: start, end_time: end, interval_hours: hours } = planned;
  if (typeof end === 'string') {
    const days = typeof start === 'string' ? exportDays(instantMicros(start), instantMicros(end)) : NaN;
    if (days > MAX_EXPORT_DAYS) exportRangeTooLong(diagnostics, start as string, end, days);
    return checkEndNotAhead({ end, ctx, diagnostics });
  }
  if (typeof start !== 'string' || typeof hours !== 'number') return;
  checkDueIntervals({ start, hours, replacing, ctx, diagnostics });
}

/**
 * An update changes only Terraform's own settings (see update): what the platform holds stays as refreshed, and the
 * plan says so (a computed value that was null would show as "known after apply" otherwise).
 */
function keepPlatformValues(prior: BulkExportModel, planned: PlanRequest<Schema>['planned']): void {
  const kept = planned as Record<string, unknown>;
  for (const [key, attribute] of Object.entries(bulkExportSchema.attributes)) {
    const computedOnly = 'computed' in attribute && attribute.computed === true && !('optional' in attribute && attribute.optional);
    if (computedOnly && kept[key] === UNKNOWN) kept[key] = prior[key as keyof BulkExportModel];
  }
}

/** The arguments whose change replaces the export. */
const REPLACING_ATTRIBUTES = ['destination_id', 'session_id', 'start_time', 'end_time', 'interval_hours', 'filter', 'export_fields', 'format_version'] as const;

function sameArgument(key: (typeof REPLACING_ATTRIBUTES)[number], prior: BulkExportModel, planned: PlanRequest<Schema>['planned']): boolean {
  const [was, will] = [prior[key], planned[key]];
  if (!isKnown(will)) return false;
  // an argument written otherwise for the same value (the schema's sameValue) is the same argument
  const { sameValue: same } = bulkExportSchema.attributes[key] as { readonly sameValue?: (a: string, b: string) => boolean };
  if (same && typeof was === 'string' && typeof will === 'string') return same(was, will);
  // the platform may list the fields in another order (an `unordered` list)
  if (key === 'export_fields' && Array.isArray(was) && Array.isArray(will)) return JSON.stringify([...was].sort()) === JSON.stringify([...will].sort());
  return JSON.stringify(was) === JSON.stringify(will);
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
