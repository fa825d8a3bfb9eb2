/**
 * The official LangGraph JS client's `crons` methods against the local agent server: create (stateless and on a
 * thread), search (filters, metadata, paging), count, update, delete; the crons fire on the platform's clock.
 */
import { Client } from '@langchain/langgraph-sdk';
import { ManualClock } from '../../lib/local/clock';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

const MINUTE = 60_000;
const clock = new ManualClock(Date.UTC(2031, 5, 1, 12, 0, 30));
let platform: AgentTestPlatform;
let sdk: Client;

beforeAll(async () => {
  platform = await startAgentTestPlatform({ clock });
  const deployment = await platform.deploy('sdk-cron-agent');
  sdk = new Client({ apiUrl: deployment.url as string, defaultHeaders: { 'X-Api-Key': platform.apiKey } });
});
afterAll(() => platform.close());

const input = (content: string) => ({ messages: [{ role: 'user', content }] });

test('create makes a stateless cron that fires on its schedule; delete ends it', async () => {
  const cron = await sdk.crons.create('chat', { schedule: '*/10 * * * *', input: input('tick'), metadata: { kind: 'stateless' } });
  expect(cron).toMatchObject({ schedule: '*/10 * * * *', thread_id: null, metadata: { kind: 'stateless' } });
  expect(cron.next_run_date).toBe(new Date(Date.UTC(2031, 5, 1, 12, 10)).toISOString());
  expect(cron.payload).toMatchObject({ input: input('tick') });

  clock.advance(10 * MINUTE);
  const [fired] = await sdk.crons.search({ metadata: { kind: 'stateless' } });
  expect(fired.next_run_date).toBe(new Date(Date.UTC(2031, 5, 1, 12, 20)).toISOString());

  await sdk.crons.delete(cron.cron_id);
  expect(await sdk.crons.search({ metadata: { kind: 'stateless' } })).toEqual([]);
  await expect(sdk.crons.delete(cron.cron_id)).rejects.toMatchObject({ status: 404 });
});

test('createForThread makes a cron whose runs go on the thread', async () => {
  const thread = await sdk.threads.create();
  const cron = await sdk.crons.createForThread(thread.thread_id, 'chat', { schedule: '0 * * * *', input: input('hourly') });
  expect(cron.thread_id).toBe(thread.thread_id);

  clock.advance(60 * MINUTE);
  const runs = await waitFor(async () => {
    const listed = await sdk.runs.list(thread.thread_id);
    return listed.length === 1 && listed[0].status === 'success' && listed;
  });
  expect(runs[0].metadata).toMatchObject({ cron_id: cron.cron_id });
  await sdk.crons.delete(cron.cron_id);
});

test('search filters by assistant, thread and metadata and pages; count counts the same', async () => {
  const thread = await sdk.threads.create();
  const made = [];
  for (const team of ['a', 'a', 'b']) {
    made.push(await sdk.crons.createForThread(thread.thread_id, 'chat', { schedule: '0 0 * * *', metadata: { team } }));
  }
  const ids = (crons: { cron_id: string }[]) => crons.map((cron) => cron.cron_id);
  expect(ids(await sdk.crons.search({ threadId: thread.thread_id }))).toEqual(ids(made));
  expect(ids(await sdk.crons.search({ threadId: thread.thread_id, metadata: { team: 'a' } }))).toEqual(ids(made.slice(0, 2)));
  expect(ids(await sdk.crons.search({ threadId: thread.thread_id, limit: 2, offset: 1 }))).toEqual(ids(made.slice(1)));
  expect(ids(await sdk.crons.search({ assistantId: made[0].assistant_id, threadId: thread.thread_id }))).toEqual(ids(made));
  expect(await sdk.crons.search({ assistantId: 'no-such-graph' })).toEqual([]);

  expect(await sdk.crons.count({ threadId: thread.thread_id })).toBe(3);
  expect(await sdk.crons.count({ threadId: thread.thread_id, metadata: { team: 'b' } })).toBe(1);
  expect(await sdk.crons.count({ assistantId: 'chat', threadId: thread.thread_id, metadata: { team: 'c' } })).toBe(0);
  for (const cron of made) await sdk.crons.delete(cron.cron_id);
  expect(await sdk.crons.count({ threadId: thread.thread_id })).toBe(0);
});

test('update changes the schedule (next run from now), the input, and merges the metadata', async () => {
  const cron = await sdk.crons.create('chat', { schedule: '0 0 * * *', input: input('daily'), metadata: { keep: 1, change: 'old' } });
  const updated = await sdk.crons.update(cron.cron_id, {
    schedule: '30 * * * *',
    input: input('half past'),
    metadata: { change: 'new', added: true },
  });
  expect(updated).toMatchObject({
    cron_id: cron.cron_id,
    schedule: '30 * * * *',
    metadata: { keep: 1, change: 'new', added: true },
    payload: { input: input('half past') },
  });
  const hour = Math.floor(clock.now() / (60 * MINUTE)) * 60 * MINUTE;
  const halfPast = hour + 30 * MINUTE > clock.now() ? hour + 30 * MINUTE : hour + 90 * MINUTE;
  expect(updated.next_run_date).toBe(new Date(halfPast).toISOString());

  // a field left out keeps its value
  const renamed = await sdk.crons.update(cron.cron_id, { metadata: { keep: 2 } });
  expect(renamed).toMatchObject({ schedule: '30 * * * *', payload: { input: input('half past') }, next_run_date: updated.next_run_date });

  await expect(sdk.crons.update(cron.cron_id, { schedule: '0 25 * * *' })).rejects.toMatchObject({ status: 422 });
  await sdk.crons.delete(cron.cron_id);
  await expect(sdk.crons.update(cron.cron_id, { schedule: '0 * * * *' })).rejects.toMatchObject({ status: 404 });
});
