/**
 * Zod schemas of the trace bulk export API (area B of the platform API): destinations, exports and export runs.
 * Request bodies are closed to what the spec names; responses are read tolerantly (see `tolerant.ts`): the client
 * parses every response with these, and whatever the local platform answers passes them.
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
import { looseNumber, openEnum, type OpenEnum } from './tolerant';

export { BULK_EXPORT_STATUSES, DEFAULT_FORMAT_VERSION, FINAL_BULK_EXPORT_STATUSES, FORMAT_VERSIONS, INTERVAL_HOURS_MAX, INTERVAL_HOURS_MIN };
export type BulkExportStatus = BulkExportStatusName;

const STATUS_BY_UPPER_CASE: Readonly<Record<string, BulkExportStatus>> = Object.fromEntries(
  BULK_EXPORT_STATUSES.map((status) => [status.toUpperCase(), status]),
);

/** The wire spelling of a known status in either spelling (`COMPLETED`, `TIMEDOUT`), else the value as it is. */
const wireSpelling = (value: unknown): unknown => (typeof value === 'string' ? (STATUS_BY_UPPER_CASE[value.toUpperCase()] ?? value) : value);

/** Accepts both spellings (`Completed`, `COMPLETED`, `TIMEDOUT`, `TimedOut`) and yields the wire spelling. */
export const BulkExportStatus = z.preprocess(wireSpelling, z.enum(BULK_EXPORT_STATUSES));

/** A status as the platform answers it: a known one in its wire spelling, or a status added since, kept as it is. */
export const AnsweredBulkExportStatus = z.preprocess(wireSpelling, openEnum(BULK_EXPORT_STATUSES)) as z.ZodType<OpenEnum<BulkExportStatus>, string>;
export type AnsweredBulkExportStatus = OpenEnum<BulkExportStatus>;

/** Whether a status is final; a status added since is not known to be. */
export const isFinalBulkExportStatus = (status: string): boolean => (FINAL_BULK_EXPORT_STATUSES as readonly string[]).includes(status);

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

/** `config` of a destination as the platform answers it: whatever it shows. */
const AnsweredDestinationConfig = z.object({
  bucket_name: z.string().optional(),
  prefix: z.string().nullable().optional(),
  region: z.string().nullish(),
  endpoint_url: z.string().nullish(),
  include_bucket_in_prefix: z.boolean().nullish(),
});

/**
 * A destination as the platform answers it: credentials are never returned, at most the names of the keys given.
 * Only `id` is required (the spec names it as what creation returns); a destination type added since is kept.
 */
export const Destination = z.object({
  id: z.string(),
  tenant_id: z.string().optional(),
  destination_type: openEnum(DESTINATION_TYPES).optional(),
  display_name: z.string().optional(),
  config: AnsweredDestinationConfig.optional(),
  credentials_keys: z.array(z.string()).optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type Destination = z.infer<typeof Destination>;
export const DestinationList = z.array(Destination);

/** A destination as the local platform answers it: every field, each in its closed form. */
export const DestinationRecord = z.object({
  id: z.guid(),
  tenant_id: z.guid(),
  destination_type: z.enum(DESTINATION_TYPES),
  display_name: z.string(),
  config: DestinationConfig,
  credentials_keys: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DestinationRecord = z.infer<typeof DestinationRecord>;

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

/**
 * An export as the platform answers it: `id` and `status` are required (what creation returns, and what every wait
 * and destroy reads); the rest may be left out, and a status or format version added since is kept.
 */
export const BulkExport = z.object({
  id: z.string(),
  status: AnsweredBulkExportStatus,
  tenant_id: z.string().optional(),
  bulk_export_destination_id: z.string().optional(),
  session_id: z.string().optional(),
  start_time: z.string().optional(),
  end_time: z.string().nullable().optional(),
  filter: z.string().nullable().optional(),
  export_fields: z.array(z.string()).nullable().optional(),
  interval_hours: looseNumber.nullable().optional(),
  format_version: openEnum(FORMAT_VERSIONS).nullable().optional(),
  source_bulk_export_id: z.string().nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  finished_at: z.string().nullable().optional(),
});
export type BulkExport = z.infer<typeof BulkExport>;
export const BulkExportList = z.array(BulkExport);

/** An export as the local platform answers it: every field, each in its closed form. */
export const BulkExportRecord = z.object({
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
export type BulkExportRecord = z.infer<typeof BulkExportRecord>;

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

/** A run's progress as the platform answers it: whatever it shows. */
const AnsweredRunMetadata = z.object({
  latest_cursor: z.string().nullable().optional(),
  rows_written: looseNumber.nullable().optional(),
  exported_files: z.array(z.string()).nullable().optional(),
});

/** An export run as the platform answers it: `id` and `status` are required, the rest may be left out. */
export const BulkExportRun = z.object({
  id: z.string(),
  status: AnsweredBulkExportStatus,
  bulk_export_id: z.string().optional(),
  /** How many retries this run has used (0 on the first attempt). */
  retry_number: looseNumber.nullable().optional(),
  /** The error of each failed attempt, keyed `retry_0`, `retry_1`, … */
  errors: z.record(z.string(), z.string()).nullable().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
  metadata: AnsweredRunMetadata.nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  finished_at: z.string().nullable().optional(),
});
export type BulkExportRun = z.infer<typeof BulkExportRun>;
export const BulkExportRunList = z.array(BulkExportRun);

/** An export run as the local platform answers it: every field, each in its closed form. */
export const BulkExportRunRecord = z.object({
  id: z.guid(),
  bulk_export_id: z.guid(),
  status: BulkExportStatus,
  retry_number: z.number().int(),
  errors: z.record(z.string(), z.string()),
  start_time: z.string(),
  end_time: z.string(),
  metadata: BulkExportRunMetadata,
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
export type BulkExportRunRecord = z.infer<typeof BulkExportRunRecord>;
