/** Runs on a busy thread: enqueue (default, arrival order), reject, interrupt and rollback; run statuses. */
import { ConflictError, NotFoundError } from '../../lib/api/errors';
import type { AgentServerClient } from '../../lib/api/agent-server';
import type { RunCreate } from '../../lib/api/schemas/agent-server';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

let platform: AgentTestPlatform;
let client: AgentServerClient;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  client = platform.client(await platform.deploy('multitask'));
});
afterAll(() => platform.close());

/** A chat run slow enough (a delay before each token) to still be running when the next one arrives. */
const slowRun = (content: string, extra: Partial<RunCreate> = {}): RunCreate => ({
  assistant_id: 'chat',
  input: { messages: [{ role: 'user', content }] },
  config: { configurable: { reply_tokens: 40, token_delay_ms: 5 } },
  ...extra,
});

const conversation = async (threadId: string) =>
  ((await client.threads.getState(threadId)).values.messages ?? []).map(
    (message) => `${message.type}: ${String(message.content).split(' ').slice(0, 3).join(' ')}`,
  );

const untilRunning = (threadId: string, runId: string) =>
  waitFor(async () => (await client.runs.get(threadId, runId)).status === 'running');

describe('multitask_strategy', () => {
  it('enqueue (the default): three runs created at once run one at a time in the order the server received them', async () => {
    const thread = await client.threads.create();
    const created = await Promise.all(
      ['first', 'second', 'third'].map((word) => client.runs.create(thread.thread_id, slowRun(word))),
    );
    expect(created.map((run) => run.multitask_strategy)).toEqual(['enqueue', 'enqueue', 'enqueue']);
    for (const run of created) await client.runs.join(thread.thread_id, run.run_id);

    const arrival = (await client.runs.list(thread.thread_id)).reverse();
    expect(arrival.map((run) => run.status)).toEqual(['success', 'success', 'success']);
    const words = arrival.map((run) => (run.kwargs.input as { messages: { content: string }[] }).messages[0].content);
    expect(await conversation(thread.thread_id)).toEqual(
      words.flatMap((word) => [`human: ${word}`, `ai: You said: ${word}`]),
    );
  });

  it('reject: a run on a busy thread is refused with 409 and a detail; the running run goes on', async () => {
    const thread = await client.threads.create();
    const running = await client.runs.create(thread.thread_id, slowRun('busy'));
    const refused = client.runs.create(thread.thread_id, slowRun('refused', { multitask_strategy: 'reject' }));
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({
      status: 409,
      body: { detail: expect.stringContaining('already running') },
    });
    await client.runs.join(thread.thread_id, running.run_id);
    expect((await client.runs.get(thread.thread_id, running.run_id)).status).toBe('success');
    expect(await client.runs.list(thread.thread_id)).toHaveLength(1);
    expect(await conversation(thread.thread_id)).toEqual(['human: busy', 'ai: You said: busy']);
  });

  it('interrupt: the running run stops as interrupted and the new run runs', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(
      thread.thread_id,
      slowRun('long', { config: { configurable: { reply_tokens: 2000, token_delay_ms: 5 } } }),
    );
    await untilRunning(thread.thread_id, first.run_id);
    const second = await client.runs.create(thread.thread_id, slowRun('urgent', { multitask_strategy: 'interrupt' }));
    await client.runs.join(thread.thread_id, second.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');
    expect((await client.runs.get(thread.thread_id, second.run_id)).status).toBe('success');
    // The interrupted run's finished steps (its input) stay; its unfinished reply does not.
    expect(await conversation(thread.thread_id)).toEqual(['human: long', 'human: urgent', 'ai: You said: urgent']);
  });

  it('rollback: the running run is stopped and deleted with its effects', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(
      thread.thread_id,
      slowRun('undone', { config: { configurable: { reply_tokens: 2000, token_delay_ms: 5 } } }),
    );
    await untilRunning(thread.thread_id, first.run_id);
    const second = await client.runs.create(thread.thread_id, slowRun('kept', { multitask_strategy: 'rollback' }));
    await client.runs.join(thread.thread_id, second.run_id);
    await expect(client.runs.get(thread.thread_id, first.run_id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.runs.list(thread.thread_id)).map((run) => run.run_id)).toEqual([second.run_id]);
    expect(await conversation(thread.thread_id)).toEqual(['human: kept', 'ai: You said: kept']);
  });

  it('interrupt and rollback also apply to runs still waiting in the queue', async () => {
    const thread = await client.threads.create();
    const running = await client.runs.create(
      thread.thread_id,
      slowRun('running', { config: { configurable: { reply_tokens: 2000, token_delay_ms: 5 } } }),
    );
    const queued = await client.runs.create(thread.thread_id, slowRun('queued'));
    expect((await client.runs.get(thread.thread_id, queued.run_id)).status).toBe('pending');
    const last = await client.runs.create(thread.thread_id, slowRun('last', { multitask_strategy: 'interrupt' }));
    await client.runs.join(thread.thread_id, last.run_id);
    expect((await client.runs.get(thread.thread_id, running.run_id)).status).toBe('interrupted');
    expect((await client.runs.get(thread.thread_id, queued.run_id)).status).toBe('interrupted');
  });
});

describe('a queued run whose assistant is gone', () => {
  it('fails as a failed run does: an error event on its stream, its status and its thread error', async () => {
    const thread = await client.threads.create();
    const doomed = await client.assistants.create({ graph_id: 'chat', name: 'deleted while queued' });
    const first = await client.runs.create(thread.thread_id, slowRun('first'));
    await untilRunning(thread.thread_id, first.run_id);
    const chunks: { mode: string; data: unknown }[] = [];
    const streaming = (async () => {
      for await (const chunk of client.runs.stream(thread.thread_id, { ...slowRun('second'), assistant_id: doomed.assistant_id })) {
        chunks.push({ mode: chunk.mode, data: chunk.data });
      }
    })();
    const queued = await waitFor(async () => (await client.runs.list(thread.thread_id)).find((run) => run.run_id !== first.run_id));
    await client.assistants.delete(doomed.assistant_id);
    await expect(streaming).rejects.toMatchObject({ name: 'AgentRunError', message: expect.stringContaining('no longer exists') });
    expect(chunks.map((chunk) => chunk.mode)).toEqual(['metadata']);
    expect((await client.runs.get(thread.thread_id, queued.run_id)).status).toBe('error');
    expect((await client.threads.get(thread.thread_id)).status).toBe('error');
  });
});

describe('cancel', () => {
  it('interrupts a running run, and rollback deletes it', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(
      thread.thread_id,
      slowRun('cancel me', { config: { configurable: { reply_tokens: 2000, token_delay_ms: 5 } } }),
    );
    await untilRunning(thread.thread_id, first.run_id);
    await client.runs.cancel(thread.thread_id, first.run_id, { wait: true });
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');
    // a cancel of a run that has ended does nothing: it keeps the status it ended with
    await client.runs.cancel(thread.thread_id, first.run_id, { action: 'rollback', wait: true });
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');
    const other = await client.threads.create();
    const done = await client.runs.create(other.thread_id, slowRun('done'));
    await client.runs.join(other.thread_id, done.run_id);
    await client.runs.cancel(other.thread_id, done.run_id);
    expect((await client.runs.get(other.thread_id, done.run_id)).status).toBe('success');

    const second = await client.runs.create(
      thread.thread_id,
      slowRun('roll me back', { config: { configurable: { reply_tokens: 2000, token_delay_ms: 5 } } }),
    );
    await untilRunning(thread.thread_id, second.run_id);
    await client.runs.cancel(thread.thread_id, second.run_id, { action: 'rollback', wait: true });
    await expect(client.runs.get(thread.thread_id, second.run_id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await conversation(thread.thread_id)).toEqual(['human: cancel me']);
  });
});
