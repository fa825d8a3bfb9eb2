/**
 * How the platform reaches a destination bucket: one S3 client per destination settings (SigV4 through the AWS SDK,
 * path-style addressing for S3-compatible `endpoint_url`s, the SDK's default credential chain when a destination has
 * no credentials), and where objects go inside the bucket.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { SecretRedactor } from '../../../api/redact';
import type { DestinationConfig, DestinationCredentials } from '../../../api/schemas/bulk-export';

/** Region used to sign requests when a destination names none (S3-compatible stores accept it). */
export const DEFAULT_SIGNING_REGION = 'us-east-1';

/** Network limits of destination requests. */
export interface S3ClientLimits {
  /**
   * Milliseconds allowed to open a connection.
   * @default 5000
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Milliseconds a request may go without the server sending anything.
   * @default 60000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Attempts per request made by the SDK itself (export runs add their own retries on top).
   * @default 3
   */
  readonly maxAttempts?: number;
}

/** An S3 client for a destination; the caller calls `destroy()` when done. */
export function createDestinationClient(
  config: DestinationConfig,
  credentials: DestinationCredentials | null,
  limits: S3ClientLimits = {},
): S3Client {
  return new S3Client({
    region: config.region ?? DEFAULT_SIGNING_REGION,
    ...(config.endpoint_url ? { endpoint: config.endpoint_url, forcePathStyle: true } : {}),
    ...(credentials
      ? {
          credentials: {
            accessKeyId: credentials.access_key_id,
            secretAccessKey: credentials.secret_access_key,
            ...(credentials.session_token ? { sessionToken: credentials.session_token } : {}),
          },
        }
      : {}),
    maxAttempts: limits.maxAttempts ?? 3,
    // S3-compatible stores do not all understand the SDK's default flexible checksums; send them only when required.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: limits.connectionTimeoutMs ?? 5_000,
      requestTimeout: limits.requestTimeoutMs ?? 60_000,
    },
  });
}

/**
 * What scrubs a destination's secret credentials out of a text: a store may write them back in its error messages,
 * which the platform keeps in export runs, logs and answers.
 */
export const credentialRedactor = (credentials: DestinationCredentials | null): SecretRedactor =>
  new SecretRedactor([credentials?.secret_access_key, credentials?.session_token]);

const trimSlashes = (text: string): string => text.replace(/^\/+|\/+$/g, '');

/**
 * The key prefix every object of the destination starts with (no leading or trailing slash): the configured
 * prefix, preceded by the bucket name when `include_bucket_in_prefix` asks for it and the prefix does not already
 * start with it.
 */
export function destinationKeyPrefix(config: DestinationConfig): string {
  const prefix = trimSlashes(config.prefix ?? '');
  const bucketAlreadyThere = prefix === config.bucket_name || prefix.startsWith(`${config.bucket_name}/`);
  const parts = config.include_bucket_in_prefix && !bucketAlreadyThere ? [config.bucket_name, prefix] : [prefix];
  return parts.filter((part) => part !== '').join('/');
}

/** `prefix/…/name`, skipping an empty prefix. */
export const joinKey = (...parts: string[]): string => parts.map(trimSlashes).filter((part) => part !== '').join('/');

const pad5 = (n: number): string => String(n).padStart(5, '0');

/** The key of a Parquet part of an export run: Hive-style partitions of export, tenant, project and UTC day. */
export function exportPartKey(args: {
  readonly config: DestinationConfig;
  readonly exportId: string;
  readonly tenantId: string;
  readonly sessionId: string;
  /** The run's UTC day, epoch milliseconds of its midnight. */
  readonly dayStartMs: number;
  /** The file's segment, for a run cut into segments (exports/segments.ts). */
  readonly segmentIndex?: number;
  /** The file's index in its run, or in its segment. */
  readonly partIndex: number;
}): string {
  const day = new Date(args.dayStartMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return joinKey(
    destinationKeyPrefix(args.config),
    `export_id=${args.exportId}`,
    `tenant_id=${args.tenantId}`,
    `session_id=${args.sessionId}`,
    'runs',
    `year=${day.getUTCFullYear()}`,
    `month=${pad(day.getUTCMonth() + 1)}`,
    `day=${pad(day.getUTCDate())}`,
    // the indexes fix the name, so re-writing a part after a crash replaces it instead of adding a duplicate
    `part-${args.segmentIndex === undefined ? '' : `${pad5(args.segmentIndex)}-`}${pad5(args.partIndex)}.parquet`,
  );
}
