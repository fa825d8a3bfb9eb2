/**
 * Requests that come while a run is being stopped (between the stop and the end of its execution): a rollback undoes
 * the run whatever stopped it first, and a run whose thread is deleted writes nothing afterwards, not even to a
 * thread made again at once with the same id. The requests are pipelined on one connection, so that the server takes
 * them all before the run's execution winds down.
 */
import * as net from 'node:net';
import type { AgentServerClient } from '../../lib/api/agent-server';
import type { RunCreate } from '../../lib/api/schemas/agent-server';
import { ThreadStore } from '../../lib/local/agents/store/threads';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

let platform: AgentTestPlatform;
let client: AgentServerClient;
let url: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  const deployment = await platform.deploy('stop-races');
  url = deployment.url as string;
  client = platform.client(deployment);
});
afterAll(() => platform.close());

interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/** Sends requests in one write on one connection (HTTP pipelining); their statuses, in order. */
async function pipelined(requests: readonly RawRequest[]): Promise<number[]> {
  const target = new URL(url);
  const text = requests
    .map(({ method, path, body }) => {
      const payload = body === undefined ? '' : JSON.stringify(body);
      return (
        `${method} ${target.pathname}${path} HTTP/1.1\r\nHost: ${target.host}\r\nX-Api-Key: ${platform.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`
      );
    })
    .join('');
  const socket = net.connect(Number(target.port), target.hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.write(text);
  try {
    return await waitFor(() => {
      const statuses = [...received.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
      return statuses.length === requests.length && statuses;
    });
  } finally {
    socket.destroy();
  }
}

const longRun = (content: string): RunCreate => ({
  assistant_id: 'chat',
  input: { messages: [{ role: 'user', content }] },
  config: { configurable: { reply_tokens: 2000, token_delay_ms: 5 } },
});

async function runningRun(threadId: string, content: string): Promise<string> {
  const run = await client.runs.create(threadId, longRun(content));
  await waitFor(async () => (await client.runs.get(threadId, run.run_id)).status === 'running');
  return run.run_id;
}

const contents = async (threadId: string) =>
  ((await client.threads.getState(threadId)).values.messages ?? []).map((message) => message.content);

/** The trace of a run, once its execution has ended. */
const traceOf = (runId: string) =>
  waitFor(
    () =>
      platform.db.prepare('SELECT status, error FROM trace_runs WHERE id = ?').get(runId) as
        | { status: string; error: string | null }
        | undefined,
  );

describe('a rollback while the run is being interrupted', () => {
  it('wins: the run is deleted with its checkpoints', async () => {
    const thread = await client.threads.create();
    const runId = await runningRun(thread.thread_id, 'undo me');
    const cancel = (action: string) => ({ method: 'POST', path: `/threads/${thread.thread_id}/runs/${runId}/cancel?action=${action}` });
    expect(await pipelined([cancel('interrupt'), cancel('rollback')])).toEqual([202, 202]);
    await traceOf(runId);
    await expect(client.runs.get(thread.thread_id, runId)).rejects.toMatchObject({ status: 404 });
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
    expect(await contents(thread.thread_id)).toEqual([]);
  });

  it('and an interrupt while it is being rolled back leaves the rollback as it is', async () => {
    const thread = await client.threads.create();
    const runId = await runningRun(thread.thread_id, 'undo me');
    const cancel = (action: string) => ({ method: 'POST', path: `/threads/${thread.thread_id}/runs/${runId}/cancel?action=${action}` });
    expect(await pipelined([cancel('rollback'), cancel('interrupt')])).toEqual([202, 202]);
    await traceOf(runId);
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
    expect(await contents(thread.thread_id)).toEqual([]);
  });
});

describe('a thread deleted while a run runs, and made again at once with the same id', () => {
  it("gets nothing from the old run: neither its status nor its state; the new thread's runs run as usual", async () => {
    const thread = await client.threads.create();
    const runId = await runningRun(thread.thread_id, 'old');
    const statusWrites = jest.spyOn(ThreadStore.prototype, 'setStatus');
    try {
      statusWrites.mockClear();
      expect(
        await pipelined([
          { method: 'DELETE', path: `/threads/${thread.thread_id}` },
          { method: 'POST', path: '/threads', body: { thread_id: thread.thread_id, metadata: { again: true } } },
        ]),
      ).toEqual([204, 200]);
      // the old run's execution has wound down
      expect(await traceOf(runId)).toEqual({ status: 'error', error: 'run stopped (delete)' });
      expect(statusWrites.mock.calls.filter(([, threadId]) => threadId === thread.thread_id)).toEqual([]);
    } finally {
      statusWrites.mockRestore();
    }
    expect(await client.threads.get(thread.thread_id)).toMatchObject({ status: 'idle', metadata: { again: true }, values: null });
    const run = await client.runs.create(thread.thread_id, { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'new' }] } });
    await client.runs.join(thread.thread_id, run.run_id);
    expect(await contents(thread.thread_id)).toEqual(['new', 'You said: new']);
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
    expect((await client.runs.list(thread.thread_id)).map((listed) => listed.run_id)).toEqual([run.run_id]);
  });
});
