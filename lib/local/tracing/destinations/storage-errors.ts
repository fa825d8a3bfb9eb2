/**
 * What went wrong when talking to a destination bucket, in the platform's terms. Destination validation turns the
 * kinds into the four documented messages; the export worker uses them to decide whether a failure is retried
 * (storage and destination errors are not: they need the user to fix the destination).
 */
import type { SecretRedactor } from '../../../api/redact';
import { DESTINATION_ERRORS, type DestinationErrorMessage } from '../../../api/schemas/bulk-export';

/** Kinds of destination failures. */
export type StorageFailureKind =
  /** The credentials may not do this (no permission, wrong secret, expired token). */
  | 'access_denied'
  /** The bucket does not exist, has an invalid name, or lives elsewhere. */
  | 'bucket_not_valid'
  /** The access key id is unknown to the store. */
  | 'unknown_key_id'
  /** Nothing answered (connection refused, unknown host, timeout), or not over TLS as `https:` asks. */
  | 'unreachable'
  /** Something answered, but not an S3-compatible API. */
  | 'not_s3'
  /** The store had a passing problem (5xx, throttling). */
  | 'transient'
  /**
   * S3 answered that the request itself is invalid, by one of the codes that say so (`KeyTooLongError`,
   * `InvalidArgument`, a bucket whose object lock asks for checksums): sent again, it fails again. Other 400s (a body
   * cut short, a digest that did not match) may pass when sent again, and are `other`.
   */
  | 'refused'
  /** Anything else. */
  | 'other';

/** A classified destination failure. */
export interface StorageFailure {
  /** What kind of failure it is. */
  readonly kind: StorageFailureKind;
  /**
   * A one-line description (error code and message, at most {@link MAX_DESCRIBED_MESSAGE_CHARS} of it), redacted by
   * the redactor given to {@link classifyStorageError} before it is cut.
   */
  readonly description: string;
  /** The HTTP status S3 answered with, for a failure of no kind above (`other`). */
  readonly status?: number;
}

const CODE_KINDS: Readonly<Record<string, StorageFailureKind>> = {
  AccessDenied: 'access_denied',
  AllAccessDisabled: 'access_denied',
  AccountProblem: 'access_denied',
  // a wrong secret: the key exists, but the caller cannot prove it holds it
  SignatureDoesNotMatch: 'access_denied',
  InvalidToken: 'access_denied',
  ExpiredToken: 'access_denied',
  TokenRefreshRequired: 'access_denied',
  CredentialsProviderError: 'access_denied',
  InvalidAccessKeyId: 'unknown_key_id',
  NoSuchBucket: 'bucket_not_valid',
  InvalidBucketName: 'bucket_not_valid',
  PermanentRedirect: 'bucket_not_valid',
  AuthorizationHeaderMalformed: 'bucket_not_valid',
  IllegalLocationConstraintException: 'bucket_not_valid',
  // requests that cannot succeed as sent, whoever answers them
  InvalidArgument: 'refused',
  InvalidRequest: 'refused',
  KeyTooLongError: 'refused',
  EntityTooLarge: 'refused',
  EntityTooSmall: 'refused',
  MalformedXML: 'refused',
  InvalidDigest: 'refused',
  MissingContentLength: 'refused',
  MethodNotAllowed: 'refused',
  // parts the store no longer has for the upload: writing the file again uploads them again
  InvalidPart: 'transient',
  InvalidPartOrder: 'transient',
  // a body that arrived damaged or cut short: sent again, it passes
  IncompleteBody: 'transient',
  BadDigest: 'transient',
  XAmzContentSHA256Mismatch: 'transient',
  InternalError: 'transient',
  // a multipart upload the store no longer knows, for example when the SDK retried a CompleteMultipartUpload whose
  // first answer was lost: writing the file again replaces it
  NoSuchUpload: 'transient',
  ServiceUnavailable: 'transient',
  SlowDown: 'transient',
  RequestTimeout: 'transient',
  RequestTimeTooSkewed: 'transient',
};

/**
 * A gateway in front of the store that could not reach it, or that limits the rate of requests, answers without
 * S3's request id: a passing problem.
 */
const GATEWAY_STATUSES = new Set([429, 502, 503, 504]);

/** Statuses of S3 that say a request cannot succeed as sent, whatever its code (a 400 of no known code may pass). */
const REFUSED_STATUSES = new Set([405, 411, 413, 414]);


const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ERR_INVALID_URL',
]);
/**
 * TLS failures: an `https:` endpoint that speaks plain HTTP (`EPROTO`, `ERR_SSL_…`: wrong version number), or a
 * certificate the platform does not trust. Nothing S3 answered, as with the network codes.
 */
const TLS_CODES = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
const isTlsCode = (code: string): boolean => TLS_CODES.has(code) || code.startsWith('ERR_SSL_');
const NETWORK_CODE_IN_TEXT = new RegExp(`\\b(${[...NETWORK_CODES, ...TLS_CODES].join('|')}|ERR_SSL_[A-Z_]+)\\b`);
/** The SDK's refusal of a region that cannot be part of a host name ("eu-west-1 ", "my_region"): no request went out. */
const REGION_NOT_ACCEPTED = /^Region not accepted\b/;
const NETWORK_ERROR_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'AbortError']);

interface SdkErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string };
  $response?: { headers?: Record<string, string | undefined> };
}

/** Characters of the store's message kept in a failure's description. */
export const MAX_DESCRIBED_MESSAGE_CHARS = 300;

/**
 * Classifies an error thrown by the S3 client. `redactor`: the secrets the store may write back in its message (the
 * destination's credentials), redacted before the message is cut short, so that no piece of one is left that the
 * redactor could no longer tell from other text.
 */
export function classifyStorageError(err: unknown, redactor?: SecretRedactor): StorageFailure {
  const e = (err ?? {}) as SdkErrorShape;
  const status = e.$metadata?.httpStatusCode;
  const code = e.name && e.name !== 'Error' && e.name !== 'Unknown' ? e.name : e.code;
  const line = String(e.message ?? err).split('\n')[0];
  const message = redactor ? redactor.redactAndCut(line, MAX_DESCRIBED_MESSAGE_CHARS) : line.slice(0, MAX_DESCRIBED_MESSAGE_CHARS);
  const description = `${code ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${message}`;
  const known = code ? CODE_KINDS[code] : undefined;
  if (known) return { kind: known, description };
  if (status === undefined && REGION_NOT_ACCEPTED.test(String(e.message ?? ''))) return { kind: 'bucket_not_valid', description };
  if (status === undefined) {
    // the SDK wraps errors it does not recognise as Errors (another realm's) into a message that keeps only the text
    const codeInMessage = NETWORK_CODE_IN_TEXT.exec(String(e.message ?? ''))?.[1];
    const network =
      (e.code && (NETWORK_CODES.has(e.code) || isTlsCode(e.code))) ||
      (e.name && NETWORK_ERROR_NAMES.has(e.name)) ||
      codeInMessage !== undefined;
    return { kind: network ? 'unreachable' : 'other', description };
  }
  const answeredByS3 = Boolean(e.$metadata?.requestId ?? e.$response?.headers?.['x-amz-request-id']);
  if (!answeredByS3) return { kind: GATEWAY_STATUSES.has(status) ? 'transient' : 'not_s3', description };
  if (status >= 500) return { kind: 'transient', description };
  if (status === 403) return { kind: 'access_denied', description };
  if (status === 404) return { kind: 'bucket_not_valid', description };
  if (REFUSED_STATUSES.has(status)) return { kind: 'refused', description };
  return { kind: 'other', description, status };
}

/** The documented destination error for a failure kind, or undefined when none of the four applies. */
export function destinationErrorOf(kind: StorageFailureKind): DestinationErrorMessage | undefined {
  switch (kind) {
    case 'access_denied':
      return DESTINATION_ERRORS.accessDenied;
    case 'bucket_not_valid':
      return DESTINATION_ERRORS.bucketNotValid;
    case 'unknown_key_id':
      return DESTINATION_ERRORS.unknownKeyId;
    case 'unreachable':
    case 'not_s3':
      return DESTINATION_ERRORS.invalidEndpoint;
    default:
      return undefined;
  }
}

/** Failures an export run must not retry: the destination itself is wrong and must be fixed by the user. */
export const isPermanentStorageFailure = (kind: StorageFailureKind): boolean =>
  kind === 'access_denied' || kind === 'bucket_not_valid' || kind === 'unknown_key_id' || kind === 'not_s3' || kind === 'refused';
