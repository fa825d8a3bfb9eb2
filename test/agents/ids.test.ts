/**
 * Ids of assistants and threads: one namespace for every deployment of the platform, so an id held by another
 * deployment is taken (409) and nothing of its assistant or thread is shown; ids are kept in lower case, as paths are
 * read; and a graph's default assistant, found by deployment and graph, cannot be taken away by another deployment
 * that creates an assistant with its derived id first, and comes back after it was deleted.
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

test("an assistant id of another organization's deployment is taken, and nothing of that assistant is shown", async () => {
  const secret = await mine.assistants.create({ graph_id: 'chat', config: { configurable: { system_prompt: 'ours alone' } } });
  for (const if_exists of ['do_nothing', 'raise'] as const) {
    const err = await conflict(theirs.assistants.create({ graph_id: 'chat', assistant_id: secret.assistant_id, if_exists }));
    expect(JSON.stringify({ message: err.message, body: err.body })).not.toContain('ours alone');
  }
  expect(await mine.assistants.get(secret.assistant_id)).toEqual(secret);
});

test("a graph's default assistant stays its own when another deployment took its derived id first", async () => {
  const deployment = await platform.deploy('ids-late');
  const derived = AssistantStore.defaultAssistantId(deployment.id, 'chat');
  // before the new deployment serves anything, another organization creates an assistant with that id
  const squatter = await theirs.assistants.create({ graph_id: 'chat', assistant_id: derived, metadata: { by: 'them' } });
  expect(squatter.assistant_id).toBe(derived);
  const late = platform.client(deployment);
  const chat = await late.assistants.get('chat');
  expect(chat).toMatchObject({ graph_id: 'chat', metadata: { created_by: 'system' } });
  expect(chat.assistant_id).not.toBe(derived);
  const thread = await late.threads.create();
  const run = await late.runs.create(thread.thread_id, { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'hi' }] } });
  expect(run.assistant_id).toBe(chat.assistant_id);
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
    version: before.version + 1,
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
