/**
 * The runs of a thread are decided (queued, refused, stopping the runs before them) and queued in the order their
 * requests arrived, not in the order their bodies finished arriving: a large body sent before a small one keeps its
 * place. A body that is slow to come, or never comes, holds the thread's later runs back for a while only.
 */
import * as http from 'node:http';
import type { AgentServerClient } from '../../lib/api/agent-server';
import type { Run, RunCreate } from '../../lib/api/schemas/agent-server';
import { ArrivalLine } from '../../lib/local/agents/runtime/arrival-line';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

/** How long a body still arriving holds the thread's later runs back, on this test's platform. */
const HOLD_MS = 3000;

let platform: AgentTestPlatform;
let client: AgentServerClient;
let url: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform({ arrivalHoldMs: HOLD_MS });
  const deployment = await platform.deploy('arrival-order');
  url = deployment.url as string;
  client = platform.client(deployment);
});
afterAll(() => platform.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const chatRun = (content: string, extra: Partial<RunCreate> = {}): RunCreate => ({
  assistant_id: 'chat',
  input: { messages: [{ role: 'user', content }] },
  ...extra,
});

/** A run request whose body goes out in two parts: `sendRest` sends the second, `abort` drops the connection. */
function splitRequest(threadId: string, body: unknown) {
  const text = Buffer.from(JSON.stringify(body));
  const target = new URL(`${url}/threads/${threadId}/runs`);
  let request!: http.ClientRequest;
  const response = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    request = http.request(
      target,
      {
        method: 'POST',
        headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json', 'Content-Length': text.length },
      },
      (res) => {
        let data = '';
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      },
    );
    request.on('error', reject);
  });
  // a request a failed test leaves open is cut when the platform closes: that is no failure of its own
  response.catch(() => undefined);
  const half = Math.floor(text.length / 2);
  request.write(text.subarray(0, half));
  return { response, sendRest: () => request.end(text.subarray(half)), abort: () => request.destroy() };
}

/** The human messages of a thread, in the order its runs added them. */
const humanMessages = async (threadId: string) =>
  ((await client.threads.getState(threadId)).values.messages ?? [])
    .filter((message) => message.type === 'human')
    .map((message) => message.content);

/** A thread kept busy for a while, so that the runs of a test queue behind this one. */
async function busyThread(): Promise<string> {
  const thread = await client.threads.create();
  const warm = await client.runs.create(thread.thread_id, chatRun('warm', { config: { configurable: { reply_tokens: 5, token_delay_ms: 100 } } }));
  await waitFor(async () => (await client.runs.get(thread.thread_id, warm.run_id)).status === 'running');
  return thread.thread_id;
}

describe('runs of a thread', () => {
  it('are queued in the order their requests arrived: a 1 MB body sent first runs first', async () => {
    const threadId = await busyThread();
    const large = splitRequest(threadId, chatRun('A', { metadata: { image: 'QUJD'.repeat(250_000) } }));
    // the thread's line: the busy run's request, then A's (half of its body sent), then B's
    await platform.waiting('arrival', threadId, 2);
    const small = client.runs.create(threadId, chatRun('B'));
    await platform.waiting('arrival', threadId, 3);
    large.sendRest();
    const a = (await large.response).body as Run;
    const b = await small;
    expect(Date.parse(a.created_at)).toBeLessThanOrEqual(Date.parse(b.created_at));
    expect((await client.runs.list(threadId)).map((run) => run.run_id).slice(0, 2)).toEqual([b.run_id, a.run_id]);
    await client.runs.join(threadId, a.run_id);
    await client.runs.join(threadId, b.run_id);
    expect(await humanMessages(threadId)).toEqual(['warm', 'A', 'B']);
  });

  it('are decided in that order: a reject that arrives after a run still sending its body is refused', async () => {
    const thread = await client.threads.create();
    const first = splitRequest(
      thread.thread_id,
      chatRun('first', { config: { configurable: { reply_tokens: 200, token_delay_ms: 5 } }, metadata: { pad: 'x'.repeat(100_000) } }),
    );
    await platform.waiting('arrival', thread.thread_id, 1);
    const rejected = client.runs.create(thread.thread_id, chatRun('second', { multitask_strategy: 'reject' }));
    await platform.waiting('arrival', thread.thread_id, 2);
    first.sendRest();
    expect((await first.response).status).toBe(200);
    await expect(rejected).rejects.toMatchObject({ status: 409 });
    expect(await client.runs.list(thread.thread_id)).toHaveLength(1);
  });

  it('are not held back long by a body that stalls, and not at all once its request is gone', async () => {
    const threadId = await busyThread();
    const stalled = splitRequest(threadId, chatRun('stalled', { metadata: { pad: 'x'.repeat(10_000) } }));
    await platform.waiting('arrival', threadId, 2);
    const started = Date.now();
    const after = await client.runs.create(threadId, chatRun('after the stalled one'));
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(HOLD_MS - 200);
    expect(waited).toBeLessThan(HOLD_MS + 2000);
    // once its body is in, the stalled run takes its turn after those that went ahead of it
    stalled.sendRest();
    const late = (await stalled.response).body as Run;
    expect((await client.runs.list(threadId)).map((run) => run.run_id).slice(0, 2)).toEqual([late.run_id, after.run_id]);

    const dropped = splitRequest(threadId, chatRun('dropped', { metadata: { pad: 'x'.repeat(10_000) } }));
    // the busy run's, the stalled one's, the one after it, and this one
    await platform.waiting('arrival', threadId, 4);
    dropped.abort();
    const start = Date.now();
    await client.runs.create(threadId, chatRun('after the dropped one'));
    expect(Date.now() - start).toBeLessThan(HOLD_MS / 2);
  });
});

describe('ArrivalLine', () => {
  it('lets a place go only after every earlier one left, and forgets a line nobody is on', async () => {
    const line = new ArrivalLine(60_000);
    const order: string[] = [];
    const first = line.arrive('t');
    const second = line.arrive('t');
    const third = line.arrive('t');
    const other = line.arrive('u');
    void third.turn().then(() => order.push('third'));
    void other.turn().then(() => order.push('other line'));
    // the second leaves before the first: the third still waits for the first
    second.leave();
    await sleep(10);
    expect(order).toEqual(['other line']);
    first.leave();
    await sleep(10);
    expect(order).toEqual(['other line', 'third']);
    expect(line.size).toBe(2);
    third.leave();
    other.leave();
    await sleep(10);
    expect(line.size).toBe(0);
    // a new place on an empty line has its turn at once
    const alone = line.arrive('t');
    await alone.turn();
    alone.leave();
  });

  it('stops holding the line for a place that has not left after holdMs', async () => {
    const line = new ArrivalLine(50);
    const stuck = line.arrive('t');
    const started = Date.now();
    await line.arrive('t').turn();
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    stuck.leave();
  });
});
