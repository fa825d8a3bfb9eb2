/**
 * When and how long the transport waits before trying a request again.
 *
 * Which failures are retried depends on whether repeating the request is safe:
 * - GET, PUT and DELETE (idempotent): every transient failure — network errors, timeouts, 408, 429 and 5xx.
 * - POST and PATCH: only when the server cannot have acted on the request — 429 and 503 (refused, not processed),
 *   connection errors raised before the request was sent (refused, DNS, connect timeout), and a timeout that ran out
 *   while the request still waited for a connection. A reset connection,
 *   a timeout or a 500 after a POST may hide a success, so it is reported, never repeated.
 * A request may override this with `retry: true` (the caller knows it is idempotent: full policy) or `retry: false`.
 */
import { AbortError, ApiError, NetworkError, ResponseParseError, TimeoutError, isTransient } from './errors';

/** Bounds of the retry loop. */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most `maxRetries + 1` requests). @default 3 */
  maxRetries: number;
  /** Backoff cap of the first retry; doubled on each further retry. @default 500 */
  baseDelayMs: number;
  /** Largest computed backoff. @default 8000 */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8000 };

/** A server's `Retry-After` is obeyed up to this many milliseconds; a longer request is shortened to it. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** HTTP methods the transport speaks. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

/** Error codes raised before any byte of the request left this process. */
const CONNECT_PHASE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether `err` may be retried for a request with this method. `override` is the request's `retry` option.
 */
export function isRetryable(err: unknown, method: HttpMethod, override: boolean | undefined): boolean {
  if (override === false || !isTransient(err) || failedHandshake(err)) return false;
  if (override === true || IDEMPOTENT_METHODS.has(method)) return true;
  if (err instanceof NetworkError) return failedBeforeSending(err);
  if (err instanceof TimeoutError) return !err.sent;
  return err instanceof ApiError && (err.status === 429 || err.status === 503);
}

/**
 * Whether the server may have carried out a POST or PATCH that failed with `err`, so that the caller must find out
 * before it sends another: no answer came once the request was sent (a timeout or the caller's abort after it was
 * handed to a connection, a connection that broke once it was sent), a 5xx other than 503 (a 503 or a 429 says the request was refused unprocessed, and the transport
 * retries it), or a 2xx whose body could not be read ({@link ResponseParseError}: it certainly acted).
 */
export function mayHaveActed(err: unknown): boolean {
  if (err instanceof TimeoutError || err instanceof AbortError) return err.sent;
  if (err instanceof ResponseParseError) return true;
  if (err instanceof NetworkError) return !failedBeforeSending(err) && !failedHandshake(err);
  return err instanceof ApiError && err.status !== undefined && err.status >= 500 && err.status !== 503;
}

function failedBeforeSending(err: NetworkError): boolean {
  return err.code !== undefined && CONNECT_PHASE_CODES.has(err.code);
}

/**
 * Codes of a failed TLS handshake: OpenSSL's (`ERR_SSL_*`), Node's (`ERR_TLS_*`), and those of a certificate that
 * does not verify (an unknown or self-signed CA, an expired certificate, another host's name).
 */
const HANDSHAKE_CODES =
  /^ERR_(SSL|TLS)_|^EPROTO$|CERT|CRL|^UNABLE_TO_|^INVALID_(CA|PURPOSE)$|^HOSTNAME_MISMATCH$|^PATH_LENGTH_EXCEEDED$/;

/**
 * A TLS handshake or certificate failure (`https://` to a plain HTTP port, an untrusted certificate): nothing of the
 * request was sent, and it is not retried, whatever the method: trying again meets the same certificate.
 */
export function failedHandshake(err: unknown): boolean {
  return err instanceof NetworkError && err.code !== undefined && HANDSHAKE_CODES.test(err.code);
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first retry): the server's `Retry-After` when it
 * sent one (capped at {@link MAX_RETRY_AFTER_MS}), else exponential backoff with full jitter:
 * `random() * min(maxDelayMs, baseDelayMs * 2^retry)`.
 */
export function retryDelayMs(err: unknown, retry: number, policy: RetryPolicy, random: () => number): number {
  if (err instanceof ApiError && err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * A `Retry-After` header value in milliseconds: delta seconds (fractions accepted) or an HTTP date. Undefined when
 * absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
