/**
 * A time limit or an abort that comes while the request still waits for a connection sent nothing: such a POST may
 * be sent again, and its failure does not say that the platform may have acted. Real HTTP on loopback: a server that
 * holds the only pooled connection, and a connector that never connects.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { AbortError, ApiError, TimeoutError } from '../../lib/api/errors';
import { HttpTransport } from '../../lib/api/http';
import { isRetryable, mayHaveActed } from '../../lib/api/retry';
import { waitFor } from '../agents/support/wait';

let server: Server;
let origin: string;
let received: string[];
const held: ServerResponse[] = [];

beforeAll(async () => {
  received = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    // /hold never answers (until the test ends); anything else answers at once
    if (req.url === '/hold') held.push(res);
    else res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"x"}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.end();
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  received.length = 0;
});

function transport(dispatcher: Agent, timeoutMs: number, maxRetries = 0): HttpTransport {
  return new HttpTransport({
    baseUrl: origin,
    auth: { kind: 'api-key', apiKey: 'sk-test-unsent-0123456789' },
    dispatcher,
    timeoutMs,
    retry: { maxRetries, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

/** Resolves once the server has received `request` (`METHOD /path`). */
const receivedBy = (request: string) => waitFor(() => received.includes(request));

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

test('a POST queued behind the only busy connection times out unsent: it says so, and did not act', async () => {
  const pool = new Agent({ connections: 1 });
  try {
    const client = transport(pool, 10_000);
    const holding = client.request({ method: 'GET', path: '/hold', timeoutMs: 5_000, retry: false }).catch(() => undefined);
    await receivedBy('GET /hold');
    const err = await failure(client.request({ method: 'POST', path: '/queued', body: {}, timeoutMs: 150 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).sent).toBe(false);
    expect(err.message).toContain('still waiting for a connection');
    expect(mayHaveActed(err)).toBe(false);
    expect(isRetryable(err, 'POST', undefined)).toBe(true);
    expect(received).toEqual(['GET /hold']);
    held.splice(0).forEach((res) => res.end());
    await holding;
  } finally {
    await pool.destroy();
  }
});

test('a POST that reached the server and timed out may have acted, and is not sent again', async () => {
  const pool = new Agent();
  try {
    const err = await failure(transport(pool, 1_000, 2).request({ method: 'POST', path: '/hold', body: {} }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).sent).toBe(true);
    expect(mayHaveActed(err)).toBe(true);
    expect(received).toEqual(['POST /hold']);
  } finally {
    held.splice(0).forEach((res) => res.end());
    await pool.destroy();
  }
});

test('a connection that never opens: the POST is tried again, and its failure is a timeout that sent nothing', async () => {
  let connects = 0;
  // a connector that never calls back: a host that drops the connection attempts
  const pool = new Agent({ connect: () => void (connects += 1) });
  try {
    const err = await failure(transport(pool, 100, 1).request({ method: 'POST', path: '/never', body: {} }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).sent).toBe(false);
    expect(mayHaveActed(err)).toBe(false);
    expect(connects).toBe(2);
  } finally {
    await pool.destroy();
  }
});

test("the caller's abort while connecting sent nothing; an abort once sent may have acted", async () => {
  const hanging = new Agent({ connect: () => undefined });
  const pool = new Agent();
  try {
    const early = new AbortController();
    setTimeout(() => early.abort(new Error('stop')), 50);
    const before = await failure(transport(hanging, 10_000).request({ method: 'POST', path: '/never', body: {}, signal: early.signal }));
    expect(before).toBeInstanceOf(AbortError);
    expect(mayHaveActed(before)).toBe(false);

    const late = new AbortController();
    // a request the server never got fails the test on its own; the abort then has nothing to do
    receivedBy('POST /hold').then(() => late.abort(new Error('stop')), () => undefined);
    const after = await failure(transport(pool, 10_000).request({ method: 'POST', path: '/hold', body: {}, signal: late.signal }));
    expect(after).toBeInstanceOf(AbortError);
    expect(mayHaveActed(after)).toBe(true);
    expect(received).toEqual(['POST /hold']);
  } finally {
    held.splice(0).forEach((res) => res.end());
    await Promise.all([hanging.destroy(), pool.destroy()]);
  }
});
