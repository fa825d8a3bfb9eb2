/**
 * What the export resources tell users, in one place: each message says what went wrong, about which attribute,
 * and what to do. Messages never carry a secret: access keys and secrets are write-only and never quoted, and the
 * client redacts whatever the server might echo.
 */
import type { BulkExport, BulkExportRun } from '../../api/schemas/bulk-export';
import { MAX_EXPORT_DAYS } from '../../api/schemas/bulk-export-constants';
import { redactUserInfo } from '../../api/urls';
import { DiagnosticError, formatDuration, type Diagnostics, type PathLike } from '../framework';
import { statusOf } from './shared/bulk-export-client';
import { explainApiError } from '../api-errors';

// ---- destinations ----

/** Where a destination writes, as the messages show it. */
export interface DestinationTarget {
  readonly bucket_name: string;
  readonly prefix: string | null;
  readonly endpoint_url: string | null;
  readonly region: string | null;
  /** Whether the configuration gives credentials (else the platform host's environment credentials are used). */
  readonly hasCredentials: boolean;
}

/** `s3://bucket/prefix`. */
export function s3Location(target: Pick<DestinationTarget, 'bucket_name' | 'prefix'>): string {
  const prefix = (target.prefix ?? '').replace(/^\/+|\/+$/g, '');
  return `s3://${target.bucket_name}${prefix ? `/${prefix}` : ''}`;
}

const VALIDATION = 'The platform checks a destination by writing a small test object under `<prefix>/tmp/` with its credentials';

/**
 * The platform's destination validation failure (`detail` is one of its four messages) as a diagnostic saying what
 * it means and what to do; undefined for any other detail. `doing` is `create` or `rotate` (credential rotation).
 */
export function destinationRefused(detail: string, target: DestinationTarget, doing: 'create' | 'rotate'): DiagnosticError | undefined {
  const where = s3Location(target);
  const keys = target.hasCredentials ? 'the access key' : "the platform host's environment credentials";
  const credentialsPath: PathLike | undefined = target.hasCredentials ? 'credentials' : undefined;
  const rotation = doing === 'rotate' ? ' The destination keeps its previous credentials.' : '';
  switch (detail) {
    case 'Access denied':
      return new DiagnosticError(
        `Access denied: ${keys} cannot write to ${where}`,
        `${VALIDATION}, and the bucket refused it. ${capitalize(keys)} needs s3:PutObject on ${where}/* ` +
          '(ExportBucket grants it, with s3:GetObject and s3:AbortMultipartUpload, and s3:DeleteObject on the test objects under tmp/). ' +
          (target.hasCredentials
            ? 'Also check that `secret_access_key` belongs to `access_key_id` (a wrong secret is refused the same way) and that a `session_token` has not expired.'
            : 'Give the destination `credentials`, or grant the role of the platform host (backend and queue services).') +
          rotation,
        credentialsPath,
      );
    case 'Bucket is not valid':
      return new DiagnosticError(
        `Bucket is not valid: ${where} does not exist or cannot be written`,
        `${VALIDATION}, and the store answered that bucket "${target.bucket_name}" does not exist there. ` +
          'Check `bucket_name`' +
          (target.endpoint_url ? ' and `endpoint_url`' : ' and `region` (the bucket\'s own region)') +
          ', and `include_bucket_in_prefix` for stores that need the bucket name in the path. Create the bucket first if it is new.' +
          rotation,
        'bucket_name',
      );
    case 'Key ID you provided does not exist':
      return new DiagnosticError(
        'Unknown access key: the store does not know this access key id',
        `${VALIDATION}, and the store at ${target.endpoint_url ? redactUserInfo(target.endpoint_url) : 'the main object store'} answered that \`access_key_id\` does not exist. ` +
          'Check that the key belongs to this store (and account), and that it has not been deleted.' +
          rotation,
        credentialsPath,
      );
    case 'Invalid endpoint':
      return new DiagnosticError(
        `Invalid endpoint: ${target.endpoint_url ? redactUserInfo(target.endpoint_url) : 'the endpoint'} is not an S3-compatible endpoint`,
        `${VALIDATION}, and nothing that speaks the S3 API answered at ${target.endpoint_url ? redactUserInfo(target.endpoint_url) : 'the endpoint'}. ` +
          'For an S3-compatible store set `endpoint_url` to its S3 API address (scheme, host and port); ' +
          'for Amazon S3 itself leave `endpoint_url` out and set `region`.' +
          rotation,
        'endpoint_url',
      );
    default:
      return undefined;
  }
}

/** A destination whose keys were changed outside Terraform: the configured ones are sent again. */
export function credentialsChangedOutside(diagnostics: Diagnostics, held: readonly string[], configured: readonly string[]): void {
  diagnostics.warning(
    'Export destination keys changed outside Terraform',
    `The platform holds the credential fields ${held.join(', ') || '(none)'}, and the configuration gives ${configured.join(', ')}: ` +
      'the keys were changed outside Terraform, and this apply sends the configured ones again (the platform validates them first).',
    'credentials_keys',
  );
}

/**
 * A destination whose configuration gives no keys while the platform holds some (they were removed from the
 * configuration, or it was imported): nothing changes, and the platform keeps using the keys it holds.
 */
export function credentialsLeftOut(diagnostics: Diagnostics, held: readonly string[]): void {
  diagnostics.warning(
    'Export destination keeps its keys',
    `The configuration gives no \`credentials\`, but the platform holds the credential fields ${held.join(', ')} for this ` +
      'destination and keeps using them: keys cannot be removed in place. To use the credentials of the platform\'s ' +
      'host instead, replace the destination (`terraform apply -replace=` and its address); to manage the keys, set ' +
      '`credentials` and `credentials_version`.',
    'credentials',
  );
}

/** A new destination with neither a region nor an endpoint: Amazon S3, with requests signed for us-east-1. */
export function regionLeftOut(diagnostics: Diagnostics): void {
  diagnostics.warning(
    'Export destination without region',
    'Neither `region` nor `endpoint_url` is set: the platform writes to Amazon S3 with requests signed for us-east-1, and ' +
      'a bucket in another region is refused as "Bucket is not valid". Set `region` to the bucket\'s region, or ' +
      '`endpoint_url` for an S3-compatible store.',
    'region',
  );
}

/** The warning of a destroyed destination: the platform has no API to delete one. */
export function destinationKept(diagnostics: Diagnostics, id: string, name: string): void {
  diagnostics.warning(
    'Export destination removed from state only',
    `The platform has no API to delete export destinations: destination ${id} ("${name}") stays in the workspace with ` +
      'its stored credentials, and Terraform no longer manages it. Revoke its access key, or remove the bucket policy, ' +
      'if nothing should write there any more.',
  );
}

// ---- API errors ----

/** Where a 422 location inside a request body (`["body", "config", "bucket_name"]`) is in a resource's attributes. */
export type BodyFields = Readonly<Record<string, string>>;

/** Body fields of `POST /bulk-exports/destinations` and `PATCH` by attribute. */
export const DESTINATION_BODY_FIELDS: BodyFields = {
  display_name: 'display_name',
  'config.bucket_name': 'bucket_name',
  'config.prefix': 'prefix',
  'config.region': 'region',
  'config.endpoint_url': 'endpoint_url',
  'config.include_bucket_in_prefix': 'include_bucket_in_prefix',
  credentials: 'credentials',
  'credentials.access_key_id': 'credentials.access_key_id',
  'credentials.secret_access_key': 'credentials.secret_access_key',
  'credentials.session_token': 'credentials.session_token',
};

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

function attributeOf(loc: readonly (string | number)[], fields: BodyFields): PathLike | undefined {
  if (loc[0] !== 'body') return undefined;
  const steps = loc.slice(1);
  for (let n = Math.min(steps.length, 2); n > 0; n--) {
    const names = steps.slice(0, n);
    const attribute = names.every((s) => typeof s === 'string') ? fields[names.join('.')] : undefined;
    if (attribute === undefined) continue;
    const index = steps[n];
    return typeof index === 'number' ? `${attribute}[${index}]` : attribute;
  }
  return undefined;
}

/**
 * An API error as a diagnostic to throw: a refused key or workspace with what to check; a 422 as one diagnostic per
 * problem on its attribute (all but the last added to `diagnostics`, the last returned); anything else with the
 * client's message (method, URL, status, request id).
 */
export function apiFailure(diagnostics: Diagnostics, err: unknown, doing: string, fields: BodyFields): DiagnosticError {
  const items = (err as { items?: { loc: (string | number)[]; msg: string }[] } | null)?.items;
  if (statusOf(err) === 422 && items?.length) {
    const problems = items.map((item) => new DiagnosticError(`The platform refused to ${doing}`, item.msg, attributeOf(item.loc, fields)));
    for (const problem of problems.slice(0, -1)) diagnostics.error(problem.summary, problem.detail, problem.path);
    return problems[problems.length - 1]!;
  }
  // a refused key or workspace, or a platform out of reach: the setting to check (the export types use the tracing API)
  const explained = explainApiError(err, 'agentplatform_bulk_export');
  if (explained instanceof DiagnosticError) return explained;
  return new DiagnosticError(`Failed to ${doing}`, err instanceof Error ? err.message : String(err));
}

// ---- exports ----

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

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
