/**
 * The warnings of `agentplatform_bulk_export` at plan, of what the spec sets no rule for and a platform may refuse all
 * the same, or should be said: how many intervals of a new schedule are due at once, a one-off export that ends in
 * the platform's future, a filter naming what the provider does not know, an unknown `format_version`, a field listed
 * twice. None is refused: the spec sets no limit on them, and queues what exceeds the platform's capacity. The
 * platform's time comes from the `Date` of its last answer to this provider (the refresh before a replacement), else
 * this machine's clock.
 */
import { FORMAT_VERSIONS } from '../../api/schemas/bulk-export-constants';
import { isKnown, type Diagnostics, type ProviderContext, type UNKNOWN } from '../framework';
import { SCHEDULE_DELAY_MS, filterProblem, filterWarning, instantMicros } from './bulk-export-checks';
import { bulkExportClient } from './shared/bulk-export-client';
import { exportBackfill, exportFieldRepeated, exportPlannedTwice, filterNotKnown, noExportFields, unknownFormatVersion } from './bulk-export-messages';
import { createBody } from './bulk-export-model';
import type { BulkExportModel } from './bulk-export';
import { plannedTwice } from './shared/unanswered-create';

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
