/**
 * What the export resources tell users, in one place: each message says what went wrong, about which attribute,
 * and what to do. Messages never carry a secret: access keys and secrets are write-only and never quoted, and the
 * client redacts whatever the server might echo.
 */
import type { BulkExport, BulkExportRun } from '../../../api/schemas/bulk-export';
import { MAX_EXPORT_DAYS } from '../../../api/schemas/bulk-export-constants';
import { formatDuration, type Diagnostics } from '../../framework';
import type { BodyFields } from '../shared/bulk-export-messages';

/** Body fields of `POST /bulk-exports` by attribute. */
export const EXPORT_BODY_FIELDS: BodyFields = {
  bulk_export_destination_id: 'destination_id',
  session_id: 'session_id',
  start_time: 'start_time',
  end_time: 'end_time',
  interval_hours: 'interval_hours',
  filter: 'filter',
  export_fields: 'export_fields',
  format_version: 'format_version',
};

/** Runs in the order the platform lists them, each with its errors in attempt order. */
function runErrors(runs: readonly BulkExportRun[]): string {
  const failed = runs.filter((r) => r.status === 'Failed' || r.status === 'TimedOut');
  const shown = failed.length ? failed : runs.filter((r) => Object.keys(r.errors ?? {}).length > 0);
  if (!shown.length) return 'The platform recorded no run errors.';
  return shown
    .map((run) => {
      const attempts = Object.entries(run.errors ?? {})
        .sort(([a], [b]) => retryIndex(a) - retryIndex(b))
        .map(([key, message]) => `  ${key}: ${message}`);
      const range = run.start_time && run.end_time ? ` (${run.start_time} to ${run.end_time})` : '';
      return [`Run ${run.id}${range}, ${run.status}:`, ...attempts].join('\n');
    })
    .join('\n\n');
}

function retryIndex(key: string): number {
  const n = Number(/^retry_(\d+)$/.exec(key)?.[1]);
  return Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
}

const KEPT =
  'The export stays in state; Terraform marks it tainted, so the next apply replaces it with a new export (an export ' +
  'cannot be restarted). Run `terraform untaint` on it to keep it instead.';

/**
 * The error of a one-off export that ended Failed, listing each failed run's errors, with the secrets this provider
 * knows redacted (`redact`: a store may have written a destination's credentials into its errors).
 */
export function exportFailed(diagnostics: Diagnostics, exp: BulkExport, runs: readonly BulkExportRun[], redact: (text: string) => string): void {
  const failed = runs.filter((r) => r.status === 'Failed' || r.status === 'TimedOut').length;
  diagnostics.error(
    `Bulk export ${exp.id} failed`,
    `${failed} of ${runs.length} export run(s) failed; a run that fails for good fails the whole export.\n\n${redact(runErrors(runs))}\n\n` +
      'Storage and destination errors are not retried: fix the destination (bucket, credentials, policy) first. ' +
      KEPT,
  );
}

/** The error of a one-off export that ended TimedOut, with the platform's remedy. */
export function exportTimedOut(diagnostics: Diagnostics, exp: BulkExport): void {
  diagnostics.error(
    `Bulk export ${exp.id} timed out`,
    'The export exceeded the platform\'s time limit for a whole export, and timed-out exports are not retried. ' +
      'Reduce its scope: narrow the date range (`start_time`, `end_time`), add a `filter`, or export fewer fields ' +
      '(`export_fields`, for example without `inputs` and `outputs`); or split it into several exports. ' +
      KEPT,
  );
}

/** The error of an export cancelled (outside Terraform) while Terraform waited for it. */
export function exportCancelledWhileWaiting(diagnostics: Diagnostics, exp: BulkExport): void {
  diagnostics.error(
    `Bulk export ${exp.id} was cancelled`,
    `Someone cancelled the export (PATCH status Cancelled) while Terraform waited for it to complete. ${KEPT}`,
  );
}

/** The error of a wait that ran out of time or was stopped, naming the last status seen. */
export function exportWaitEnded(diagnostics: Diagnostics, id: string, reason: 'timed-out' | 'stopped', timeoutMs: number, lastStatus: string | undefined): void {
  const last = lastStatus ? `last status ${lastStatus}` : 'no status seen yet';
  if (reason === 'timed-out') {
    diagnostics.error(
      `Bulk export ${id}: create timed out`,
      `Timed out after ${formatDuration(timeoutMs)} waiting for the export to complete; ${last}. It keeps running on the platform. ${KEPT} ` +
        'Allow more time with `timeouts = { create = "..." }`, or set `wait_for_completion = false` to return once it is accepted.',
      'timeouts',
    );
  } else {
    diagnostics.error(`Bulk export ${id}: create interrupted`, `Stopped waiting for the export to complete because terraform is stopping; ${last}. ${KEPT}`);
  }
}

/**
 * The warning of a read that finds a one-off export `Failed` or `TimedOut` while the state holds it in progress (it was
 * created without waiting, or its wait ran out): each failed run's errors (redacted as in {@link exportFailed}), or
 * why they could not be listed.
 */
export function exportEndedUnwatched(
  diagnostics: Diagnostics,
  exp: BulkExport,
  lastSeen: string,
  runs: readonly BulkExportRun[] | Error,
  redact: (text: string) => string,
): void {
  const errors = runs instanceof Error ? `Its run errors could not be listed: ${runs.message}` : runErrors(runs);
  diagnostics.warning(
    `Bulk export ${exp.id} ${exp.status === 'TimedOut' ? 'timed out' : 'failed'}`,
    `The state last saw the export ${lastSeen}; it has ended ${exp.status} since.\n\n${redact(errors)}\n\n` +
      'It stays in state as it is: an export cannot be restarted. To export its range again, fix the cause (for ' +
      'storage errors: the bucket, credentials or policy; for a time-out: a narrower range, a filter or fewer fields) ' +
      'and replace it with `terraform apply -replace=<its address>`.',
  );
}

/** The warning of a read that finds the export cancelled outside Terraform: the plan creates a new one. */
export function exportCancelledOutside(diagnostics: Diagnostics, id: string, cancelsSpawned: boolean): void {
  diagnostics.warning(
    `Bulk export ${id} was cancelled outside Terraform`,
    'A cancelled export cannot be restarted: Terraform plans a new export in its place (a replacement)' +
      (cancelsSpawned ? ', and destroying the cancelled one first cancels the exports it spawned that are not finished.' : '.'),
  );
}

/**
 * A scheduled export created with a start this many whole intervals in the past: an export of each is spawned at once,
 * and they run as the platform's capacity allows (spec: Limits, 15 concurrent exports per workspace; the others wait
 * in a queue).
 */
export function exportBackfill(diagnostics: Diagnostics, start: string, hours: number, intervals: number, replacing: boolean): void {
  diagnostics.warning(
    'Scheduled export starts in the past',
    `\`start_time\` (${start}) is ${intervals} interval(s) of ${hours}h in the past: ${intervals} interval(s) are due at once. The platform ` +
      'spawns an export of each as soon as the export is created and runs them as its capacity allows (15 exports of a workspace at ' +
      'a time; the others wait in its queue, in status Created)' +
      (replacing
        ? '. This replaces an export that exported them already: they are exported again, under a new `export_id=` prefix.'
        : '.') +
      ' To export only from now on, set a later `start_time`.',
    'start_time',
  );
}

/** A new one-off export over more UTC days than the local platform takes: a platform may refuse it. */
export function exportRangeTooLong(diagnostics: Diagnostics, start: string, end: string, days: number): void {
  diagnostics.warning(
    'Long export range',
    `${start} to ${end} covers ${days} UTC days, an export run each; the platform may refuse a range this long (the local platform ` +
      `takes at most ${MAX_EXPORT_DAYS}). If it does, split the range into several exports.`,
    'end_time',
  );
}

/** A `format_version` the provider does not know: it is sent as it is, and the platform may refuse it. */
export function unknownFormatVersion(diagnostics: Diagnostics, value: string, known: readonly string[]): void {
  diagnostics.warning(
    'Unknown format_version',
    `${JSON.stringify(value)} is not a format version the provider knows (${known.join(', ')}): it is sent as it is, and the platform may refuse it.`,
    'format_version',
  );
}

/** A filter of the right shape that names an operator or field the provider does not know, or a value of another type. */
export function filterNotKnown(diagnostics: Diagnostics, problem: string): void {
  diagnostics.warning(
    'Filter not known to the provider',
    `${problem}\n\nThe filter is sent as it is: the platform judges the operators and fields it names, and may refuse it.`,
    'filter',
  );
}

/** An empty `export_fields`: no column at all; the platform may refuse it. */
export function noExportFields(diagnostics: Diagnostics): void {
  diagnostics.warning('Empty export_fields', '`export_fields` names no field, so the files would have no column; the platform may refuse it. Leave it out to export every exportable field.', 'export_fields');
}

/** An `export_fields` entry listed twice: the platform may refuse the list. */
export function exportFieldRepeated(diagnostics: Diagnostics, field: string, index: number): void {
  diagnostics.warning(`Repeated export_fields[${index}]`, `${JSON.stringify(field)} is listed twice; the platform may refuse the list.`, [
    { attribute: 'export_fields' },
    { index },
  ]);
}

/** Another bulk export of the configuration asks for exactly the same export (see docs/convergence.md, Limits). */
export function exportPlannedTwice(diagnostics: Diagnostics): void {
  diagnostics.warning(
    'Another bulk export asks for exactly the same export',
    'Another `agentplatform_bulk_export` of this configuration has the same destination, project, range or schedule, filter, ' +
      'fields and format. Their creates carry `Idempotency-Key`s told apart only by the order they are sent in, so after a ' +
      "create whose answer was lost, a later apply may take the other resource's export for this one. Set one argument apart " +
      '(a filter, the fields, the start) if they are meant to be two exports.',
  );
}

/** A setting that does nothing for this kind of export, which a configuration set all the same. */
export function exportSettingIgnored(diagnostics: Diagnostics, attribute: 'wait_for_completion' | 'cancel_spawned_on_destroy'): void {
  if (attribute === 'wait_for_completion') {
    diagnostics.warning(
      'wait_for_completion is ignored for a scheduled export',
      '`wait_for_completion` waits for a one-off export (`end_time`) to complete; a scheduled export (`interval_hours`) never ' +
        'completes, so the apply returns once it is created. Leave `wait_for_completion` out.',
      attribute,
    );
  } else {
    diagnostics.warning(
      'cancel_spawned_on_destroy is ignored for a one-off export',
      '`cancel_spawned_on_destroy` cancels, on destroy, the exports a scheduled export (`interval_hours`) spawned; a one-off ' +
        'export (`end_time`) spawns none. Its destroy still cancels the export itself when it is not finished. Leave ' +
        '`cancel_spawned_on_destroy` out.',
      attribute,
    );
  }
}
