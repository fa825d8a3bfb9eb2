/**
 * The transport's requests against real loopback servers: how a buffered response is decoded, how a timeout or
 * the caller's abort ends a request that still waits for a free connection, how the transport's own keep-alive pool
 * reuses connections, how a refused connection is reported, and how a stream's body outlasts the pool's body timeout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { z } from 'zod';
import { AbortError, NetworkError, TimeoutError } from '../../lib/api/errors';
import { HttpTransport } from '../../lib/api/http';

const Message = z.object({ text: z.string() });

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
const agents: Agent[] = [];

afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server on port 0 and a transport to it over an agent with `connections` sockets. */
async function serve(handler: Handler, connections = 8): Promise<HttpTransport> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ connections });
  agents.push(agent);
  return new HttpTransport({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    auth: { kind: 'api-key', apiKey: 'dispatch-test-key' },
    dispatcher: agent,
    retry: { maxRetries: 0 },
  });
}

/** A server over one connection whose `/held` request waits for `release`; every other path answers at once. */
async function serveWithHeldRequest(): Promise<{ transport: HttpTransport; release: () => Promise<void> }> {
  let arrived: (answer: () => void) => void;
  const held = new Promise<() => void>((resolve) => (arrived = resolve));
  const transport = await serve((req, res) => {
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"done"}');
    if (req.url === '/held') arrived(answer);
    else answer();
  }, 1);
  return { transport, release: async () => (await held)() };
}

describe('a buffered JSON response', () => {
  test('arriving in single bytes, split inside multi-byte characters, is decoded whole', async () => {
    const text = 'grüße, 你好, 🚀 and plain ascii';
    const body = Buffer.from(JSON.stringify({ text }));
    const transport = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let offset = 0;
      const writeNext = () => {
        if (offset === body.length) return void res.end();
        res.write(body.subarray(offset, ++offset));
        setImmediate(writeNext);
      };
      writeNext();
    });
    await expect(transport.request({ method: 'GET', path: '/chunks', schema: Message })).resolves.toEqual({ text });
  });

  test('loses a leading byte order mark, as undici body.text() does', async () => {
    const transport = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"text":"after the mark"}')]));
    });
    await expect(transport.request({ method: 'GET', path: '/bom', schema: Message })).resolves.toEqual({
      text: 'after the mark',
    });
  });
});

describe('a request waiting for the only connection', () => {
  test('times out while the connection is still busy', async () => {
    const { transport, release } = await serveWithHeldRequest();
    let heldSettled = false;
    const held = transport.request({ method: 'GET', path: '/held', schema: Message }).finally(() => {
      heldSettled = true;
    });
    const queued = transport.request({ method: 'GET', path: '/queued', schema: Message, timeoutMs: 50 });
    await expect(queued).rejects.toBeInstanceOf(TimeoutError);
    expect(heldSettled).toBe(false);
    await release();
    await expect(held).resolves.toEqual({ text: 'done' });
  });

  test('ends with an AbortError when the caller aborts, and the connection serves the next request', async () => {
    const { transport, release } = await serveWithHeldRequest();
    const held = transport.request({ method: 'GET', path: '/held', schema: Message });
    const controller = new AbortController();
    const queued = transport.request({ method: 'GET', path: '/queued', schema: Message, signal: controller.signal });
    controller.abort(new Error('stopped by the caller'));
    await expect(queued).rejects.toBeInstanceOf(AbortError);
    await release();
    await expect(held).resolves.toEqual({ text: 'done' });
    await expect(transport.request({ method: 'GET', path: '/next', schema: Message })).resolves.toEqual({
      text: 'done',
    });
  });
});

describe("the transport's own keep-alive pool", () => {
  test('reuses connections across consecutive requests', async () => {
    let connections = 0;
    const server = createServer((req, res) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ text: req.url })),
    );
    servers.push(server);
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HttpTransport({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      auth: { kind: 'api-key', apiKey: 'dispatch-test-key' },
    });
    for (let n = 0; n < 10; n++) {
      const path = `/v2/items/${n}`;
      await expect(client.request({ method: 'GET', path, schema: Message })).resolves.toEqual({ text: path });
    }
    await client.close();
    // undici may open a second socket while the first is being released; without keep-alive there would be 10.
    expect(connections).toBeLessThan(5);
  });

  test('reports a refused connection as a NetworkError after retrying it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const delays: number[] = [];
    const client = new HttpTransport({
      baseUrl: `http://127.0.0.1:${closedPort}`,
      auth: { kind: 'api-key', apiKey: 'dispatch-test-key' },
      retry: { maxRetries: 2 },
      sleep: async (ms) => void delays.push(ms),
      random: () => 0.5,
    });
    const err: unknown = await client.request({ method: 'POST', path: '/v2/deployments', body: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe('ECONNREFUSED');
    expect(delays).toHaveLength(2);
  });
});

describe('a streamed body', () => {
  it('keeps the body open through a silence longer than the connection pool allows a body to pause', async () => {
    // over real HTTP: the pause between two events outlasts the pool's body timeout (undici checks it about every 500 ms)
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\ndata: 1\n\n');
      setTimeout(() => res.end('event: b\ndata: 2\n\n'), 2_000);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new Agent({ bodyTimeout: 500 });
    try {
      const { port } = server.address() as AddressInfo;
      const streaming = new HttpTransport({ baseUrl: `http://127.0.0.1:${port}`, auth: { kind: 'api-key', apiKey: 'dispatch-test-key' }, dispatcher: pool });
      const response = await streaming.stream({ method: 'GET', path: '/runs/stream' });
      let text = '';
      for await (const chunk of response.body) text += Buffer.from(chunk).toString();
      expect(text).toBe('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
    } finally {
      await pool.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the server's clock", () => {
  it('is known from the Date header of the last answer, and advances with this machine\'s', async () => {
    const transport = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', date: 'Wed, 01 Jan 2025 00:00:00 GMT' });
      res.end('{"text":"ok"}');
    });
    expect(transport.serverNow()).toBeUndefined();
    await transport.request({ method: 'GET', path: '/clock', schema: Message });
    const now = transport.serverNow()!;
    // one second of resolution, and the time the answer took to arrive
    expect(now).toBeGreaterThanOrEqual(Date.parse('2025-01-01T00:00:00Z'));
    expect(now).toBeLessThan(Date.parse('2025-01-01T00:01:00Z'));
  });
});
