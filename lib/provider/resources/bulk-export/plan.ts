/**
 * Validation and plan of `agentplatform_bulk_export`: the range checked, what is replaced, and the warnings at plan, of what the spec sets no rule for and a platform may refuse all
 * the same, or should be said: how many intervals of a new schedule are due at once, a one-off export that ends in
 * the platform's future, a filter naming what the provider does not know, an unknown `format_version`, a field listed
 * twice. None is refused: the spec sets no limit on them, and queues what exceeds the platform's capacity. The
 * platform's time comes from the `Date` of its last answer to this provider (the refresh before a replacement), else
 * this machine's clock.
 */
import { FORMAT_VERSIONS, MAX_EXPORT_DAYS } from '../../../api/schemas/bulk-export-constants';
import { UNKNOWN, isKnown, type Diagnostics, type PlanRequest, type ProviderContext, type ValidateRequest } from '../../framework';
import { SCHEDULE_DELAY_MS, exportDays, filterProblem, filterWarning, instantMicros } from './checks';
import { bulkExportClient } from '../shared/bulk-export-client';
import { exportBackfill, exportFieldRepeated, exportPlannedTwice, exportRangeTooLong, exportSettingIgnored, filterNotKnown, noExportFields, unknownFormatVersion } from './messages';
import { createBody } from './body';
import { bulkExportSchema, type BulkExportModel, type BulkExportSchema } from './schema';
import { plannedTwice } from '../shared/unanswered-create';
import { planWorkspace } from '../shared/workspace';

/** The arguments the warnings read. */
interface ExportArguments {
  readonly filter: unknown;
  readonly format_version: unknown;
  readonly export_fields: readonly unknown[] | null | typeof UNKNOWN;
}

/** The warnings of the arguments themselves (the filter, `format_version`, `export_fields`). */
export function warnOfArguments(config: ExportArguments, diagnostics: Diagnostics): void {
  const problem = typeof config.filter === 'string' && filterProblem(config.filter) === undefined ? filterWarning(config.filter) : undefined;
  if (problem !== undefined) filterNotKnown(diagnostics, problem);
  const version = config.format_version;
  if (typeof version === 'string' && !(FORMAT_VERSIONS as readonly string[]).includes(version)) unknownFormatVersion(diagnostics, version, FORMAT_VERSIONS);
  const fields = config.export_fields;
  if (fields === null || !isKnown(fields)) return;
  if (fields.length === 0) noExportFields(diagnostics);
  fields.forEach((field, index) => {
    if (typeof field === 'string' && fields.indexOf(field) !== index) exportFieldRepeated(diagnostics, field, index);
  });
}

/** The platform's time now: from the `Date` of its last answer to this provider, else this machine's. */
function platformNowMs(ctx: ProviderContext): number {
  try {
    return bulkExportClient(ctx).transport.serverNow() ?? Date.now();
  } catch {
    return Date.now();
  }
}

/** A schedule starting at `start`, every `hours`: warns of the intervals due at once, with their number. */
export function checkDueIntervals({
  start,
  hours,
  replacing,
  ctx,
  diagnostics,
}: {
  readonly start: string;
  readonly hours: number;
  readonly replacing: boolean;
  readonly ctx: ProviderContext;
  readonly diagnostics: Diagnostics;
}): void {
  const startMs = instantMicros(start) / 1000;
  // spec: Scheduled exports, rules 2 and 3: the k-th interval ends at start + k·interval and runs 10 minutes later
  const due = Math.floor((platformNowMs(ctx) - SCHEDULE_DELAY_MS - startMs) / (hours * 3_600_000));
  if (due >= 1) exportBackfill(diagnostics, start, hours, due, replacing);
}

/**
 * A one-off export that ends more than 10 minutes after the platform's time: its runs export what is stored when
 * they run, so later runs of the range would be missed, and a platform may refuse it.
 */
export function checkEndNotAhead({ end, ctx, diagnostics }: { readonly end: string; readonly ctx: ProviderContext; readonly diagnostics: Diagnostics }): void {
  const nowMs = platformNowMs(ctx);
  if (!(instantMicros(end) / 1000 > nowMs + SCHEDULE_DELAY_MS)) return;
  diagnostics.warning(
    'One-off export ends in the future',
    `\`end_time\` ${end} is after the platform's time (${new Date(nowMs).toISOString()}): an export writes the runs stored when it runs, ` +
      'and later ones would be missed; the platform may refuse it. End it at the latest now, or make it scheduled with `interval_hours` ' +
      '(each interval is exported once it has ended).',
    'end_time',
  );
}

/**
 * Warns when another bulk export this plan creates asks for exactly the same export (the settings only Terraform keeps
 * aside): see `plannedTwice`. The request is that of the configuration (what it leaves out is not sent), and only one
 * known at plan can be compared.
 */
export function warnOfTwin(config: object, diagnostics: Diagnostics): void {
  const body = createBody(config as BulkExportModel);
  const known = (value: unknown): boolean => isKnown(value) && (!Array.isArray(value) || value.every(known));
  if (Object.values(body).every(known) && plannedTwice('agentplatform_bulk_export', body)) exportPlannedTwice(diagnostics);
}

type Schema = BulkExportSchema;

// ---- validate ----

export function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
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

// ---- plan ----

export async function plan({ config, prior, planned, requireReplace, diagnostics, ctx }: PlanRequest<Schema>): Promise<void> {
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
