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

/** `format_version` values. */
export const FORMAT_VERSIONS = ['v1', 'v2_beta'] as const;

/** The local platform's default when `format_version` is omitted (the spec does not name one). */
export const DEFAULT_FORMAT_VERSION: (typeof FORMAT_VERSIONS)[number] = 'v1';

/** Smallest `interval_hours` of a scheduled export. */
export const INTERVAL_HOURS_MIN = 1;

/** Largest `interval_hours` of a scheduled export (a week). */
export const INTERVAL_HOURS_MAX = 168;

/**
 * The most UTC days one export covers (an export run each, made when the export is created), and the most intervals
 * of a schedule already due when it is created (an export each, spawned at once): the local platform's limits (the
 * spec names none), beyond which a request would hold it for seconds to hours.
 */
export const MAX_EXPORT_DAYS = 1000;
export const MAX_DUE_INTERVALS = 1000;

/** The platform starts the export of a schedule's interval this long after the interval ends. */
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
