import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { z } from 'zod';
import {
  AbortError, ApiError, BadRequestError, ConflictError, ForbiddenError, NetworkError, NotFoundError, RateLimitedError,
  ResponseParseError, ServerError, TimeoutError, UnauthorizedError, ValidationError, isTransient,
} from '../../lib/api/errors';
import { HttpTransport, serializeQuery, type TransportOptions } from '../../lib/api/http';
import { SecretRedactor } from '../../lib/api/redact';
import { MAX_RETRY_AFTER_MS, isRetryable, mayHaveActed, sleep } from '../../lib/api/retry';

const ORIGIN = 'http://api.test';
const API_KEY = 'sk-live-0123456789abcdef';
const ID = '2d3c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a';
const Item = z.object({ id: z.string() });

let agent: MockAgent;
let delays: number[];

function transport(overrides: Partial<TransportOptions> = {}): HttpTransport {
  return new HttpTransport({
    baseUrl: ORIGIN,
    auth: { kind: 'api-key', apiKey: API_KEY },
    dispatcher: agent,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
}

/** Answers `path` with each reply in turn (the last one forever) and counts the requests. */
function replies(path: string, ...sequence: [number, unknown, Record<string, string>?][]): { count: number } {
  const counter = { count: 0 };
  agent
    .get(ORIGIN)
    .intercept({ path: (p) => p.split('?')[0] === path, method: () => true })
    .reply(() => {
      const [statusCode, data, headers] = sequence[Math.min(counter.count++, sequence.length - 1)];
      return { statusCode, data: data as object, responseOptions: { headers } };
    })
    .persist();
  return counter;
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${inspect(err)}`);
  return err;
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  delays = [];
});

afterEach(async () => {
  await agent.close();
});

describe('typed errors', () => {
  it.each([
    [400, BadRequestError], [401, UnauthorizedError], [403, ForbiddenError], [404, NotFoundError], [409, ConflictError],
    [422, ValidationError], [429, RateLimitedError], [500, ServerError], [503, ServerError], [418, ApiError],
  ])('status %i becomes %p carrying method, url and status', async (status, errorClass) => {
    replies('/v2/things', [status, { detail: 'nope' }]);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/things', retry: false }));
    expect(err).toBeInstanceOf(errorClass);
    expect(err.constructor).toBe(errorClass);
    expect(err.name).toBe(errorClass.name);
    expect([err.method, err.url, err.status]).toEqual(['GET', `${ORIGIN}/v2/things`, status]);
  });

  it('says method, url, status, detail and request id in one line', async () => {
    replies(`/v2/deployments/${ID}`, [404, { detail: `Deployment ${ID} not found` }, { 'x-request-id': 'req-abc' }]);
    const err = await failure(transport().request({ method: 'GET', path: `/v2/deployments/${ID}` }));
    expect(err.message).toBe(`GET ${ORIGIN}/v2/deployments/${ID}: 404 Not Found: Deployment ${ID} not found (request id req-abc)`);
    expect(err.requestId).toBe('req-abc');
    expect(err.body).toEqual({ detail: `Deployment ${ID} not found` });
  });

  it('lists the validation items of a 422 with their locations', async () => {
    const detail = [
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' },
      { loc: ['body', 'secrets', 0, 'name'], msg: 'Field required', type: 'missing' },
    ];
    replies('/v2/deployments', [422, { detail }]);
    const err = await failure(transport().request({ method: 'POST', path: '/v2/deployments', body: {} }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).items).toEqual(detail);
    expect(err.message).toContain(
      '422 Unprocessable Entity: query.limit: Input should be less than or equal to 100; body.secrets.0.name: Field required',
    );
  });

  it('quotes a non-JSON error body as text', async () => {
    replies('/v2/things', [502, '<html>bad gateway</html>']);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/things', retry: false }));
    expect(err.message).toBe(`GET ${ORIGIN}/v2/things: 502 Bad Gateway: <html>bad gateway</html>`);
  });

  it('classifies transient errors', () => {
    const init = { method: 'GET', url: ORIGIN };
    expect(isTransient(new NetworkError('reset', init))).toBe(true);
    expect(isTransient(new TimeoutError({ ...init, timeoutMs: 1 }))).toBe(true);
    expect(isTransient(new ApiError('x', { ...init, status: 408 }))).toBe(true);
    expect(isTransient(new RateLimitedError('x', { ...init, status: 429 }))).toBe(true);
    expect(isTransient(new ServerError('x', { ...init, status: 504 }))).toBe(true);
    expect(isTransient(new NotFoundError('x', { ...init, status: 404 }))).toBe(false);
    expect(isTransient(new AbortError(init))).toBe(false);
    expect(isTransient(new Error('plain'))).toBe(false);
  });
});

describe('retries', () => {
  it('retries a 503 and returns the later success', async () => {
    const calls = replies('/v2/items/1', [503, { detail: 'busy' }], [503, { detail: 'busy' }], [200, { id: '1' }]);
    await expect(transport().request({ method: 'GET', path: '/v2/items/1', schema: Item })).resolves.toEqual({ id: '1' });
    expect(calls.count).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it.each([400, 404, 422, 409])('does not retry a %i', async (status) => {
    const calls = replies('/v2/items/1', [status, { detail: 'no' }], [200, { id: '1' }]);
    await expect(transport().request({ method: 'GET', path: '/v2/items/1', schema: Item })).rejects.toMatchObject({ status });
    expect(calls.count).toBe(1);
    expect(delays).toEqual([]);
  });

  it('a DELETE whose retry finds nothing to delete succeeded: the attempt that failed on the way back had deleted it', async () => {
    const calls = replies('/v2/items/1', [503, { detail: 'busy' }], [404, { detail: 'Not found' }]);
    await expect(transport().request({ method: 'DELETE', path: '/v2/items/1' })).resolves.toBeUndefined();
    expect(calls.count).toBe(2);
    // a 404 at the first attempt is one
    replies('/v2/items/2', [404, { detail: 'Not found' }]);
    expect(await failure(transport().request({ method: 'DELETE', path: '/v2/items/2' }))).toBeInstanceOf(NotFoundError);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    const calls = replies('/v2/items/1', [500, { detail: 'boom' }]);
    const err = await failure(transport({ retry: { maxRetries: 2 } }).request({ method: 'GET', path: '/v2/items/1' }));
    expect(err).toBeInstanceOf(ServerError);
    expect(calls.count).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it('backs off exponentially with full jitter, capped at maxDelayMs', async () => {
    replies('/v2/items/1', [503, {}]);
    await failure(transport({ retry: { maxRetries: 6, maxDelayMs: 3000 } }).request({ method: 'GET', path: '/v2/items/1' }));
    expect(delays).toEqual([250, 500, 1000, 1500, 1500, 1500]);

    delays = [];
    const jitter = [0.1, 0.9, 0.3];
    await failure(
      transport({ retry: { maxRetries: 3 }, random: () => jitter.shift() ?? 0 }).request({ method: 'GET', path: '/v2/items/1' }),
    );
    expect(delays).toEqual([50, 900, 600]);
  });

  it('honours Retry-After in seconds instead of the computed backoff', async () => {
    const calls = replies('/v2/items/1', [429, { detail: 'slow down' }, { 'retry-after': '7' }], [200, { id: '1' }]);
    await transport().request({ method: 'GET', path: '/v2/items/1', schema: Item });
    expect(calls.count).toBe(2);
    expect(delays).toEqual([7000]);
  });

  it('honours Retry-After as an HTTP date, and caps a long one', async () => {
    const now = Date.UTC(2030, 0, 2, 3, 4, 5);
    const retryAt = new Date(now + 12_000).toUTCString();
    replies('/v2/items/1', [503, {}, { 'retry-after': retryAt }], [503, {}, { 'retry-after': '3600' }], [200, { id: '1' }]);
    await transport({ now: () => now }).request({ method: 'GET', path: '/v2/items/1', schema: Item });
    expect(delays).toEqual([12_000, MAX_RETRY_AFTER_MS]);
  });

  it('keeps Retry-After on the RateLimitedError when retries run out', async () => {
    replies('/v2/items/1', [429, { detail: 'slow down' }, { 'retry-after': '2' }]);
    const err = await failure(transport({ retry: { maxRetries: 1 } }).request({ method: 'GET', path: '/v2/items/1' }));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterMs).toBe(2000);
  });

  it('retries network errors, then throws a NetworkError wrapping the cause', async () => {
    agent.get(ORIGIN).intercept({ path: '/v2/items/1' }).replyWithError(new Error('socket hang up')).persist();
    const err = await failure(transport({ retry: { maxRetries: 2 } }).request({ method: 'GET', path: '/v2/items/1' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(`GET ${ORIGIN}/v2/items/1: network error: socket hang up`);
    expect((err.cause as Error).message).toBe('socket hang up');
    expect(delays).toHaveLength(2);
  });

  it('retries a POST only when the server cannot have acted on it', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    agent.get(ORIGIN).intercept({ path: '/v2/refused', method: 'POST' }).replyWithError(refused);
    agent.get(ORIGIN).intercept({ path: '/v2/refused', method: 'POST' }).reply(201, { id: 'r' });
    await expect(transport().request({ method: 'POST', path: '/v2/refused', body: {}, schema: Item })).resolves.toEqual({ id: 'r' });

    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    agent.get(ORIGIN).intercept({ path: '/v2/reset', method: 'POST' }).replyWithError(reset).persist();
    const resetErr = await failure(transport().request({ method: 'POST', path: '/v2/reset', body: {} }));
    expect((resetErr as NetworkError).code).toBe('UND_ERR_SOCKET');

    const limited = replies('/v2/limited', [429, {}], [201, { id: 'l' }]);
    await transport().request({ method: 'POST', path: '/v2/limited', body: {}, schema: Item });
    const failed = replies('/v2/failed', [500, {}]);
    await failure(transport().request({ method: 'PATCH', path: '/v2/failed', body: {} }));
    const idempotent = replies('/v2/idempotent', [500, {}], [200, { id: 'i' }]);
    await transport().request({ method: 'POST', path: '/v2/idempotent', body: {}, retry: true });
    expect([limited.count, failed.count, idempotent.count]).toEqual([2, 1, 2]);
    expect(delays).toHaveLength(3);
  });
});

describe('whether a failed POST may have been carried out', () => {
  const init = { method: 'POST', url: ORIGIN };
  it.each([
    ['a timeout', new TimeoutError({ ...init, timeoutMs: 1 }), true],
    ['an abort', new AbortError(init), true],
    ['a connection reset once sent', new NetworkError('reset', { ...init, code: 'ECONNRESET' }), true],
    ['a socket closed once sent', new NetworkError('closed', { ...init, code: 'UND_ERR_SOCKET' }), true],
    ['a 500', new ServerError('x', { ...init, status: 500 }), true],
    ['a 502 of a gateway', new ServerError('x', { ...init, status: 502 }), true],
    ['a 2xx whose body could not be read', new ResponseParseError('x', { ...init, status: 201, issuePath: '' }), true],
    ['a refused connection', new NetworkError('refused', { ...init, code: 'ECONNREFUSED' }), false],
    ['a connect timeout', new NetworkError('connect', { ...init, code: 'UND_ERR_CONNECT_TIMEOUT' }), false],
    ['https to a plain HTTP port', new NetworkError('tls', { ...init, code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), false],
    ['an untrusted certificate', new NetworkError('tls', { ...init, code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), false],
    ['a certificate for another host', new NetworkError('tls', { ...init, code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), false],
    ['a certificate of an unknown CA sent alone', new NetworkError('tls', { ...init, code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), false],
    ['a 503', new ServerError('x', { ...init, status: 503 }), false],
    ['a 429', new RateLimitedError('x', { ...init, status: 429 }), false],
    ['a 409', new ConflictError('x', { ...init, status: 409 }), false],
    ['a plain error', new Error('plain'), false],
  ])('%s: %p', (_, err, acted) => {
    expect(mayHaveActed(err)).toBe(acted);
  });
});

test('a failed TLS handshake is retried for no method (the same certificate would meet the retry); a reset GET is', () => {
  const init = { method: 'GET', url: ORIGIN };
  for (const method of ['GET', 'POST'] as const) {
    expect(isRetryable(new NetworkError('tls', { ...init, code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), method, undefined)).toBe(false);
  }
  expect(isRetryable(new NetworkError('reset', { ...init, code: 'ECONNRESET' }), 'GET', undefined)).toBe(true);
});

describe('timeouts and cancellation', () => {
  it('turns a slow response into a TimeoutError, retried for a GET', async () => {
    agent.get(ORIGIN).intercept({ path: '/v2/slow' }).reply(200, { id: 'late' }).delay(2000).persist();
    const err = await failure(
      transport({ timeoutMs: 20, retry: { maxRetries: 1 } }).request({ method: 'GET', path: '/v2/slow', schema: Item }),
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).timeoutMs).toBe(20);
    expect(err.message).toBe(`GET ${ORIGIN}/v2/slow: timed out after 20 ms`);
    expect(delays).toHaveLength(1);
  });

  it('lets a request override the timeout', async () => {
    agent.get(ORIGIN).intercept({ path: '/v2/slow' }).reply(200, { id: 'late' }).delay(2000);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/slow', timeoutMs: 15, retry: false }));
    expect((err as TimeoutError).timeoutMs).toBe(15);
  });

  it('does not retry a request the caller aborted', async () => {
    agent.get(ORIGIN).intercept({ path: '/v2/slow' }).reply(200, { id: 'late' }).delay(2000).persist();
    const controller = new AbortController();
    const pending = transport().request({ method: 'GET', path: '/v2/slow', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user pressed Ctrl-C')), 10);
    const err = await failure(pending);
    expect(err).toBeInstanceOf(AbortError);
    expect((err.cause as Error).message).toBe('user pressed Ctrl-C');
    expect(isTransient(err)).toBe(false);
    expect(delays).toEqual([]);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const calls = replies('/v2/items/1', [200, { id: '1' }]);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/items/1', signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect(calls.count).toBe(0);
  });

  it('stops waiting between retries when the caller aborts', async () => {
    const calls = replies('/v2/items/1', [503, {}]);
    const controller = new AbortController();
    const abortingSleep = (ms: number, signal?: AbortSignal): Promise<void> => {
      controller.abort(new Error('stop'));
      return sleep(ms, signal);
    };
    const err = await failure(
      transport({ sleep: abortingSleep }).request({ method: 'GET', path: '/v2/items/1', signal: controller.signal }),
    );
    expect(err).toBeInstanceOf(AbortError);
    expect(calls.count).toBe(1);
  });
});

describe('secrets never reach an error', () => {
  it('redacts the API key a server echoes, in message, body and validation items', async () => {
    replies('/v2/a', [401, { detail: `Invalid API key ${API_KEY}` }]);
    replies('/v2/b', [422, { detail: [{ loc: ['header', API_KEY], msg: `bad value ${API_KEY}`, type: 'x' }] }]);
    replies('/v2/c', [500, `key=${API_KEY}`]);
    const client = transport({ retry: { maxRetries: 0 } });
    const errors = [
      await failure(client.request({ method: 'GET', path: '/v2/a' })),
      await failure(client.request({ method: 'GET', path: '/v2/b' })),
      await failure(client.request({ method: 'GET', path: '/v2/c' })),
    ];
    expect(errors[0].message).toContain('Invalid API key [REDACTED]');
    expect((errors[1] as ValidationError).items[0]).toEqual({ loc: ['header', '[REDACTED]'], msg: 'bad value [REDACTED]', type: 'x' });
    for (const err of errors) expect(inspect(err, { depth: 10 })).not.toContain(API_KEY);
  });

  it('redacts a bearer token and registered secrets', async () => {
    const token = 'bearer-token-abcdef';
    replies('/v2/a', [400, { detail: `token ${token} cannot set secret hunter2-value` }]);
    const client = transport({ auth: { kind: 'bearer', token } });
    client.registerSecret('hunter2-value');
    const err = await failure(client.request({ method: 'POST', path: '/v2/a', body: { secret: 'hunter2-value' } }));
    expect(err.message).toBe(`POST ${ORIGIN}/v2/a: 400 Bad Request: token [REDACTED] cannot set secret [REDACTED]`);
    expect(inspect(err, { depth: 10 })).not.toMatch(/bearer-token-abcdef|hunter2-value/);
  });

  it('redacts longest secrets first and ignores trivially short ones', () => {
    const redactor = new SecretRedactor(['abcd', 'abcdef', '', 'ab', undefined]);
    expect(redactor.redact('xx abcdef abcd ab')).toBe('xx [REDACTED] [REDACTED] ab');
    expect(redactor.redactValue({ abcd: ['abcdef', 3, null] })).toEqual({ '[REDACTED]': ['[REDACTED]', 3, null] });
  });
});

describe('responses', () => {
  it('parses with the schema and names the first failing path', async () => {
    const List = z.object({ resources: z.array(z.object({ id: z.uuid() })) });
    replies('/v2/list', [200, { resources: [{ id: ID }, { id: 'not-a-uuid' }] }, { 'x-request-id': 'req-9' }]);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/list', schema: List }));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect((err as ResponseParseError).issuePath).toBe('resources.1.id');
    expect(err.message).toMatch(/^GET http:\/\/api\.test\/v2\/list: 200: response does not match the expected schema at resources\.1\.id: .+ \(request id req-9\)$/);
    expect(isTransient(err)).toBe(false);
  });

  it('rejects a body that is not JSON', async () => {
    replies('/v2/list', [200, 'not json']);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/list', schema: Item }));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.message).toBe(`GET ${ORIGIN}/v2/list: 200: response is not valid JSON: content-type not given, body "not json" (another server, such as a proxy, may have answered)`);
  });

  it('shows the content type and the start of a 2xx page that is not JSON, redacted before it is cut', async () => {
    // 10 characters of the key fall within the 100 quoted (30 of markup, 60 x): too few to be recognised once cut
    const page = `<html>\n  <title>Sign in</title>${' '.repeat(3)}${'x'.repeat(60)}${API_KEY} and more`;
    replies('/v2/list', [200, page, { 'content-type': 'text/html; charset=utf-8' }]);
    const err = await failure(transport().request({ method: 'GET', path: '/v2/list', schema: Item }));
    expect(err.message).toMatch(/^GET http:\/\/api\.test\/v2\/list: 200: response is not valid JSON: content-type "text\/html; charset=utf-8", body "<html> <title>Sign in<\/title> x{60}\[REDACTED\]…" \(another server/);
    expect(inspect(err, { depth: 10 })).not.toContain(API_KEY.slice(0, 10));
    const long = `<html>${'y'.repeat(300)}</html>`;
    replies('/v2/long', [200, long, { 'content-type': 'text/html' }]);
    const cut = await failure(transport().request({ method: 'GET', path: '/v2/long', schema: Item }));
    expect(cut.message).toContain(`body "${long.slice(0, 100)}…" (another server`);
    replies('/v2/cut', [201, '{"id": "c', { 'content-type': 'application/json' }]);
    const json = await failure(transport().request({ method: 'POST', path: '/v2/cut', schema: Item }));
    expect(json.message).toBe(`POST ${ORIGIN}/v2/cut: 201: response is not valid JSON: content-type "application/json", body "{\\"id\\": \\"c"`);
  });

  it('accepts an empty 204 when no schema is given, and sends JSON bodies', async () => {
    const seen: { body?: unknown; headers?: unknown }[] = [];
    agent
      .get(ORIGIN)
      .intercept({ path: '/v2/things', method: 'PUT' })
      .reply((opts) => {
        seen.push({ body: opts.body, headers: opts.headers });
        return { statusCode: 204, data: '' };
      });
    await expect(transport().request({ method: 'PUT', path: '/v2/things', body: { a: [1] } })).resolves.toBeUndefined();
    expect(seen[0].body).toBe('{"a":[1]}');
    expect(seen[0].headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
  });
});

describe('requests', () => {
  function recordRequests(): { path: string; headers: Record<string, string> }[] {
    const seen: { path: string; headers: Record<string, string> }[] = [];
    agent
      .get(ORIGIN)
      .intercept({ path: () => true, method: () => true })
      .reply((opts) => {
        seen.push({ path: opts.path, headers: opts.headers as Record<string, string> });
        return { statusCode: 200, data: {} };
      })
      .persist();
    return seen;
  }

  it('serializes queries: nulls dropped, arrays joined by commas, values encoded', async () => {
    expect(serializeQuery({ a: undefined, b: null, c: ['X', 'Y', 3], d: true, e: 0, 'f g': 'h&i' })).toBe(
      'c=X,Y,3&d=true&e=0&f%20g=h%26i',
    );
    const seen = recordRequests();
    await transport({ baseUrl: `${ORIGIN}/prefix/` }).request({
      method: 'GET',
      path: '/v2/items',
      query: { status: ['DEPLOYED', 'BUILDING'], limit: 5, name: null },
    });
    expect(seen[0].path).toBe('/prefix/v2/items?status=DEPLOYED,BUILDING&limit=5');
  });

  it('sends the headers of each kind of auth', async () => {
    const seen = recordRequests();
    const auths: TransportOptions['auth'][] = [
      { kind: 'api-key', apiKey: 'key-one' },
      { kind: 'api-key', apiKey: 'key-two', tenantId: 'ws-1', header: 'X-API-Key' },
      { kind: 'bearer', token: 'tok-three', tenantId: 'ws-2' },
    ];
    for (const auth of auths) await transport({ auth, userAgent: 'tests/1' }).request({ method: 'GET', path: '/v2/x' });
    expect(seen.map((s) => s.headers)).toEqual([
      { 'user-agent': 'tests/1', accept: 'application/json', 'x-api-key': 'key-one' },
      { 'user-agent': 'tests/1', accept: 'application/json', 'x-api-key': 'key-two', 'x-tenant-id': 'ws-1' },
      { 'user-agent': 'tests/1', accept: 'application/json', authorization: 'Bearer tok-three', 'x-tenant-id': 'ws-2' },
    ]);
  });
});

describe('stream', () => {
  it('hands over the body of a 2xx response as a stream, with auth', async () => {
    let headers: unknown;
    agent
      .get(ORIGIN)
      .intercept({ path: '/runs/stream', method: 'POST' })
      .reply((opts) => {
        headers = opts.headers;
        return { statusCode: 200, data: 'event: a\ndata: 1\n\n', responseOptions: { headers: { 'x-request-id': 'rs-1' } } };
      });
    const response = await transport().stream({ method: 'POST', path: '/runs/stream', body: { input: 1 } });
    let text = '';
    for await (const chunk of response.body) text += Buffer.from(chunk).toString();
    expect([response.status, response.requestId, text]).toEqual([200, 'rs-1', 'event: a\ndata: 1\n\n']);
    expect(headers).toMatchObject({ accept: 'text/event-stream', 'x-api-key': API_KEY });
  });

  it('turns a non-2xx response into the same typed error', async () => {
    replies('/runs/stream', [404, { detail: 'Thread not found' }]);
    const err = await failure(transport().stream({ method: 'POST', path: '/runs/stream' }));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toContain('404 Not Found: Thread not found');
  });

  it('times out while waiting for the headers', async () => {
    agent.get(ORIGIN).intercept({ path: '/runs/stream', method: 'POST' }).reply(200, 'x').delay(2000);
    const err = await failure(transport().stream({ method: 'POST', path: '/runs/stream', timeoutMs: 15 }));
    expect(err).toBeInstanceOf(TimeoutError);
  });

});
