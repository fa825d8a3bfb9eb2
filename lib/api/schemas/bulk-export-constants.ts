/**
 * The plain values of the bulk export API's rules (statuses, format versions, interval bounds), without zod, so that
 * code on a start-up path (the terraform provider is launched several times per command) can use them without
 * loading the schema library. `bulk-export.ts` builds its schemas on these and re-exports them.
 */

/** Statuses as the platform spells them on the wire. The spec's upper-case names denote the same states. */
export const BULK_EXPORT_STATUSES = ['Created', 'Running', 'Completed', 'Failed', 'Cancelled', 'TimedOut'] as const;

/** One of {@link BULK_EXPORT_STATUSES}. */
export type BulkExportStatusName = (typeof BULK_EXPORT_STATUSES)[number];

/** Statuses after which an export or an export run never changes again. */
export const FINAL_BULK_EXPORT_STATUSES: readonly BulkExportStatusName[] = ['Completed', 'Failed', 'Cancelled', 'TimedOut'];

/**
 * `format_version` values the local platform takes. The spec names `v2_beta` only: the provider and the constructs
 * send a value only when the user sets one, and warn of others.
 */
export const FORMAT_VERSIONS = ['v1', 'v2_beta'] as const;

/** The local platform's default when `format_version` is omitted (the spec's default is "not shown"). */
export const DEFAULT_FORMAT_VERSION: (typeof FORMAT_VERSIONS)[number] = 'v1';

/** Smallest `interval_hours` of a scheduled export. spec: Scheduled exports, rule 1. */
export const INTERVAL_HOURS_MIN = 1;

/** Largest `interval_hours` of a scheduled export (a week). spec: Scheduled exports, rule 1. */
export const INTERVAL_HOURS_MAX = 168;

/**
 * The most UTC days one export covers (an export run each, made when the export is created): the local platform's
 * limit, beyond which a request would hold it for seconds; the spec names none, so the provider and the constructs
 * only warn of it.
 */
export const MAX_EXPORT_DAYS = 1000;

/** The platform starts the export of a schedule's interval this long after the interval ends. spec: Scheduled exports, rule 3. */
export const SCHEDULE_DELAY_MS = 10 * 60_000;

const DAY_MICROS = 86_400_000_000;

/** The UTC days the range [start, end) of an export touches (an export run each). */
export const exportDays = (startMicros: number, endMicros: number): number =>
  Math.ceil(endMicros / DAY_MICROS) - Math.floor(startMicros / DAY_MICROS);

/**
 * Whether a region can be part of a host name (`s3.<region>.amazonaws.com`), as the S3 client checks it: letters,
 * digits and dashes, 1 to 63 of them, neither starting nor ending with a dash.
 */
export const isRegionName = (region: string): boolean => /^(?!-)(?!.*-$)[a-zA-Z0-9-]{1,63}$/.test(region);
