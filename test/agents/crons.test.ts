/** Crons on the platform's injectable clock: on a thread and stateless, searched, ended, deleted. */
import { ValidationError } from '../../lib/api/errors';
import type { AgentServerClient } from '../../lib/api/agent-server';
import type { CronAnswer as Cron } from '../../lib/api/schemas/agent-server-crons';
import { ManualClock } from '../../lib/local/clock';
import { CronExpression } from '../../lib/api/cron-expression';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

const MINUTE = 60_000;
const clock = new ManualClock(Date.UTC(2030, 0, 1, 0, 0, 30));
let platform: AgentTestPlatform;
let client: AgentServerClient;
let deploymentName: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform({ clock });
  const deployment = await platform.deploy('cron-agent');
  deploymentName = deployment.name;
  client = platform.client(deployment);
});
afterAll(() => platform.close());

/** Root traces of the deployment's runs: every run, stateless ones included, is traced once. */
const rootTraces = (): number =>
  (
    platform.db
      .prepare(
        `SELECT count(*) AS n FROM trace_runs r JOIN tracing_sessions s ON s.id = r.session_id
         WHERE s.name = ? AND r.parent_run_id IS NULL`,
      )
      .get(deploymentName) as { n: number }
  ).n;

describe('a cron on a thread', () => {
  it('runs on its schedule as the clock moves, each run on the thread, until deleted', async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.create(thread.thread_id, {
      assistant_id: 'chat',
      schedule: '*/5 * * * *',
      input: { messages: [{ role: 'user', content: 'tick' }] },
      metadata: { purpose: 'test' },
    });
    expect(cron.next_run_date).toBe(new Date(Date.UTC(2030, 0, 1, 0, 5)).toISOString());
    expect(await client.runs.list(thread.thread_id)).toEqual([]);

    clock.advance(5 * MINUTE);
    await waitFor(async () => (await client.runs.list(thread.thread_id)).some((run) => run.status === 'success'));
    clock.advance(10 * MINUTE);
    const runs = await waitFor(async () => {
      const all = await client.runs.list(thread.thread_id);
      return all.length === 3 && all.every((run) => run.status === 'success') && all;
    });
    expect(runs.map((run) => run.metadata)).toEqual(Array(3).fill({ purpose: 'test', cron_id: cron.cron_id }));
    const [listed] = await client.crons.search({ thread_id: thread.thread_id });
    expect(listed.next_run_date).toBe(new Date(Date.UTC(2030, 0, 1, 0, 20)).toISOString());

    await client.crons.delete(cron.cron_id);
    clock.advance(30 * MINUTE);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await client.runs.list(thread.thread_id)).toHaveLength(3);
    expect(await client.crons.search({ thread_id: thread.thread_id })).toEqual([]);
  });
});

describe('a stateless cron', () => {
  it('starts a stateless run each time it fires, and stops after its end_time', async () => {
    const start = clock.now();
    const before = rootTraces();
    const cron = await client.crons.create(null, {
      assistant_id: 'chat',
      schedule: '0 * * * *',
      input: { messages: [{ role: 'user', content: 'hourly' }] },
      end_time: new Date(start + 90 * MINUTE).toISOString(),
    });
    expect((await client.crons.search({ assistant_id: 'chat' })).map((found) => found.cron_id)).toContain(cron.cron_id);
    clock.advance(4 * 60 * MINUTE);
    // Only the hours before end_time fire.
    await waitFor(() => rootTraces() === before + 2);
    const [stored] = (await client.crons.search()).filter((found) => found.cron_id === cron.cron_id);
    expect(stored.next_run_date).toBeNull();
  });

  it('refuses a schedule that does not parse, naming the field', async () => {
    await expect(client.crons.create(null, { assistant_id: 'chat', schedule: '61 * * * *' })).rejects.toMatchObject({
      constructor: ValidationError,
      items: [expect.objectContaining({ loc: ['body', 'schedule'], msg: expect.stringContaining('minute') })],
    });
  });

  it('refuses an input or config that its runs would fail on, as a run is refused, naming each field', async () => {
    const refused = client.crons.create(null, {
      assistant_id: 'chat',
      schedule: '* * * * *',
      input: { messages: [{ role: 'user', content: 'ok' }, { role: 'robot', content: 'tick' }] },
      config: { configurable: { reply_tokens: 1_000_000_000 } },
    });
    await expect(refused).rejects.toMatchObject({
      constructor: ValidationError,
      items: [
        expect.objectContaining({ loc: ['body', 'input', 'messages', 1], msg: expect.stringContaining('robot') }),
        expect.objectContaining({ loc: ['body', 'config', 'configurable', 'reply_tokens'], msg: 'Value error, reply_tokens must be a whole number from 1 to 100000' }),
      ],
    });
    await expect(client.crons.create(null, { assistant_id: 'chat', schedule: '* * * * *', input: { messages: 'nope' } })).rejects.toMatchObject({
      items: [expect.objectContaining({ loc: ['body', 'input', 'messages'], type: 'list_type' })],
    });
  });
});

describe('deleting what a cron runs on deletes the cron, which would otherwise fail or fire for nothing', () => {
  /** Makes a cron on what `make` returns and one elsewhere, runs `remove`, and checks which is left. */
  async function cronsLeftAfter(make: () => Promise<{ cron: Cron; remove: () => Promise<unknown> }>): Promise<void> {
    const { cron, remove } = await make();
    const kept = await client.crons.create(null, { assistant_id: 'chat', schedule: '0 0 1 1 *' });
    await remove();
    const left = (await client.crons.search()).map((found) => found.cron_id);
    expect(left).not.toContain(cron.cron_id);
    expect(left).toContain(kept.cron_id);
    await client.crons.delete(kept.cron_id);
  }

  it("a thread's", () =>
    cronsLeftAfter(async () => {
      const thread = await client.threads.create();
      const cron = await client.crons.create(thread.thread_id, { assistant_id: 'chat', schedule: '* * * * *' });
      return { cron, remove: () => client.threads.delete(thread.thread_id) };
    }));

  it("an assistant's", () =>
    cronsLeftAfter(async () => {
      const assistant = await client.assistants.create({ graph_id: 'chat' });
      const cron = await client.crons.create(null, { assistant_id: assistant.assistant_id, schedule: '* * * * *' });
      return { cron, remove: () => client.assistants.delete(assistant.assistant_id) };
    }));
});

describe('cron expressions', () => {
  const next = (expression: string, from: string) =>
    new Date(CronExpression.parse(expression).next(Date.parse(from)) as number).toISOString();

  it('step, range, list and name fields', () => {
    expect(next('*/15 * * * *', '2030-01-01T00:07:00Z')).toBe('2030-01-01T00:15:00.000Z');
    expect(next('30 9-17 * * mon-fri', '2030-01-04T17:45:00Z')).toBe('2030-01-07T09:30:00.000Z');
    expect(next('0 0 1,15 * *', '2030-01-02T00:00:00Z')).toBe('2030-01-15T00:00:00.000Z');
    expect(next('0 12 * jun *', '2030-01-01T00:00:00Z')).toBe('2030-06-01T12:00:00.000Z');
  });

  it('day of month or day of week when both are restricted, as cron does', () => {
    // 2030-01-01 is a Tuesday: the next Friday (the 4th) comes before the 13th.
    expect(next('0 0 13 * fri', '2030-01-01T00:00:00Z')).toBe('2030-01-04T00:00:00.000Z');
  });

  it('7 is Sunday, and a schedule that never fires has no next time', () => {
    expect(next('0 0 * * 7', '2030-01-01T00:00:00Z')).toBe('2030-01-06T00:00:00.000Z');
    expect(CronExpression.parse('0 0 30 feb *').next(Date.UTC(2030, 0, 1))).toBeUndefined();
  });
});
