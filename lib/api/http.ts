/**
 * The one HTTP transport under every API client: undici with a keep-alive pool, auth headers, a per-request
 * timeout combined with the caller's AbortSignal, bounded retries (see `retry.ts` for which failures and methods),
 * zod-parsed responses and typed errors that never carry a secret.
 *
 * JSON requests go through `dispatcher.dispatch` with a handler that buffers the body (`buffered-response.ts`);
 * only streams pay for undici's `request` and its response stream.
 */
import { Agent, type Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import {
  AbortError,
  ApiError,
  NotFoundError,
  NetworkError,
  ResponseParseError,
  TimeoutError,
  errorFromResponse,
  type ApiErrorInit,
} from './errors';
import { BufferingResponseHandler, type BufferedResponse } from './buffered-response';
import { Deadline } from './deadline';
import { SecretRedactor } from './redact';
import {
  DEFAULT_RETRY_POLICY,
  isRetryable,
  parseRetryAfter,
  retryDelayMs,
  sleep as abortableSleep,
  type HttpMethod,
  type RetryPolicy,
} from './retry';

export type { HttpMethod, RetryPolicy } from './retry';

import type { ApiAuth, IncomingHttpHeaders, QueryValue, RequestOptions, StreamOptions, StreamResponse, TransportOptions } from './http-options';

export type { ApiAuth, IncomingHttpHeaders, QueryValue, RequestOptions, StreamOptions, StreamResponse, TransportOptions } from './http-options';

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

const DEFAULT_USER_AGENT = 'agentplatform-client';
/** Characters of a 2xx body that is not JSON quoted in its error. */
const NON_JSON_QUOTED_CHARS = 100;
const KEEP_ALIVE_TIMEOUT_MS = 10_000;

/** The method and full URL of a request, the identity every error carries. */
interface Target {
  readonly method: HttpMethod;
  readonly url: string;
  readonly pathWithQuery: string;
}

/** What the typed errors need of a response: its status and headers. */
type ResponseHead = Pick<BufferedResponse, 'statusCode' | 'headers'>;

/** Sends JSON requests to one base URL with auth, timeouts, retries and typed errors. */
export class HttpTransport {
  /** The base URL every path is appended to. */
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly auth: ApiAuth;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly userAgent: string;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly redactor: SecretRedactor;
  /** The server's clock minus this machine's, from the `Date` header of the last answer. */
  private serverClockOffsetMs: number | undefined;
  /** Headers of every JSON request without and with a body; the same for every request, so built once. */
  private readonly jsonHeaders: Readonly<Record<string, string>>;
  private readonly jsonBodyHeaders: Readonly<Record<string, string>>;
  private closed = false;

  constructor(opts: TransportOptions) {
    const base = new URL(opts.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.baseUrl = `${this.origin}${this.basePath}`;
    this.auth = opts.auth;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(opts.retry ?? {}) };
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher = opts.dispatcher ?? new Agent({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS });
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.sleep = opts.sleep ?? abortableSleep;
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    this.redactor = new SecretRedactor([opts.auth.kind === 'api-key' ? opts.auth.apiKey : opts.auth.token]);
    this.jsonHeaders = this.headers(false, { accept: 'application/json' });
    this.jsonBodyHeaders = this.headers(true, { accept: 'application/json' });
  }

  /** Registers a value (e.g. a deployment secret about to be sent) that must never appear in an error message. */
  registerSecret(secret: string): void {
    this.redactor.add(secret);
  }

  /** The secrets of this transport (its key or token, and registered ones), for errors built outside it. */
  get secretRedactor(): SecretRedactor {
    return this.redactor;
  }

  /**
   * The server's time now, epoch milliseconds, as the `Date` header of its last answer showed it (to the second),
   * advanced by this machine's clock since; undefined before any answer with one.
   */
  serverNow(): number | undefined {
    return this.serverClockOffsetMs === undefined ? undefined : Date.now() + this.serverClockOffsetMs;
  }

  private noteServerDate(headers: IncomingHttpHeaders): void {
    const date = headers.date;
    const at = typeof date === 'string' ? Date.parse(date) : Number.NaN;
    if (!Number.isNaN(at)) this.serverClockOffsetMs = at - Date.now();
  }

  /** `text` with every registered secret replaced, for callers that log or quote server output. */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /**
   * Sends a JSON request, retrying transient failures, and returns the parsed body (void without a schema). A DELETE
   * retried after an attempt that may have reached the server (a timeout, a lost connection, a 5xx) and now answered
   * 404 did what was asked: the first attempt deleted it.
   */
  async request<T>(opts: RequestOptions<T>): Promise<T> {
    const target = this.target(opts.method, opts.path, opts.query);
    for (let retry = 0; ; retry++) {
      try {
        return await this.attempt(opts, target);
      } catch (err) {
        if (retry > 0 && opts.method === 'DELETE' && opts.schema === undefined && err instanceof NotFoundError) return undefined as T;
        if (retry >= this.policy.maxRetries || !isRetryable(err, opts.method, opts.retry)) throw err;
        const delay = retryDelayMs(err, retry, this.policy, this.random);
        try {
          await this.sleep(delay, opts.signal);
        } catch (sleepErr) {
          throw new AbortError(this.errorInit(target, { cause: opts.signal?.reason ?? sleepErr }));
        }
      }
    }
  }

  /**
   * Sends one request (never retried) and hands over the body of its 2xx response as a stream. A non-2xx
   * response becomes the same typed error as in {@link request}; the timeout covers the wait for the headers.
   */
  async stream(opts: StreamOptions): Promise<StreamResponse> {
    const target = this.target(opts.method, opts.path, opts.query);
    this.throwIfAborted(opts.signal, target);
    const controller = new AbortController();
    const deadline = new Deadline(opts.signal, opts.timeoutMs ?? this.timeoutMs, (reason) => controller.abort(reason));
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: target.pathWithQuery,
        method: target.method,
        headers: this.headers(opts.body !== undefined, { accept: 'text/event-stream', ...opts.headers }),
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: controller.signal,
        // a stream may stay silent for as long as the run it follows (a long step, a run queued behind another)
        bodyTimeout: 0,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw this.errorFromResponse(target, response, await response.body.text());
      }
      deadline.stopTimer();
      response.body.once('close', () => deadline.dispose());
      return {
        status: response.statusCode,
        headers: response.headers,
        requestId: requestIdOf(response.headers),
        body: response.body,
      };
    } catch (err) {
      deadline.dispose();
      throw this.toApiError(err, target, deadline);
    }
  }

  /** Closes the keep-alive pool when the transport owns it (an injected dispatcher is left to its owner). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async attempt<T>(opts: RequestOptions<T>, target: Target): Promise<T> {
    this.throwIfAborted(opts.signal, target);
    const handler = new BufferingResponseHandler();
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const deadline = new Deadline(opts.signal, timeoutMs, (reason) => handler.abort(reason));
    try {
      this.dispatcher.dispatch(
        {
          origin: this.origin,
          path: target.pathWithQuery,
          method: target.method,
          headers: this.requestHeaders(opts),
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          // without a time limit, neither the connection pool's wait for the headers nor its pause in the body bounds it
          ...(Number.isFinite(timeoutMs) ? {} : { headersTimeout: 0, bodyTimeout: 0 }),
        },
        handler,
      );
      const response = await handler.response;
      this.noteServerDate(response.headers);
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw this.errorFromResponse(target, response, response.text);
      }
      return opts.schema ? this.parseBody(opts.schema, target, response, response.text) : (undefined as T);
    } catch (err) {
      throw this.toApiError(err, target, deadline, handler.sent);
    } finally {
      deadline.dispose();
    }
  }

  /** The headers of a JSON request: the shared ones, with its `Idempotency-Key` when it has one. */
  private requestHeaders(opts: RequestOptions<unknown>): Readonly<Record<string, string>> {
    const headers = opts.body === undefined ? this.jsonHeaders : this.jsonBodyHeaders;
    return opts.idempotencyKey === undefined ? headers : { ...headers, 'idempotency-key': opts.idempotencyKey };
  }

  /** A signal that is already aborted sends nothing at all. */
  private throwIfAborted(signal: AbortSignal | undefined, target: Target): void {
    if (signal?.aborted) throw new AbortError({ ...this.errorInit(target, { cause: signal.reason }), sent: false });
  }

  /** Request headers: the user agent, `extraHeaders`, the JSON content type when there is a body, then auth. */
  private headers(hasBody: boolean, extraHeaders: Readonly<Record<string, string>>): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent };
    for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
    if (hasBody) headers['content-type'] = 'application/json';
    return Object.assign(headers, this.authHeaders());
  }

  private authHeaders(): Record<string, string> {
    const headers: Record<string, string> =
      this.auth.kind === 'api-key'
        ? { [(this.auth.header ?? 'X-Api-Key').toLowerCase()]: this.auth.apiKey }
        : { authorization: `Bearer ${this.auth.token}` };
    if (this.auth.tenantId) headers['x-tenant-id'] = this.auth.tenantId;
    return headers;
  }

  private parseBody<T>(schema: ZodType<T>, target: Target, response: ResponseHead, text: string): T {
    // Built only on failure: a successful parse, the common case, allocates nothing more.
    const init = () => this.errorInit(target, { status: response.statusCode, requestId: requestIdOf(response.headers) });
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch (cause) {
      throw new ResponseParseError(`${response.statusCode}: response is not valid JSON: ${this.describeNonJson(response, text)}`, {
        ...init(),
        body: text,
        cause,
        issuePath: '',
      });
    }
    const result = schema.safeParse(json);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const issuePath = issue?.path.map(String).join('.') ?? '';
    throw new ResponseParseError(
      `${response.statusCode}: response does not match the expected schema at ${issuePath || '(root)'}: ${issue?.message}`,
      { ...init(), body: json, cause: result.error, issuePath },
    );
  }

  /**
   * The content type and first characters of a body that should have been JSON: a proxy's login or error page, say,
   * shows itself. Redacted before it is cut, so that no piece of a secret too short to be recognised is left.
   */
  private describeNonJson(response: ResponseHead, text: string): string {
    const type = response.headers['content-type'];
    const quoted = this.redactor.redact(text.trim()).replace(/\s+/g, ' ');
    const start = quoted.length > NON_JSON_QUOTED_CHARS ? `${quoted.slice(0, NON_JSON_QUOTED_CHARS)}…` : quoted;
    // JSON cut short is the API's own answer, broken on the way; anything else came from something else
    const answered = String(type).includes('json') ? '' : ' (another server, such as a proxy, may have answered)';
    return `content-type ${type ? JSON.stringify(String(type)) : 'not given'}, body ${JSON.stringify(start)}${answered}`;
  }

  private errorFromResponse(target: Target, response: ResponseHead, text: string): ApiError {
    return errorFromResponse({
      ...this.errorInit(target, { requestId: requestIdOf(response.headers) }),
      status: response.statusCode,
      body: parseJsonOrText(text),
      retryAfterMs: parseRetryAfter(response.headers['retry-after'], this.now()),
    });
  }

  /**
   * Turns whatever a send threw into a typed error: caller abort, timeout, or network failure. `sent`: whether the
   * request was handed to a connection (a stream cannot tell, and counts as sent).
   */
  private toApiError(err: unknown, target: Target, deadline: Deadline, sent = true): ApiError {
    if (err instanceof ApiError) return err;
    if (deadline.callerAborted) return new AbortError({ ...this.errorInit(target, { cause: deadline.callerReason }), sent });
    if (deadline.timedOut) return new TimeoutError({ ...this.errorInit(target, { cause: err }), timeoutMs: deadline.timeoutMs, sent });
    const code = (err as { code?: unknown } | null)?.code;
    const message = err instanceof Error ? err.message : String(err);
    return new NetworkError(`network error: ${message}${typeof code === 'string' ? ` (${code})` : ''}`, {
      ...this.errorInit(target, { cause: err }),
      code: typeof code === 'string' ? code : undefined,
    });
  }

  private errorInit(target: Target, extra: Partial<ApiErrorInit>): ApiErrorInit {
    return { method: target.method, url: target.url, redactor: this.redactor, ...extra };
  }

  private target(method: HttpMethod, path: string, query: Record<string, QueryValue> | undefined): Target {
    if (!path.startsWith('/')) throw new TypeError(`request path must start with "/": ${path}`);
    const search = serializeQuery(query);
    const pathWithQuery = `${this.basePath}${path}${search ? `?${search}` : ''}`;
    return { method, url: `${this.origin}${pathWithQuery}`, pathWithQuery };
  }
}

/**
 * The query string (without `?`) of `query`: `undefined` and `null` dropped, arrays joined by commas (each element
 * encoded, the commas kept literal), booleans as `true`/`false`.
 */
export function serializeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const encoded = Array.isArray(value)
      ? value.map((item) => encodeURIComponent(String(item))).join(',')
      : encodeURIComponent(String(value));
    parts.push(`${encodeURIComponent(name)}=${encoded}`);
  }
  return parts.join('&');
}

function requestIdOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['x-request-id'];
  return Array.isArray(value) ? value[0] : value;
}

function parseJsonOrText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
