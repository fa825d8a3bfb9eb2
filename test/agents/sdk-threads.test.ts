/**
 * Threads of a deployment's agent server as the official LangGraph JS client calls them: create (a given id,
 * `ifExists`, a graph), get, update, copy, search, count, prune and delete; the state now and at a checkpoint, the
 * history, a state written by hand and a checkpoint's metadata patched.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: Client;

interface Message {
  type: string;
  content: string;
  id: string;
}
type ChatValues = { messages: Message[] };

const status = (code: number) => expect.objectContaining({ status: code });
const texts = (values: unknown) => ((values as ChatValues).messages ?? []).map((message) => `${message.type}: ${message.content}`);

/** A thread with one finished run of `chat` on it. */
async function threadWithRun(metadata: Record<string, unknown> = {}, question = 'hello') {
  const thread = await client.threads.create({ metadata });
  await client.runs.wait(thread.thread_id, 'chat', { input: { messages: [{ role: 'user', content: question }] } });
  return thread;
}

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('sdk-threads');
  client = new Client({
    apiUrl: deployment.url as string,
    defaultHeaders: { 'X-Api-Key': platform.apiKey },
    callerOptions: { maxRetries: 0 },
  });
});
afterAll(() => platform.close());

test('a thread is created with a given id (again: 409, or the same with ifExists do_nothing), read and deleted', async () => {
  const threadId = randomUUID();
  const created = await client.threads.create({ threadId, metadata: { team: 'a' }, graphId: 'chat' });
  expect(created).toMatchObject({
    thread_id: threadId,
    status: 'idle',
    metadata: { team: 'a', graph_id: 'chat' },
    values: null,
    interrupts: {},
    state_updated_at: created.created_at,
  });
  await expect(client.threads.create({ threadId })).rejects.toEqual(status(409));
  expect(await client.threads.create({ threadId, ifExists: 'do_nothing', metadata: { team: 'b' } })).toEqual(created);
  expect(await client.threads.get(threadId)).toEqual(created);

  await client.threads.delete(threadId);
  await expect(client.threads.get(threadId)).rejects.toEqual(status(404));
});

test('an update merges metadata into the thread; with returnMinimal it answers nothing', async () => {
  const thread = await client.threads.create({ metadata: { team: 'a', tier: 1 } });
  const updated = await client.threads.update(thread.thread_id, { metadata: { tier: 2, region: 'eu' } });
  expect(updated).toMatchObject({ thread_id: thread.thread_id, metadata: { team: 'a', tier: 2, region: 'eu' } });
  expect(await client.threads.update(thread.thread_id, { metadata: { tier: 3 }, returnMinimal: true })).toBeUndefined();
  expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ team: 'a', tier: 3, region: 'eu' });
  await expect(client.threads.update(randomUUID(), { metadata: {} })).rejects.toEqual(status(404));
});

test('search finds threads by metadata, values, status and ids, in pages; count counts them', async () => {
  const tag = randomUUID();
  const first = await threadWithRun({ tag, kind: 'x' }, 'first question');
  const second = await client.threads.create({ metadata: { tag, kind: 'x' } });
  const third = await client.threads.create({ metadata: { tag, kind: 'y' } });

  const ids = async (query: Parameters<Client['threads']['search']>[0]) =>
    (await client.threads.search(query)).map((thread) => thread.thread_id);
  expect(await ids({ metadata: { tag } })).toEqual([third.thread_id, second.thread_id, first.thread_id]);
  expect(await ids({ metadata: { tag }, sortBy: 'created_at', sortOrder: 'asc', limit: 2 })).toEqual([first.thread_id, second.thread_id]);
  expect(await ids({ metadata: { tag }, limit: 2, offset: 2 })).toEqual([first.thread_id]);
  expect(await ids({ metadata: { tag, kind: 'x' } })).toEqual([second.thread_id, first.thread_id]);
  expect(await ids({ metadata: { tag }, ids: [first.thread_id, third.thread_id] })).toEqual([third.thread_id, first.thread_id]);
  const firstValues = (await client.threads.get(first.thread_id)).values as Record<string, unknown>;
  expect(await ids({ metadata: { tag }, values: firstValues })).toEqual([first.thread_id]);

  expect(await client.threads.count({ metadata: { tag } })).toBe(3);
  expect(await client.threads.count({ metadata: { tag, kind: 'y' } })).toBe(1);
  expect(await client.threads.count({ metadata: { tag }, status: 'busy' })).toBe(0);
});

test('the state after a run, its history (limit, before, metadata) and the state at each checkpoint', async () => {
  const thread = await threadWithRun({}, 'what is up');
  const state = await client.threads.getState<ChatValues>(thread.thread_id);
  expect(texts(state.values)).toEqual(['human: what is up', 'ai: You said: what is up']);
  expect(state.checkpoint).toMatchObject({ thread_id: thread.thread_id, checkpoint_ns: '', checkpoint_id: expect.any(String) });

  const history = await client.threads.getHistory<ChatValues>(thread.thread_id);
  expect(history.length).toBeGreaterThanOrEqual(2);
  expect(history[0].checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
  expect(history[1].checkpoint.checkpoint_id).toBe(history[0].parent_checkpoint?.checkpoint_id);
  expect(await client.threads.getHistory(thread.thread_id, { limit: 1 })).toHaveLength(1);
  const older = await client.threads.getHistory(thread.thread_id, { before: { configurable: { checkpoint_id: history[0].checkpoint.checkpoint_id } } });
  expect(older.map((s) => s.checkpoint.checkpoint_id)).toEqual(history.slice(1).map((s) => s.checkpoint.checkpoint_id));
  const inputs = await client.threads.getHistory(thread.thread_id, { metadata: { source: 'input' } });
  expect(inputs.map((s) => s.metadata?.source)).toEqual(inputs.map(() => 'input'));
  expect(inputs.length).toBeGreaterThan(0);

  // at a checkpoint, by its id or by a checkpoint object
  const earlier = history[history.length - 1];
  const byId = await client.threads.getState(thread.thread_id, earlier.checkpoint.checkpoint_id as string);
  expect(byId).toEqual(earlier);
  const byObject = await client.threads.getState(thread.thread_id, { checkpoint_id: earlier.checkpoint.checkpoint_id } as never);
  expect(byObject).toEqual(earlier);
  await expect(client.threads.getState(thread.thread_id, randomUUID())).rejects.toEqual(status(404));

  // select: the fields asked for, values.<key> for one key of the values
  expect(await client.threads.getState(thread.thread_id, undefined, { select: ['values.messages', 'next'] })).toEqual({
    values: { messages: state.values.messages },
    next: state.next,
  });
  expect(await client.threads.getState(thread.thread_id, earlier.checkpoint.checkpoint_id as string, { select: ['checkpoint'] })).toEqual({
    checkpoint: earlier.checkpoint,
  });
  expect(await client.threads.getHistory(thread.thread_id, { limit: 2, select: ['metadata'] })).toEqual(
    history.slice(0, 2).map((s) => ({ metadata: s.metadata })),
  );
  expect(await client.threads.search({ ids: [thread.thread_id], select: ['thread_id', 'status'] })).toEqual([
    { thread_id: thread.thread_id, status: 'idle' },
  ]);
  await expect(client.threads.getState(thread.thread_id, undefined, { select: ['nonsense'] as never })).rejects.toEqual(status(422));
});

test('updateState writes values through the graph as a node; getState and the next run build on them', async () => {
  const thread = await threadWithRun({}, 'hello');
  const before = await client.threads.getState<ChatValues>(thread.thread_id);
  const answer = await client.threads.updateState(thread.thread_id, {
    values: { messages: [{ role: 'assistant', content: 'an answer written by hand' }] },
    asNode: 'agent',
  });
  const checkpointId = answer.configurable?.checkpoint_id as string;
  expect(checkpointId).toEqual(expect.any(String));

  const after = await client.threads.getState<ChatValues>(thread.thread_id);
  expect((await client.threads.get(thread.thread_id)).state_updated_at).toBe(after.created_at);
  // the messages reducer appends
  expect(texts(after.values)).toEqual(['human: hello', 'ai: You said: hello', 'ai: an answer written by hand']);
  expect(after.checkpoint.checkpoint_id).toBe(checkpointId);
  expect(after.parent_checkpoint?.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
  expect(after.metadata).toMatchObject({ source: 'update', step: (before.metadata?.step as number) + 1, writes: { agent: expect.anything() } });
  expect(texts((await client.threads.get(thread.thread_id)).values)).toEqual(texts(after.values));

  await client.runs.wait(thread.thread_id, 'chat', { input: { messages: [{ role: 'user', content: 'again' }] } });
  expect(texts((await client.threads.getState(thread.thread_id)).values)).toEqual([
    'human: hello',
    'ai: You said: hello',
    'ai: an answer written by hand',
    'human: again',
    'ai: You said: again',
  ]);

  // an update on an earlier checkpoint forks from it
  await client.threads.updateState(thread.thread_id, {
    values: { messages: [{ role: 'user', content: 'instead' }] },
    checkpointId: before.checkpoint.checkpoint_id as string,
  });
  expect(texts((await client.threads.getState(thread.thread_id)).values)).toEqual(['human: hello', 'ai: You said: hello', 'human: instead']);

  await expect(client.threads.updateState(thread.thread_id, { values: {}, asNode: 'no-such-node' })).rejects.toEqual(status(422));
});

test('updateState needs the thread\'s graph: from its runs, or the graphId it was created with', async () => {
  const bare = await client.threads.create();
  await expect(client.threads.updateState(bare.thread_id, { values: { messages: [] } })).rejects.toEqual(status(400));
  const withGraph = await client.threads.create({ graphId: 'chat' });
  await client.threads.updateState(withGraph.thread_id, { values: { messages: [{ role: 'user', content: 'seeded' }] } });
  const state = await client.threads.getState(withGraph.thread_id);
  expect(texts(state.values)).toEqual(['human: seeded']);
  expect(state.metadata).toMatchObject({ source: 'update', writes: null });
});

test('a thread is created with its state: one checkpoint per superstep, written through the graph', async () => {
  const threadId = randomUUID();
  const supersteps = [
    { updates: [{ values: { messages: [{ role: 'user', content: 'seeded question' }] }, asNode: 'agent' }] },
    { updates: [{ values: { messages: [{ role: 'assistant', content: 'seeded answer' }] }, asNode: 'agent' }] },
  ];
  const created = await client.threads.create({ threadId, graphId: 'chat', supersteps });
  expect(texts(created.values)).toEqual(['human: seeded question', 'ai: seeded answer']);
  const history = await client.threads.getHistory(threadId);
  expect(history.map((state) => state.metadata?.source)).toEqual(['update', 'update']);
  expect(history[0].parent_checkpoint?.checkpoint_id).toBe(history[1].checkpoint.checkpoint_id);

  // created again with do_nothing: the thread as it is, its state not written twice
  expect(texts((await client.threads.create({ threadId, graphId: 'chat', supersteps, ifExists: 'do_nothing' })).values)).toHaveLength(2);
  expect(await client.threads.getHistory(threadId)).toHaveLength(2);

  // without a graph, or with a node the graph lacks, nothing is made
  const refused = randomUUID();
  await expect(client.threads.create({ threadId: refused, supersteps })).rejects.toEqual(status(400));
  await expect(
    client.threads.create({ threadId: refused, graphId: 'chat', supersteps: [{ updates: [{ values: {}, asNode: 'nope' }] }] }),
  ).rejects.toEqual(status(422));
  await expect(client.threads.get(refused)).rejects.toEqual(status(404));
});

test('patchState merges metadata into the newest checkpoint', async () => {
  const thread = await threadWithRun();
  await expect(client.threads.patchState(thread.thread_id, { reviewed: true, reviewer: 'qa' })).resolves.toBeUndefined();
  const state = await client.threads.getState(thread.thread_id);
  expect(state.metadata).toMatchObject({ reviewed: true, reviewer: 'qa', source: 'loop' });
  await client.threads.patchState({ configurable: { thread_id: thread.thread_id } }, { reviewer: 'ops' });
  expect((await client.threads.getState(thread.thread_id)).metadata).toMatchObject({ reviewed: true, reviewer: 'ops' });
  const empty = await client.threads.create();
  await expect(client.threads.patchState(empty.thread_id, { a: 1 })).rejects.toEqual(status(404));
});

test('a copy is a new thread with the same metadata, values and history; changing one leaves the other', async () => {
  const original = await threadWithRun({ origin: 'copied' }, 'copy me');
  const copy = await client.threads.copy(original.thread_id);
  expect(copy.thread_id).not.toBe(original.thread_id);
  expect(copy).toMatchObject({ metadata: { origin: 'copied' }, status: 'idle' });
  expect(texts(copy.values)).toEqual(texts((await client.threads.get(original.thread_id)).values));
  const [originalHistory, copyHistory] = await Promise.all([
    client.threads.getHistory(original.thread_id, { limit: 100 }),
    client.threads.getHistory(copy.thread_id, { limit: 100 }),
  ]);
  expect(copyHistory.map((s) => s.values)).toEqual(originalHistory.map((s) => s.values));
  expect(copyHistory.map((s) => s.metadata)).toEqual(originalHistory.map((s) => s.metadata));
  expect(copyHistory[0].checkpoint.thread_id).toBe(copy.thread_id);

  await client.runs.wait(copy.thread_id, 'chat', { input: { messages: [{ role: 'user', content: 'only the copy' }] } });
  expect(texts((await client.threads.get(original.thread_id)).values)).toEqual(['human: copy me', 'ai: You said: copy me']);
  await client.threads.delete(original.thread_id);
  expect(texts((await client.threads.get(copy.thread_id)).values)).toHaveLength(4);
});

test('prune deletes threads, or keeps each with its newest checkpoint only', async () => {
  const gone = await threadWithRun();
  const kept = await threadWithRun();
  expect(await client.threads.prune([gone.thread_id, randomUUID()])).toEqual({ pruned_count: 1 });
  await expect(client.threads.get(gone.thread_id)).rejects.toEqual(status(404));

  const values = (await client.threads.getState(kept.thread_id)).values;
  expect(await client.threads.prune([kept.thread_id], { strategy: 'keep_latest' })).toEqual({ pruned_count: 1 });
  const history = await client.threads.getHistory(kept.thread_id);
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({ values, parent_checkpoint: null });
});
