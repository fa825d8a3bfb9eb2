/** The options and results of `HttpTransport`: how it authenticates, and what a request or a stream takes. */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import type { HttpMethod, RetryPolicy } from './retry';

/** Response headers as undici gives them: names in lower case. */
export type IncomingHttpHeaders = Dispatcher.ResponseData['headers'];

/** How requests authenticate. The key or token is registered as a secret and redacted from every error. */
export type ApiAuth =
  | {
      readonly kind: 'api-key';
      /** The API key. */
      readonly apiKey: string;
      /** Workspace to act in, sent as `X-Tenant-Id`. @default the key's default workspace */
      readonly tenantId?: string;
      /** Header that carries the key (names are case-insensitive). @default 'X-Api-Key' */
      readonly header?: string;
    }
  | {
      readonly kind: 'bearer';
      /** The token, sent as `Authorization: Bearer <token>`. */
      readonly token: string;
      /** Workspace to act in, sent as `X-Tenant-Id`. @default the token's default workspace */
      readonly tenantId?: string;
    };

/** Settings of one `HttpTransport`. */
export interface TransportOptions {
  /** Base URL, e.g. `http://127.0.0.1:8123`; request paths are appended to it (a path prefix is kept). */
  readonly baseUrl: string;
  /** How requests authenticate. */
  readonly auth: ApiAuth;
  /** Time allowed for each attempt (connect, headers and body), in milliseconds. @default 30000 */
  readonly timeoutMs?: number;
  /** Retry bounds. @default {maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8000} */
  readonly retry?: Partial<RetryPolicy>;
  /** The undici dispatcher to send through (a MockAgent in unit tests); the caller closes it. @default a keep-alive Agent owned and closed by the transport */
  readonly dispatcher?: Dispatcher;
  /** `User-Agent` header. @default 'agentplatform-client' */
  readonly userAgent?: string;
  /** Waits between retries; must reject when the signal aborts. @default a timer */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of backoff jitter in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Clock used to turn a `Retry-After` date into a delay. @default Date.now */
  readonly now?: () => number;
}

/** A query value: `undefined`/`null` are dropped, arrays are joined by commas. */
export type QueryValue = string | number | boolean | readonly (string | number)[] | null | undefined;

/** One JSON request. */
export interface RequestOptions<T> {
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Path appended to the base URL, e.g. `/v2/deployments/<id>`; path parameters already encoded. */
  readonly path: string;
  /** Query parameters. @default none */
  readonly query?: Record<string, QueryValue>;
  /** JSON body. @default none */
  readonly body?: unknown;
  /** Schema of the 2xx response body; without it the body is discarded and the result is void. @default none */
  readonly schema?: ZodType<T>;
  /** Cancels the request, and any wait between retries, with an {@link AbortError}. @default none */
  readonly signal?: AbortSignal;
  /**
   * Time allowed for each attempt, in milliseconds; `Infinity`: as long as the server takes to answer (a request that
   * waits for something, such as a run to end), ended only by `signal`. @default the transport's timeoutMs
   */
  readonly timeoutMs?: number;
  /** `true`: the request is idempotent, retry every transient failure; `false`: never retry. @default by method (see retry.ts) */
  readonly retry?: boolean;
  /**
   * Sent as `Idempotency-Key`: a server that honours it answers a repeated key with what the first request made
   * instead of acting again (a server may ignore it: it does not make a POST safe to retry here). @default none
   */
  readonly idempotencyKey?: string;
}

/** A request whose response body is handed over as a stream (Server-Sent Events). */
export interface StreamOptions {
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Path appended to the base URL. */
  readonly path: string;
  /** Query parameters. @default none */
  readonly query?: Record<string, QueryValue>;
  /** JSON body. @default none */
  readonly body?: unknown;
  /** Cancels the request and closes the stream. @default none */
  readonly signal?: AbortSignal;
  /** Time allowed until the response headers arrive; the body then streams for as long as it lasts. @default the transport's timeoutMs */
  readonly timeoutMs?: number;
  /** Extra request headers (they cannot replace the auth headers). @default `accept: text/event-stream` */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A 2xx response whose body is still streaming. The consumer must read it to the end or destroy it. */
export interface StreamResponse {
  /** HTTP status (2xx). */
  readonly status: number;
  /** Response headers, names in lower case. */
  readonly headers: IncomingHttpHeaders;
  /** The `x-request-id` response header. */
  readonly requestId?: string;
  /** The body; destroying it closes the connection. */
  readonly body: Readable & AsyncIterable<Uint8Array>;
}

