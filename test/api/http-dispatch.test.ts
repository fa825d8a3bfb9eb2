/**
 * The transport's JSON requests against real loopback servers: how a buffered response is decoded, and how a
 * timeout or the caller's abort ends a request that still waits for a free connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { z } from 'zod';
import { AbortError, TimeoutError } from '../../lib/api/errors';
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
