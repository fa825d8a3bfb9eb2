/**
 * Ids of assistants and threads are each deployment's own, as on the real platform (one database per deployment):
 * the same id in two deployments names two assistants or threads, neither shown to the other; within a deployment an
 * id is taken (409, or the existing one with `if_exists: "do_nothing"`). Ids are kept in lower case, as paths are read;
 * a graph's default assistant has its derived id whatever other deployments hold, and comes back after it was deleted.
 */
import { ConflictError } from '../../lib/api/errors';
import type { AgentServerClient } from '../../lib/api/agent-server';
import { AssistantStore } from '../../lib/local/agents/store/assistants';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let mine: AgentServerClient;
let mineUrl: string;
let theirs: AgentServerClient;
let theirKey: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  const deployment = await platform.deploy('ids-mine');
  mineUrl = deployment.url as string;
  mine = platform.client(deployment);
  theirKey = platform.createOrganization('another team').apiKey;
  theirs = platform.client(await platform.deploy('ids-theirs', undefined, theirKey), theirKey);
});
afterAll(() => platform.close());

async function conflict(request: Promise<unknown>): Promise<ConflictError> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConflictError);
  return err as ConflictError;
}

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

test('an assistant id used in two deployments names two assistants, neither shown to the other', async () => {
  const ours = await mine.assistants.create({ graph_id: 'chat', config: { configurable: { system_prompt: 'ours alone' } } });
  const id = ours.assistant_id;
  const theirsToo = await theirs.assistants.create({ graph_id: 'chat', assistant_id: id, metadata: { by: 'them' } });
  expect(theirsToo).toMatchObject({ assistant_id: id, metadata: { by: 'them' }, config: {} });
  expect(JSON.stringify(await theirs.assistants.get(id))).not.toContain('ours alone');
  // within a deployment the id is taken: the existing one, or a conflict
  expect(await theirs.assistants.create({ graph_id: 'chat', assistant_id: id, if_exists: 'do_nothing' })).toEqual(theirsToo);
  await conflict(theirs.assistants.create({ graph_id: 'chat', assistant_id: id }));
  // changing and deleting theirs leaves ours as it was
  await theirs.assistants.update(id, { name: 'theirs' });
  await theirs.assistants.delete(id);
  expect(await mine.assistants.get(id)).toEqual(ours);
});

test('a thread id used in two deployments names two threads, each with its own runs and state', async () => {
  const id = '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
  const ours = await mine.threads.create({ thread_id: id, metadata: { owner: 'us' } });
  const theirsToo = await theirs.threads.create({ thread_id: id, metadata: { owner: 'them' } });
  expect(theirsToo).toMatchObject({ thread_id: id, metadata: { owner: 'them' } });
  expect(await theirs.threads.create({ thread_id: id, if_exists: 'do_nothing' })).toMatchObject({ metadata: { owner: 'them' } });
  await conflict(theirs.threads.create({ thread_id: id }));
  // each run streamed to its end
  for await (const chunk of mine.runs.stream(id, { assistant_id: 'chat', input: ask('ours') })) void chunk;
  for await (const chunk of theirs.runs.stream(id, { assistant_id: 'chat', input: ask('theirs') })) void chunk;
  const contents = async (client: AgentServerClient) =>
    ((await client.threads.getState(id)).values as { messages: { content: string }[] }).messages.map((m) => m.content);
  expect(await contents(mine)).toEqual(['ours', 'You said: ours']);
  expect(await contents(theirs)).toEqual(['theirs', 'You said: theirs']);
  expect(await mine.runs.list(id)).toHaveLength(1);
  // deleting theirs leaves ours, its runs and its state
  await theirs.threads.delete(id);
  expect(await mine.threads.get(id)).toMatchObject({ thread_id: id, metadata: { owner: 'us' }, created_at: ours.created_at });
  expect(await contents(mine)).toEqual(['ours', 'You said: ours']);
  expect(await mine.runs.list(id)).toHaveLength(1);
});

test("a graph's default assistant has its derived id, also when another deployment holds an assistant of that id", async () => {
  const deployment = await platform.deploy('ids-late');
  const derived = AssistantStore.defaultAssistantId(deployment.id, 'chat');
  // before the new deployment serves anything, another organization creates an assistant with that id
  const other = await theirs.assistants.create({ graph_id: 'chat', assistant_id: derived, metadata: { by: 'them' } });
  const late = platform.client(deployment);
  const chat = await late.assistants.get('chat');
  expect(chat).toMatchObject({ assistant_id: derived, graph_id: 'chat', metadata: { created_by: 'system' } });
  const thread = await late.threads.create();
  const run = await late.runs.create(thread.thread_id, { assistant_id: 'chat', input: ask('hi') });
  expect(run.assistant_id).toBe(derived);
  expect(await theirs.assistants.get(derived)).toEqual(other);
});

test('a thread or assistant id given in upper case is kept in lower case, and found by its path', async () => {
  const thread = await mine.threads.create({ thread_id: 'FEEDBEEF-1234-4234-8234-123456789012' });
  expect(thread.thread_id).toBe('feedbeef-1234-4234-8234-123456789012');
  expect(await mine.threads.get('FEEDBEEF-1234-4234-8234-123456789012')).toMatchObject({ thread_id: thread.thread_id });
  const assistant = await mine.assistants.create({ graph_id: 'chat', assistant_id: 'ABCDEF01-1234-4234-8234-123456789012' });
  expect(assistant.assistant_id).toBe('abcdef01-1234-4234-8234-123456789012');
  expect(await mine.assistants.get('ABCDEF01-1234-4234-8234-123456789012')).toEqual(assistant);
});

test('a default assistant is changed and deleted by its graph id too; once deleted, the graph gets a new one', async () => {
  const before = await mine.assistants.get('research');
  expect(await mine.assistants.update('research', { metadata: { note: 'tuned' } })).toMatchObject({
    assistant_id: before.assistant_id,
    version: before.version! + 1,
    metadata: { created_by: 'system', note: 'tuned' },
  });
  await mine.assistants.delete('research');
  const again = await mine.assistants.get('research');
  expect(again).toMatchObject({ graph_id: 'research', version: 1, metadata: { created_by: 'system' } });
  const thread = await mine.threads.create();
  const run = await mine.runs.create(thread.thread_id, { assistant_id: 'research', input: { messages: [{ role: 'user', content: 'why?' }] } });
  expect(run.assistant_id).toBe(again.assistant_id);
});

test('a path id that is not a UUID is a 422 at the name the API documents (thread_id, run_id)', async () => {
  const locOf = async (path: string) => {
    const response = await fetch(`${mineUrl}${path}`, { headers: { 'X-Api-Key': platform.apiKey } });
    expect(response.status).toBe(422);
    const { detail } = (await response.json()) as { detail: { loc: string[]; type: string }[] };
    return detail.map((item) => [item.loc.join('.'), item.type]);
  };
  expect(await locOf('/threads/not-a-uuid')).toEqual([['path.thread_id', 'uuid_parsing']]);
  const thread = await mine.threads.create();
  expect(await locOf(`/threads/${thread.thread_id}/runs/not-a-uuid`)).toEqual([['path.run_id', 'uuid_parsing']]);
});
