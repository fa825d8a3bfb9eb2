/**
 * The official LangGraph JS client's runs calls against a deployment of the local platform: stream in every mode
 * (one, several, with subgraphs), on a thread and stateless; create, wait, join, joinStream, cancel (interrupt and
 * rollback), list, get, delete, createBatch, cancelMany; and the effect of each multitask strategy.
 */
import { Client } from '@langchain/langgraph-sdk';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: Client;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('sdk-runs');
  client = new Client({ apiUrl: deployment.url as string, defaultHeaders: { 'X-Api-Key': platform.apiKey } });
});
afterAll(() => platform.close());

type Chunk = { event: string; data: unknown };
type Values = { messages: { type: string; content: string }[] };

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });
/** A chat run slow enough (a delay before each token) to still be running when the next call arrives. */
const slow = { configurable: { reply_tokens: 200, token_delay_ms: 5 } };

async function collect(stream: AsyncIterable<Chunk>): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const eventsOf = (chunks: Chunk[]) => [...new Set(chunks.map((chunk) => chunk.event))];
const conversation = async (threadId: string) =>
  (((await client.threads.getState(threadId)).values as Values).messages ?? []).map(
    (message) => `${message.type}: ${String(message.content).split(' ').slice(0, 3).join(' ')}`,
  );
const untilRunning = (threadId: string, runId: string) =>
  waitFor(async () => (await client.runs.get(threadId, runId)).status === 'running');

describe('stream', () => {
  it('values on a thread: metadata first, then the state after the input and after the node', async () => {
    const thread = await client.threads.create();
    const chunks = await collect(client.runs.stream(thread.thread_id, 'chat', { input: ask('hello there'), streamMode: 'values' }));
    expect(chunks.map((chunk) => chunk.event)).toEqual(['metadata', 'values', 'values']);
    const [run] = await client.runs.list(thread.thread_id);
    expect(chunks[0].data).toMatchObject({ run_id: run.run_id });
    expect((chunks[2].data as Values).messages.map((message) => message.type)).toEqual(['human', 'ai']);
  });

  it('updates: one chunk keyed by the node', async () => {
    const chunks = await collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'updates' }));
    const updates = chunks.filter((chunk) => chunk.event === 'updates');
    expect(updates.map((chunk) => Object.keys(chunk.data as object))).toEqual([['agent']]);
  });

  it('messages-tuple: one [message chunk, metadata] per token, metadata naming the node', async () => {
    const chunks = await collect(
      client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'messages-tuple', config: { configurable: { reply_tokens: 4 } } }),
    );
    const tokens = chunks.filter((chunk) => chunk.event === 'messages');
    expect(tokens).toHaveLength(4);
    const [message, metadata] = tokens[0].data as [{ type: string; content: string }, { langgraph_node: string }];
    expect(message.type).toBe('AIMessageChunk');
    expect(metadata.langgraph_node).toBe('agent');
  });

  it('debug, checkpoints and tasks: typed debug events, and their payloads on their own', async () => {
    const debug = await collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'debug' }));
    const types = new Set(debug.filter((chunk) => chunk.event === 'debug').map((chunk) => (chunk.data as { type: string }).type));
    expect(types).toEqual(new Set(['checkpoint', 'task', 'task_result']));
    const checkpoints = await collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'checkpoints' }));
    expect(checkpoints.filter((chunk) => chunk.event === 'checkpoints').length).toBeGreaterThanOrEqual(2);
    const tasks = await collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'tasks' }));
    const names = tasks.filter((chunk) => chunk.event === 'tasks').map((chunk) => (chunk.data as { name: string }).name);
    expect(names).toEqual(['agent', 'agent']);
  });

  it('events: chain and chat model events, tokens as on_chat_model_stream', async () => {
    const chunks = await collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'events' }));
    const kinds = new Set(chunks.filter((chunk) => chunk.event === 'events').map((chunk) => (chunk.data as { event: string }).event));
    expect([...kinds]).toEqual(expect.arrayContaining(['on_chain_start', 'on_chain_end', 'on_chat_model_start', 'on_chat_model_stream', 'on_chat_model_end']));
  });

  it('custom and subgraphs: the research graph’s progress events, namespaced, only with streamSubgraphs', async () => {
    const flat = await collect(client.runs.stream(null, 'research', { input: ask('graphs'), streamMode: ['custom', 'updates'] }));
    expect(eventsOf(flat)).toEqual(['metadata', 'updates']);
    const nested = await collect(
      client.runs.stream(null, 'research', { input: ask('graphs'), streamMode: ['custom', 'updates'], streamSubgraphs: true }),
    );
    const custom = nested.filter((chunk) => chunk.event.startsWith('custom|research_subgraph:'));
    expect(custom.map((chunk) => (chunk.data as { stage: string }).stage)).toEqual(['search', 'search', 'summarize']);
    expect(nested.some((chunk) => chunk.event.startsWith('updates|research_subgraph:'))).toBe(true);
    expect(nested.some((chunk) => chunk.event === 'updates')).toBe(true);
  });

  it('an array of modes: each chunk under its own mode', async () => {
    const chunks = await collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: ['values', 'updates', 'messages-tuple'] }));
    expect(eventsOf(chunks)).toEqual(['metadata', 'values', 'messages', 'updates']);
    // the tokens stream while the node runs, its update once it has returned
    expect(chunks.filter((chunk) => chunk.event === 'values')).toHaveLength(2);
  });

  it('a mode the server does not know is a 422 listing the modes it does', async () => {
    const unknown = 'message' as 'messages';
    await expect(collect(client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: unknown }))).rejects.toThrow(
      /422.*messages-tuple.*lifecycle/,
    );
  });

  it('reports the run it created through onRunCreated', async () => {
    const thread = await client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    await collect(client.runs.stream(thread.thread_id, 'chat', { input: ask('hi'), onRunCreated: (meta) => (created = meta) }));
    const [run] = await client.runs.list(thread.thread_id);
    expect(created).toMatchObject({ run_id: run.run_id, thread_id: thread.thread_id });
  });
});

describe('create, wait, join, joinStream, get, list, delete', () => {
  it('create answers the pending run; join waits for its values; get and list show it succeeded', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'chat', { input: ask('background'), metadata: { origin: 'sdk' } });
    expect(run).toMatchObject({ thread_id: thread.thread_id, status: 'pending', metadata: { origin: 'sdk' } });
    const values = (await client.runs.join(thread.thread_id, run.run_id)) as Values;
    expect(values.messages.map((message) => message.content)).toEqual(['background', 'You said: background']);
    expect(await client.runs.get(thread.thread_id, run.run_id)).toMatchObject({ run_id: run.run_id, status: 'success' });
    const second = await client.runs.create(thread.thread_id, 'chat', { input: ask('again') });
    await client.runs.join(thread.thread_id, second.run_id);
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([second.run_id, run.run_id]);
    expect((await client.runs.list(thread.thread_id, { limit: 1, offset: 1 })).map((r) => r.run_id)).toEqual([run.run_id]);
    expect(await client.runs.list(thread.thread_id, { status: 'error' })).toEqual([]);
    expect(await client.runs.list(thread.thread_id, { select: ['run_id', 'status'], limit: 1 })).toEqual([
      { run_id: second.run_id, status: 'success' },
    ]);
  });

  it('wait creates and waits on a thread and stateless; raises the run’s error', async () => {
    const thread = await client.threads.create();
    const values = (await client.runs.wait(thread.thread_id, 'chat', { input: ask('wait') })) as Values;
    expect(values.messages.at(-1)?.content).toBe('You said: wait');
    const stateless = (await client.runs.wait(null, 'chat', { input: ask('alone') })) as Values;
    expect(stateless.messages.at(-1)?.content).toBe('You said: alone');
    await expect(
      client.runs.wait(null, 'chat', { input: ask('fail'), config: { configurable: { model_error: 'model is down' } } }),
    ).rejects.toThrow(/model is down/);
  });

  it('joinStream follows a running run from where it is to its end', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'chat', {
      input: ask('follow me'),
      config: { configurable: { reply_tokens: 20, token_delay_ms: 5 } },
    });
    await untilRunning(thread.thread_id, run.run_id);
    const chunks = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: ['values', 'messages-tuple'] }));
    expect(chunks[0]).toMatchObject({ event: 'metadata', data: { run_id: run.run_id } });
    expect(chunks.some((chunk) => chunk.event === 'messages')).toBe(true);
    const last = chunks.filter((chunk) => chunk.event === 'values').at(-1)?.data as Values;
    expect(last.messages.map((message) => message.type)).toEqual(['human', 'ai']);
  });

  it('delete removes an ended run; a running one cannot be deleted', async () => {
    const thread = await client.threads.create();
    const ended = await client.runs.create(thread.thread_id, 'chat', { input: ask('done') });
    await client.runs.join(thread.thread_id, ended.run_id);
    await client.runs.delete(thread.thread_id, ended.run_id);
    await expect(client.runs.get(thread.thread_id, ended.run_id)).rejects.toThrow(/404/);
    const running = await client.runs.create(thread.thread_id, 'chat', { input: ask('busy'), config: slow });
    await untilRunning(thread.thread_id, running.run_id);
    await expect(client.runs.delete(thread.thread_id, running.run_id)).rejects.toThrow(/409/);
    await client.runs.cancel(thread.thread_id, running.run_id, true);
  });

  it('createBatch starts stateless background runs, one per payload', async () => {
    const created = await client.runs.createBatch([
      { assistantId: 'chat', input: ask('one') },
      { assistantId: 'research', input: ask('two') },
    ]);
    expect(created).toHaveLength(2);
    expect(created.map((run) => run.thread_id)).toEqual([null, null]);
    expect(new Set(created.map((run) => run.run_id)).size).toBe(2);
  });

  it('createBatch checks every payload before starting any: a 422 names the payload at fault', async () => {
    const bad = client.runs.createBatch([
      { assistantId: 'chat', input: ask('fine') },
      { assistantId: 'chat', input: ask('too long'), config: { configurable: { reply_tokens: 0 } } },
    ]);
    await expect(bad).rejects.toThrow(/422.*"body",1,"config","configurable","reply_tokens"/);
  });
});

describe('cancel', () => {
  it('interrupt: the run ends interrupted, what it wrote before stays', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'chat', { input: ask('stop me'), config: slow });
    await untilRunning(thread.thread_id, run.run_id);
    await client.runs.cancel(thread.thread_id, run.run_id, true, 'interrupt');
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('interrupted');
    expect(await conversation(thread.thread_id)).toEqual(['human: stop me']);
  });

  it('rollback: the run and what it wrote are gone', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'chat', { input: ask('undo me'), config: slow });
    await untilRunning(thread.thread_id, run.run_id);
    await client.runs.cancel(thread.thread_id, run.run_id, true, 'rollback');
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
    expect(await conversation(thread.thread_id)).toEqual([]);
  });

  it('cancelMany: the given runs of a thread, or every pending run', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, 'chat', { input: ask('first'), config: slow });
    const second = await client.runs.create(thread.thread_id, 'chat', { input: ask('second'), config: slow });
    await untilRunning(thread.thread_id, first.run_id);
    await client.runs.cancelMany({ threadId: thread.thread_id, runIds: [second.run_id] });
    await waitFor(async () => (await client.runs.get(thread.thread_id, second.run_id)).status === 'interrupted');
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('running');
    await client.runs.cancelMany({ threadId: thread.thread_id, runIds: [first.run_id], action: 'interrupt' });
    await waitFor(async () => (await client.runs.get(thread.thread_id, first.run_id)).status === 'interrupted');
  });

  it('cancelMany by status: pending runs only, then all with rollback; neither runs nor status is a 422', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, 'chat', { input: ask('first'), config: slow });
    const second = await client.runs.create(thread.thread_id, 'chat', { input: ask('second'), config: slow });
    await untilRunning(thread.thread_id, first.run_id);
    await client.runs.cancelMany({ status: 'pending' });
    await waitFor(async () => (await client.runs.get(thread.thread_id, second.run_id)).status === 'interrupted');
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('running');
    await client.runs.cancelMany({ status: 'all', action: 'rollback' });
    await waitFor(async () => (await client.runs.list(thread.thread_id)).every((run) => run.run_id !== first.run_id));
    await expect(client.runs.cancelMany({ threadId: thread.thread_id })).rejects.toThrow(/422/);
  });
});

describe('multitask strategies on a busy thread', () => {
  const busyThread = async () => {
    const thread = await client.threads.create();
    const running = await client.runs.create(thread.thread_id, 'chat', { input: ask('busy run'), config: slow });
    await untilRunning(thread.thread_id, running.run_id);
    return { threadId: thread.thread_id, running };
  };
  const quick = (content: string, multitaskStrategy: 'enqueue' | 'reject' | 'interrupt' | 'rollback') => ({
    input: ask(content),
    multitaskStrategy,
  });

  it('enqueue: the new run waits, then runs after the busy one', async () => {
    const { threadId, running } = await busyThread();
    const queued = await client.runs.create(threadId, 'chat', quick('next', 'enqueue'));
    expect((await client.runs.get(threadId, queued.run_id)).status).toBe('pending');
    await client.runs.join(threadId, queued.run_id);
    expect((await client.runs.get(threadId, running.run_id)).status).toBe('success');
    expect(await conversation(threadId)).toEqual(['human: busy run', 'ai: You said: busy', 'human: next', 'ai: You said: next']);
  });

  it('reject: the new run is refused with 409, the busy one goes on', async () => {
    const { threadId, running } = await busyThread();
    await expect(client.runs.create(threadId, 'chat', quick('refused', 'reject'))).rejects.toThrow(/409/);
    expect((await client.runs.get(threadId, running.run_id)).status).toBe('running');
    await client.runs.cancel(threadId, running.run_id, true);
  });

  it('interrupt: the busy run ends interrupted, its input kept, and the new one runs', async () => {
    const { threadId, running } = await busyThread();
    const values = (await client.runs.wait(threadId, 'chat', quick('instead', 'interrupt'))) as Values;
    expect((await client.runs.get(threadId, running.run_id)).status).toBe('interrupted');
    expect(values.messages.map((message) => message.content)).toEqual(['busy run', 'instead', 'You said: instead']);
  });

  it('rollback: the busy run is deleted with what it wrote, and the new one runs', async () => {
    const { threadId, running } = await busyThread();
    const values = (await client.runs.wait(threadId, 'chat', quick('instead', 'rollback'))) as Values;
    await expect(client.runs.get(threadId, running.run_id)).rejects.toThrow(/404/);
    expect(values.messages.map((message) => message.content)).toEqual(['instead', 'You said: instead']);
  });
});
