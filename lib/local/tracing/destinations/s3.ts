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

/**
 * The secrets of the host's own credentials that destinations without credentials were sent with, as the SDK's
 * default chain resolved them (environment, profile, SSO, container or instance role): they belong to the platform's
 * operator, never to the workspace whose destination a store writes them back for.
 */
const hostSecrets = new Set<string>();
/** Host secrets kept, the latest (credentials the chain refreshes, say every hour, replace the earlier ones). */
const MAX_HOST_SECRETS = 8;

/**
 * Notes the credentials the client's default chain resolves, before each request goes out (the chain keeps them
 * for the client, so this costs nothing more): when the request fails, the redactor built then knows them.
 */
function noteHostCredentials(client: S3Client): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        const resolved = await client.config.credentials();
        for (const secret of [resolved.secretAccessKey, resolved.sessionToken]) {
          if (!secret || hostSecrets.has(secret)) continue;
          hostSecrets.add(secret);
          if (hostSecrets.size > MAX_HOST_SECRETS) hostSecrets.delete(hostSecrets.values().next().value!);
        }
      } catch {
        // no credentials: the request fails with the SDK's own error, which carries none
      }
      return next(args);
    },
    { step: 'initialize', name: 'noteHostCredentials' },
  );
}

/** An S3 client for a destination; the caller calls `destroy()` when done. */
export function createDestinationClient(
  config: DestinationConfig,
  credentials: DestinationCredentials | null,
  limits: S3ClientLimits = {},
): S3Client {
  const client = new S3Client({
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
  if (!credentials) noteHostCredentials(client);
  return client;
}

/**
 * What scrubs the secret credentials a destination's requests were sent with out of a text: a store may write them
 * back in its error messages, which the platform keeps in export runs, logs and answers. For a destination without
 * credentials they are the host's: those of the environment (`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) and those
 * the default chain resolved (build the redactor after the request that failed: it then knows what it was sent with).
 */
export const credentialRedactor = (credentials: DestinationCredentials | null): SecretRedactor =>
  new SecretRedactor(
    credentials
      ? [credentials.secret_access_key, credentials.session_token]
      : [process.env.AWS_SECRET_ACCESS_KEY, process.env.AWS_SESSION_TOKEN, ...hostSecrets],
  );

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
