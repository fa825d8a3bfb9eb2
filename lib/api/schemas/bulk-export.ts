/**
 * Zod schemas of the trace bulk export API (area B of the platform API): destinations, exports and export runs.
 * The client parses every response with these, and the local platform answers exactly what they accept.
 */
import { z } from 'zod';
import {
  BULK_EXPORT_STATUSES,
  DEFAULT_FORMAT_VERSION,
  FINAL_BULK_EXPORT_STATUSES,
  FORMAT_VERSIONS,
  INTERVAL_HOURS_MAX,
  INTERVAL_HOURS_MIN,
  type BulkExportStatusName,
} from './bulk-export-constants';

export { BULK_EXPORT_STATUSES, DEFAULT_FORMAT_VERSION, FINAL_BULK_EXPORT_STATUSES, FORMAT_VERSIONS, INTERVAL_HOURS_MAX, INTERVAL_HOURS_MIN };
export type BulkExportStatus = BulkExportStatusName;

const STATUS_BY_UPPER_CASE: Readonly<Record<string, BulkExportStatus>> = Object.fromEntries(
  BULK_EXPORT_STATUSES.map((status) => [status.toUpperCase(), status]),
);

/** Accepts both spellings (`Completed`, `COMPLETED`, `TIMEDOUT`, `TimedOut`) and yields the wire spelling. */
export const BulkExportStatus = z.preprocess(
  (value) => (typeof value === 'string' ? (STATUS_BY_UPPER_CASE[value.toUpperCase()] ?? value) : value),
  z.enum(BULK_EXPORT_STATUSES),
);

export const isFinalBulkExportStatus = (status: BulkExportStatus): boolean => FINAL_BULK_EXPORT_STATUSES.includes(status);

export const FormatVersion = z.enum(FORMAT_VERSIONS);
export type FormatVersion = z.infer<typeof FormatVersion>;

export const DESTINATION_TYPES = ['s3'] as const;

/** The four validation failures of destination creation, with the platform's exact wording. */
export const DESTINATION_ERRORS = {
  accessDenied: 'Access denied',
  bucketNotValid: 'Bucket is not valid',
  unknownKeyId: 'Key ID you provided does not exist',
  invalidEndpoint: 'Invalid endpoint',
} as const;
export type DestinationErrorMessage = (typeof DESTINATION_ERRORS)[keyof typeof DESTINATION_ERRORS];

export const DestinationConfig = z.object({
  bucket_name: z.string().min(1),
  prefix: z.string().default(''),
  region: z.string().min(1).nullish(),
  endpoint_url: z.string().min(1).nullish(),
  include_bucket_in_prefix: z.boolean().nullish(),
});
export type DestinationConfig = z.infer<typeof DestinationConfig>;
export type DestinationConfigInput = z.input<typeof DestinationConfig>;

export const DestinationCredentials = z.object({
  access_key_id: z.string().min(1),
  secret_access_key: z.string().min(1),
  session_token: z.string().min(1).nullish(),
});
export type DestinationCredentials = z.infer<typeof DestinationCredentials>;

/** Body of `POST /api/v1/bulk-exports/destinations`. Omitting `credentials` selects the host's environment credentials. */
export const DestinationCreate = z.object({
  destination_type: z.enum(DESTINATION_TYPES).default('s3'),
  display_name: z.string().min(1),
  config: DestinationConfig,
  credentials: DestinationCredentials.nullish(),
});
export type DestinationCreate = z.input<typeof DestinationCreate>;

/** Body of `PATCH /api/v1/bulk-exports/destinations/{id}`: rotates the credentials after validating the new ones. */
export const DestinationCredentialsUpdate = z.object({
  credentials: DestinationCredentials,
});
export type DestinationCredentialsUpdate = z.input<typeof DestinationCredentialsUpdate>;

/** A destination as returned by the API: credentials are never returned, only the names of the keys given. */
export const Destination = z.object({
  id: z.guid(),
  tenant_id: z.guid(),
  destination_type: z.enum(DESTINATION_TYPES),
  display_name: z.string(),
  config: DestinationConfig,
  credentials_keys: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Destination = z.infer<typeof Destination>;
export const DestinationList = z.array(Destination);

/** Body of `POST /api/v1/bulk-exports`. Exactly one of `end_time` and `interval_hours` is given. */
export const BulkExportCreate = z.object({
  bulk_export_destination_id: z.string(),
  session_id: z.guid(),
  start_time: z.string(),
  end_time: z.string().nullish(),
  filter: z.string().nullish(),
  export_fields: z.array(z.string()).nullish(),
  interval_hours: z.number().int().nullish(),
  format_version: FormatVersion.nullish(),
});
export type BulkExportCreate = z.input<typeof BulkExportCreate>;

export const BulkExport = z.object({
  id: z.guid(),
  tenant_id: z.guid(),
  bulk_export_destination_id: z.guid(),
  session_id: z.guid(),
  start_time: z.string(),
  end_time: z.string().nullable(),
  filter: z.string().nullable(),
  export_fields: z.array(z.string()).nullable(),
  interval_hours: z.number().int().nullable(),
  format_version: FormatVersion,
  status: BulkExportStatus,
  source_bulk_export_id: z.guid().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
export type BulkExport = z.infer<typeof BulkExport>;
export const BulkExportList = z.array(BulkExport);

/** Body of `PATCH /api/v1/bulk-exports/{id}`: the only change allowed is cancellation. */
export const BulkExportUpdate = z.object({
  status: z.preprocess(
    (value) => (typeof value === 'string' && value.toUpperCase() === 'CANCELLED' ? 'Cancelled' : value),
    z.literal('Cancelled'),
  ),
});
export type BulkExportUpdate = z.input<typeof BulkExportUpdate>;

/** Progress of one export run, updated after each Parquet file is written. */
export const BulkExportRunMetadata = z.object({
  /** Position after the last exported row, in the run's cursor order; null before the first file. */
  latest_cursor: z.string().nullable(),
  rows_written: z.number().int(),
  /** Object keys of the Parquet files written so far, in order. */
  exported_files: z.array(z.string()),
});
export type BulkExportRunMetadata = z.infer<typeof BulkExportRunMetadata>;

export const BulkExportRun = z.object({
  id: z.guid(),
  bulk_export_id: z.guid(),
  status: BulkExportStatus,
  /** How many retries this run has used (0 on the first attempt). */
  retry_number: z.number().int(),
  /** The error of each failed attempt, keyed `retry_0`, `retry_1`, … */
  errors: z.record(z.string(), z.string()),
  start_time: z.string(),
  end_time: z.string(),
  metadata: BulkExportRunMetadata,
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
export type BulkExportRun = z.infer<typeof BulkExportRun>;
export const BulkExportRunList = z.array(BulkExportRun);
