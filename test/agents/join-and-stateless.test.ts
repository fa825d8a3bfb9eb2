/**
 * Joining runs (by stream, without replay; by waiting for the end), stateless runs that leave nothing behind,
 * disconnects (a stateless run stops when its stream goes away; a thread run goes on), errors and timeouts.
 */
import { Agent } from 'undici';
import { AbortError, NotFoundError, TimeoutError } from '../../lib/api/errors';
import { AgentRunError, AgentServerClient, type StreamChunk } from '../../lib/api/agent-server';
import type { EventsChunk, RunCreate } from '../../lib/api/schemas/agent-server';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

let platform: AgentTestPlatform;
let client: AgentServerClient;
/** The deployment's agent server URL. */
let joinUrl: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  const deployment = await platform.deploy('join');
  joinUrl = deployment.url as string;
  client = platform.client(deployment);
});
afterAll(() => platform.close());

const chatRun = (
  content: string,
  configurable: Record<string, unknown> = {},
  extra: Partial<RunCreate> = {},
): RunCreate => ({
  assistant_id: 'chat',
  input: { messages: [{ role: 'user', content }] },
  config: { configurable },
  ...extra,
});

const tokenOf = (chunk: StreamChunk): string | undefined =>
  chunk.mode === 'messages-tuple' ? (chunk.data[0].content as string) : undefined;

const rowCount = (table: string): number =>
  (platform.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The trace of an agent run once it is stored (written when the run ends). */
const storedTrace = (runId: string) =>
  waitFor(
    () =>
      platform.db.prepare('SELECT status, error FROM trace_runs WHERE id = ?').get(runId) as
        | { status: string; error: string | null }
        | undefined,
  );

describe('joining a run', () => {
  it('by stream: receives the run from the moment it joins, nothing earlier', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(
      thread.thread_id,
      chatRun('join me', { reply_tokens: 300, token_delay_ms: 3 }, { stream_mode: 'messages-tuple' }),
    );
    const early: string[] = [];
    const earlyDone = (async () => {
      for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) {
        const token = tokenOf(chunk);
        if (token !== undefined) early.push(token);
      }
    })();
    await waitFor(() => early.length >= 10);
    const seenBeforeJoin = early.length;
    const late: StreamChunk[] = [];
    for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) late.push(chunk);
    await earlyDone;

    expect(late[0]).toMatchObject({ mode: 'metadata', data: { run_id: run.run_id, attempt: 1 } });
    const lateTokens = late.map(tokenOf).filter((token): token is string => token !== undefined);
    const reply = (await client.runs.join(thread.thread_id, run.run_id)).messages?.[1].content as string;
    expect(reply.endsWith(early.join(''))).toBe(true);
    expect(lateTokens.length).toBeGreaterThan(0);
    expect(lateTokens.length).toBeLessThanOrEqual(early.length - seenBeforeJoin);
    expect(lateTokens).toEqual(early.slice(early.length - lateTokens.length));
  });

  it('by stream, in other modes than the run was created with', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, chatRun('modes', { reply_tokens: 30, token_delay_ms: 3 }));
    const modes = new Set<string>();
    for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id, {
      streamMode: ['updates', 'messages-tuple'],
    }))
      modes.add(chunk.mode);
    expect(modes).toEqual(new Set(['metadata', 'messages-tuple', 'updates']));
  });

  it('as the official SDK asks: stream_mode as a JSON list, and cancel_on_disconnect, by stream and by waiting', async () => {
    const thread = await client.threads.create();
    const runsPath = `${joinUrl}/threads/${thread.thread_id}/runs`;
    const headers = { 'X-Api-Key': platform.apiKey };
    const longRun = async () => {
      const run = await client.runs.create(thread.thread_id, chatRun('long', { reply_tokens: 2000, token_delay_ms: 5 }));
      await waitFor(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === 'running');
      return run.run_id;
    };
    const statusOf = async (runId: string) => (await client.runs.get(thread.thread_id, runId)).status;

    // by stream: the modes of the list, and the run interrupted once the stream is left
    const streamed = await longRun();
    const controller = new AbortController();
    const query = `stream_mode=${encodeURIComponent('["updates","messages-tuple"]')}&cancel_on_disconnect=1`;
    const response = await fetch(`${runsPath}/${streamed}/stream?${query}`, { headers, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: messages')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended without a messages chunk: ${text}`);
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    await waitFor(async () => ((await statusOf(streamed)) === 'interrupted' ? true : undefined));

    // by waiting: the run interrupted once the join is left
    const joined = await longRun();
    const leaving = new AbortController();
    const join = fetch(`${runsPath}/${joined}/join?cancel_on_disconnect=1`, { headers, signal: leaving.signal });
    join.catch(() => undefined);
    await platform.waiting('run-end', joined);
    leaving.abort();
    await waitFor(async () => ((await statusOf(joined)) === 'interrupted' ? true : undefined));

    // without it (the SDK sends 0), leaving a join leaves the run alone
    const kept = await longRun();
    const away = new AbortController();
    fetch(`${runsPath}/${kept}/join?cancel_on_disconnect=0`, { headers, signal: away.signal }).catch(() => undefined);
    await platform.waiting('run-end', kept);
    away.abort();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusOf(kept)).toBe('running');
    await client.runs.cancel(thread.thread_id, kept, { wait: true });
  });

  it('by stream in events mode during a model call: its tokens name the node task that made the call', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(
      thread.thread_id,
      chatRun('events', { reply_tokens: 60, token_delay_ms: 10 }, { stream_mode: 'events' }),
    );
    // the run's node calls the model as the run starts: the call is under way when the stream joins
    await waitFor(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === 'running');
    const events: EventsChunk[] = [];
    for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) {
      if (chunk.mode === 'events') events.push(chunk.data);
    }
    const token = events.find((event) => event.event === 'on_chat_model_stream')!;
    const taskId = String(token.metadata.langgraph_checkpoint_ns).split(':')[1];
    // as from the start: the root graph's run, then the task of the node
    expect(token.parent_ids).toEqual([run.run_id, taskId]);
    expect(events.find((event) => event.event === 'on_chat_model_end')!.parent_ids).toEqual([run.run_id, taskId]);
  });

  it("by waiting, on a thread that is deleted: a 404 that says the thread's runs were deleted with it", async () => {
    const thread = await client.threads.create();
    const running = await client.runs.create(
      thread.thread_id,
      chatRun('running', { reply_tokens: 2000, token_delay_ms: 5 }),
    );
    const queued = await client.runs.create(thread.thread_id, chatRun('queued'));
    await waitFor(async () => (await client.runs.get(thread.thread_id, running.run_id)).status === 'running');
    const joins = [running, queued].map((run) =>
      client.runs.join(thread.thread_id, run.run_id).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    for (const run of [running, queued]) await platform.waiting('run-end', run.run_id);
    await client.threads.delete(thread.thread_id);
    expect(await Promise.all(joins)).toEqual(
      [running, queued].map((run) =>
        expect.objectContaining({
          constructor: NotFoundError,
          body: { detail: `Thread ${thread.thread_id} was deleted, and its runs with it (run ${run.run_id})` },
        }),
      ),
    );
  });

  it('by waiting: join returns when the run completes, with the thread final values', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(
      thread.thread_id,
      chatRun('wait for me', { reply_tokens: 20, token_delay_ms: 2 }),
    );
    const values = await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    expect(values).toEqual((await client.threads.getState(thread.thread_id)).values);
    expect(values.messages?.map((message) => message.type)).toEqual(['human', 'ai']);
  });
});

describe('a run created and waited for in one request (runs/wait)', () => {
  it('answers with the thread final values once the run ends, and the run is on the thread', async () => {
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, chatRun('all at once', { reply_tokens: 5, token_delay_ms: 2 }));
    expect(values).toEqual((await client.threads.getState(thread.thread_id)).values);
    expect(values.messages?.map((message) => message.type)).toEqual(['human', 'ai']);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run).toMatchObject({ status: 'success' });
    // a run that fails: the run's error
    await expect(client.runs.wait(thread.thread_id, chatRun('fail', { model_error: 'model is down' }))).rejects.toMatchObject({
      constructor: AgentRunError,
      serverMessage: expect.stringContaining('model is down'),
    });
    await expect(client.runs.wait('00000000-0000-4000-8000-000000000000', chatRun('nobody'))).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('waiting for a run longer than a request may take', () => {
  it('join answers when the run ends, however long past the per-request time limit', async () => {
    const deployment = await platform.deploy('join-long');
    // each request may take 150 ms; the runs take about a second
    const impatient = new AgentServerClient({ baseUrl: deployment.url as string, auth: { kind: 'api-key', apiKey: platform.apiKey }, timeoutMs: 150, retry: { maxRetries: 0 } });
    try {
      const thread = await impatient.threads.create();
      const long = () => impatient.runs.create(thread.thread_id, chatRun('take your time', { reply_tokens: 10, token_delay_ms: 100 }));
      const run = await long();
      const values = await impatient.runs.join(thread.thread_id, run.run_id);
      expect(values.messages?.map((message) => message.type)).toEqual(['human', 'ai']);
      expect((await impatient.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
      // a join given its own limit still keeps to it
      const second = await long();
      await expect(impatient.runs.join(thread.thread_id, second.run_id, { timeoutMs: 100 })).rejects.toBeInstanceOf(TimeoutError);
      await impatient.runs.cancel(thread.thread_id, second.run_id, { wait: true });
      expect((await impatient.runs.get(thread.thread_id, second.run_id)).status).toBe('interrupted');
    } finally {
      await impatient.close();
    }
  });

  it("join waits past the connection pool's own limits on the wait for an answer", async () => {
    const deployment = await platform.deploy('join-pool');
    // undici checks these about every 500 ms; the run takes about two seconds
    const pool = new Agent({ headersTimeout: 500, bodyTimeout: 500 });
    const pooled = new AgentServerClient({ baseUrl: deployment.url as string, auth: { kind: 'api-key', apiKey: platform.apiKey }, dispatcher: pool, retry: { maxRetries: 0 } });
    try {
      const thread = await pooled.threads.create();
      const run = await pooled.runs.create(thread.thread_id, chatRun('take your time', { reply_tokens: 10, token_delay_ms: 200 }));
      const values = await pooled.runs.join(thread.thread_id, run.run_id);
      expect(values.messages?.map((message) => message.type)).toEqual(['human', 'ai']);
    } finally {
      await pooled.close();
      await pool.close();
    }
  });
});

describe('stateless runs', () => {
  it('stream their output and leave no thread, run or checkpoint behind', async () => {
    const tables = ['agent_threads', 'agent_runs', 'agent_checkpoints'];
    const before = tables.map(rowCount);
    const chunks: StreamChunk[] = [];
    for await (const chunk of client.runs.stream(null, chatRun('stateless'))) chunks.push(chunk);
    expect(chunks.filter((chunk) => chunk.mode === 'values')).toHaveLength(2);
    expect(tables.map(rowCount)).toEqual(before);
  });

  it('waited for (POST /runs/wait): their last values, or their error, and nothing left behind', async () => {
    const tables = ['agent_threads', 'agent_runs', 'agent_checkpoints'];
    const before = tables.map(rowCount);
    const values = await client.runs.wait(null, chatRun('wait for me'));
    expect(values.messages?.map((message) => [message.type, message.content])).toEqual([
      ['human', 'wait for me'],
      ['ai', 'You said: wait for me'],
    ]);
    await expect(client.runs.wait(null, chatRun('fail', { model_error: 'model is down' }))).rejects.toMatchObject({
      constructor: AgentRunError,
      errorType: 'FakeModelError',
      serverMessage: 'model is down',
    });
    expect(tables.map(rowCount)).toEqual(before);
  });

  it('waited for: stop when the client goes away, unless on_disconnect is continue', async () => {
    const runOf = async (content: string, extra: Partial<RunCreate>) => {
      const controller = new AbortController();
      const waiting = client.runs.wait(null, chatRun(content, { reply_tokens: 600, token_delay_ms: 5 }, extra), { signal: controller.signal });
      // a run of 3 s, left after 1 s (a run whose client is gone before it starts stops as it starts)
      await new Promise((resolve) => setTimeout(resolve, 1000));
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(AbortError);
      // its trace, stored as it ends, is found by its input
      const traced = await waitFor(
        () => platform.db.prepare("SELECT id FROM trace_runs WHERE inputs LIKE ? AND parent_run_id IS NULL").get(`%${content}%`) as { id: string } | undefined,
      );
      return traced.id;
    };
    expect(await storedTrace(await runOf('gone', {}))).toEqual({ status: 'error', error: 'run stopped (disconnect)' });
    expect(await storedTrace(await runOf('stay', { on_disconnect: 'continue' }))).toEqual({ status: 'success', error: null });
  });

  it('in the background (POST /runs): answered at once with the run, which runs to its end', async () => {
    const run = await client.runs.create(null, chatRun('background', { reply_tokens: 20, token_delay_ms: 2 }));
    expect(run).toMatchObject({ thread_id: null, assistant_id: expect.any(String), status: 'pending' });
    expect(await storedTrace(run.run_id)).toEqual({ status: 'success', error: null });
  });

  it('a thread-bound streaming run persists its output', async () => {
    const thread = await client.threads.create();
    for await (const chunk of client.runs.stream(thread.thread_id, chatRun('persist me'))) void chunk;
    expect((await client.runs.list(thread.thread_id)).map((run) => run.status)).toEqual(['success']);
    expect(
      (await client.threads.getState(thread.thread_id)).values.messages?.map((message) => message.content),
    ).toEqual(['persist me', 'You said: persist me']);
  });

  it('stop when the client breaks out of the loop: the server sees the disconnect', async () => {
    let runId = '';
    let tokens = 0;
    for await (const chunk of client.runs.stream(
      null,
      chatRun('break', { reply_tokens: 5000, token_delay_ms: 2 }, { stream_mode: 'messages-tuple' }),
    )) {
      if (chunk.mode === 'metadata') runId = chunk.data.run_id;
      if (chunk.mode === 'messages-tuple' && ++tokens === 5) break;
    }
    expect(await storedTrace(runId)).toEqual({ status: 'error', error: 'run stopped (disconnect)' });
  });

  it('stop when the AbortSignal fires, which the loop sees as an AbortError', async () => {
    const controller = new AbortController();
    let runId = '';
    const consume = async () => {
      for await (const chunk of client.runs.stream(
        null,
        chatRun('abort', { reply_tokens: 5000, token_delay_ms: 2 }, { stream_mode: 'messages-tuple' }),
        { signal: controller.signal },
      )) {
        if (chunk.mode === 'metadata') runId = chunk.data.run_id;
        if (chunk.mode === 'messages-tuple') controller.abort();
      }
    };
    await expect(consume()).rejects.toBeInstanceOf(AbortError);
    expect(await storedTrace(runId)).toEqual({ status: 'error', error: 'run stopped (disconnect)' });
  });
});

describe('a thread run whose stream disconnects', () => {
  it('goes on by default', async () => {
    const thread = await client.threads.create();
    let runId = '';
    for await (const chunk of client.runs.stream(
      thread.thread_id,
      chatRun('keep going', { reply_tokens: 50, token_delay_ms: 2 }, { stream_mode: 'messages-tuple' }),
    )) {
      if (chunk.mode === 'metadata') runId = chunk.data.run_id;
      if (chunk.mode === 'messages-tuple') break;
    }
    await client.runs.join(thread.thread_id, runId);
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe('success');
  });
});

describe('failures', () => {
  it('an error in the graph ends the stream with an error event, a typed AgentRunError', async () => {
    const thread = await client.threads.create();
    const chunks: StreamChunk[] = [];
    const consume = async () => {
      for await (const chunk of client.runs.stream(
        thread.thread_id,
        chatRun('fail', { model_error: 'model is down' }, { stream_mode: 'updates' }),
      ))
        chunks.push(chunk);
    };
    await expect(consume()).rejects.toMatchObject({
      constructor: AgentRunError,
      errorType: 'FakeModelError',
      serverMessage: 'model is down',
    });
    expect(chunks.map((chunk) => chunk.mode)).toEqual(['metadata']);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run.status).toBe('error');
    expect((await client.threads.get(thread.thread_id)).status).toBe('error');
    await expect(client.runs.join(thread.thread_id, run.run_id)).rejects.toMatchObject({ errorType: 'FakeModelError' });
  });
});

describe('run timeout', () => {
  let shortPlatform: AgentTestPlatform;
  beforeAll(async () => {
    shortPlatform = await startAgentTestPlatform({ runTimeoutMs: 100 });
  });
  afterAll(() => shortPlatform.close());

  it('a run longer than the timeout ends as timeout with a TimeoutError event', async () => {
    const shortClient = shortPlatform.client(await shortPlatform.deploy('timeout'));
    const thread = await shortClient.threads.create();
    const consume = async () => {
      for await (const chunk of shortClient.runs.stream(
        thread.thread_id,
        chatRun('slow', { reply_tokens: 1000, token_delay_ms: 5 }),
      ))
        void chunk;
    };
    await expect(consume()).rejects.toMatchObject({ errorType: 'TimeoutError' });
    expect((await shortClient.runs.list(thread.thread_id)).map((run) => run.status)).toEqual(['timeout']);
  });
});
