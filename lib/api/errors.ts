/**
 * Typed errors of every API client: one class per status family, each carrying the method, URL, status and request
 * id, so callers branch on `instanceof` and users read one line that says what failed where.
 *
 * Messages look like `GET http://host/v2/deployments/<id>: 404 Not Found: Deployment <id> not found (request id
 * abc)`. Request headers never go into an error; every message and body passes through the transport's
 * {@link SecretRedactor}, so a key echoed by a server does not leak either.
 */
import { STATUS_CODES } from 'node:http';
import { HTTPValidationError, type ValidationErrorItem } from './schemas/control-plane';
import type { SecretRedactor } from './redact';

/** Longest piece of a non-JSON error body quoted in a message. */
const MAX_QUOTED_BODY_CHARS = 500;

/** What every {@link ApiError} is built from. */
export interface ApiErrorInit {
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Full URL of the failed request (we never put secrets in URLs; it is redacted anyway). */
  readonly url: string;
  /** HTTP status of the response, when one arrived. */
  readonly status?: number;
  /** The `x-request-id` response header, when one arrived. */
  readonly requestId?: string;
  /** The response body: parsed JSON when it was JSON, else its text. */
  readonly body?: unknown;
  /** `Retry-After` of the response in milliseconds, when present and valid. */
  readonly retryAfterMs?: number;
  /** The underlying error (network failure, abort reason, schema issue). */
  readonly cause?: unknown;
  /** Scrubs secrets out of the message and the body. */
  readonly redactor?: SecretRedactor;
}

/** Base class of every error raised by an API call. */
export class ApiError extends Error {
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Full URL of the failed request. */
  readonly url: string;
  /** HTTP status of the response; undefined when no response arrived (network, timeout, abort). */
  readonly status?: number;
  /** The `x-request-id` response header, to quote when reporting a problem to the platform. */
  readonly requestId?: string;
  /** The response body (redacted): parsed JSON when it was JSON, else its text. */
  readonly body?: unknown;
  /** How long the server asked us to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;

  /** @param reason what went wrong; the method, URL and request id are added around it */
  constructor(reason: string, init: ApiErrorInit) {
    const requestIdSuffix = init.requestId ? ` (request id ${init.requestId})` : '';
    const message = `${init.method} ${init.url}: ${reason}${requestIdSuffix}`;
    super(init.redactor ? init.redactor.redact(message) : message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.method = init.method;
    this.url = init.redactor ? init.redactor.redact(init.url) : init.url;
    this.status = init.status;
    this.requestId = init.requestId;
    this.body = init.redactor ? init.redactor.redactValue(init.body) : init.body;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400: the request was refused as malformed. */
export class BadRequestError extends ApiError {}
/** 401: no API key, or one the platform does not know. */
export class UnauthorizedError extends ApiError {}
/** 403: the key may not act on this workspace or resource. */
export class ForbiddenError extends ApiError {}
/** 404: the resource does not exist (or is not visible to this workspace). */
export class NotFoundError extends ApiError {}
/** 409: the request conflicts with the current state (for example a name already taken). */
export class ConflictError extends ApiError {}
/** 429: rate limited; {@link ApiError.retryAfterMs} says how long the server asked to wait. */
export class RateLimitedError extends ApiError {}
/** Any 5xx. */
export class ServerError extends ApiError {}

/** 422: the request failed the server's validation; `items` are the HTTPValidationError entries. */
export class ValidationError extends ApiError {
  /** The validation failures, each naming its location (`loc`), e.g. `["query", "limit"]`. */
  readonly items: ValidationErrorItem[];

  constructor(reason: string, init: ApiErrorInit) {
    super(reason, init);
    const parsed = HTTPValidationError.safeParse(this.body);
    this.items = parsed.success ? parsed.data.detail : [];
  }
}

/** The connection failed or broke (refused, reset, DNS) before a complete response arrived. */
export class NetworkError extends ApiError {
  /** The system or undici error code of the cause, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  readonly code?: string;

  constructor(reason: string, init: ApiErrorInit & { readonly code?: string }) {
    super(reason, init);
    this.code = init.code;
  }
}

/**
 * No complete response within the per-request timeout. `sent` tells whether the request may have reached the server:
 * false when the time ran out while it still waited for a connection (a host that does not answer the connection,
 * every pooled connection busy), so nothing of it left this process.
 */
export class TimeoutError extends ApiError {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;
  /** Whether the request was handed to a connection (and may have reached the server) before the time ran out. */
  readonly sent: boolean;

  constructor(init: ApiErrorInit & { readonly timeoutMs: number; readonly sent?: boolean }) {
    super(init.sent === false ? `timed out after ${init.timeoutMs} ms, still waiting for a connection` : `timed out after ${init.timeoutMs} ms`, init);
    this.timeoutMs = init.timeoutMs;
    this.sent = init.sent ?? true;
  }
}

/**
 * The caller's AbortSignal fired; the reason is the `cause`. Never retried. `sent` as for {@link TimeoutError}: false
 * when the request was not sent yet (or the signal had fired before the call).
 */
export class AbortError extends ApiError {
  /** Whether the request was handed to a connection (and may have reached the server) before the abort. */
  readonly sent: boolean;

  constructor(init: ApiErrorInit & { readonly sent?: boolean }) {
    super('request aborted by the caller', init);
    this.sent = init.sent ?? true;
  }
}

/** A successful response whose body is not valid JSON or does not match the expected schema. */
export class ResponseParseError extends ApiError {
  /** Dotted path of the first failing field (empty for the root or for invalid JSON). */
  readonly issuePath: string;

  constructor(reason: string, init: ApiErrorInit & { readonly issuePath: string }) {
    super(reason, init);
    this.issuePath = init.issuePath;
  }
}

/** A client method refused its arguments before sending anything. */
export class InvalidArgumentError extends Error {
  /** Name of the offending argument, e.g. `deploymentId` or `limit`. */
  readonly argument: string;

  constructor(argument: string, message: string) {
    super(`${argument}: ${message}`);
    this.name = 'InvalidArgumentError';
    this.argument = argument;
  }
}

/** Errors worth retrying: network failures, timeouts, 408, 429 and 5xx. */
export function isTransient(err: unknown): boolean {
  if (err instanceof NetworkError || err instanceof TimeoutError) return true;
  if (!(err instanceof ApiError) || err instanceof ResponseParseError || err.status === undefined) return false;
  return err.status === 408 || err.status === 429 || err.status >= 500;
}

/** The typed error for a non-2xx response. `init.body` is the parsed JSON body or the raw text. */
export function errorFromResponse(init: ApiErrorInit & { readonly status: number }): ApiError {
  const { status } = init;
  const statusLine = `${status} ${STATUS_CODES[status] ?? 'Unknown Status'}`;
  const detail = describeErrorBody(init.redactor ? init.redactor.redactValue(init.body) : init.body);
  const reason = detail ? `${statusLine}: ${detail}` : statusLine;
  switch (status) {
    case 400:
      return new BadRequestError(reason, init);
    case 401:
      return new UnauthorizedError(reason, init);
    case 403:
      return new ForbiddenError(reason, init);
    case 404:
      return new NotFoundError(reason, init);
    case 409:
      return new ConflictError(reason, init);
    case 422:
      return new ValidationError(reason, init);
    case 429:
      return new RateLimitedError(reason, init);
    default:
      return status >= 500 ? new ServerError(reason, init) : new ApiError(reason, init);
  }
}

/** One line out of an error body: `{detail: string}`, HTTPValidationError items, `{message}` or plain text. */
function describeErrorBody(body: unknown): string {
  if (body === undefined || body === null || body === '') return '';
  if (typeof body === 'string') return truncate(body.trim());
  if (typeof body === 'object') {
    const { detail, message } = body as { detail?: unknown; message?: unknown };
    if (typeof detail === 'string') return detail;
    const validation = HTTPValidationError.safeParse(body);
    if (validation.success) return validation.data.detail.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ');
    if (typeof message === 'string') return message;
  }
  return truncate(JSON.stringify(body));
}

function truncate(text: string): string {
  return text.length > MAX_QUOTED_BODY_CHARS ? `${text.slice(0, MAX_QUOTED_BODY_CHARS)}…` : text;
}
