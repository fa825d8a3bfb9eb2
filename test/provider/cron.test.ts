/**
 * `agentplatform_cron` through the real terraform against the local platform on a manual clock: create, an empty
 * plan, the cron firing as the clock moves (a run on its thread), an in-place update, a schedule refused at plan,
 * import, a cron gone from the agent server, and destroy.
 */
import { AgentServerClient } from '../../lib/api/agent-server';
import { ManualClock } from '../../lib/local/clock';
import { TestPlatform, until, type DeploymentDir } from './support/deployment-platform';

const MINUTE = 60_000;
const clock = new ManualClock(Date.UTC(2032, 2, 1, 8, 0, 30));
let lp: TestPlatform;
let deploymentId: string;
let agent: AgentServerClient;

beforeAll(async () => {
  lp = await TestPlatform.start(undefined, clock);
  const created = await lp.client.createDeployment({ name: lp.uniqueName('cron'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
  deploymentId = created.id;
  // the revision pipeline moves on the manual clock only
  const served = await until(async () => {
    clock.advance(1_000);
    return (await lp.client.getDeployment(deploymentId)).url !== null;
  });
  expect(served).toBe(true);
  const { url } = await lp.client.getDeployment(deploymentId);
  agent = new AgentServerClient({ baseUrl: url!, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey }, retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await agent.close();
  await lp.close();
});

interface CronSettings {
  readonly schedule: string;
  readonly metadata?: string;
  readonly threadId: string;
}

const cronConfig = ({ schedule, metadata, threadId }: CronSettings): string => `
resource "agentplatform_cron" "tick" {
  deployment_id = "${deploymentId}"
  assistant_id  = "chat"
  thread_id     = "${threadId}"
  schedule      = "${schedule}"
  input         = jsonencode({ messages = [{ role = "user", content = "tick" }] })
${metadata ? `  metadata      = ${metadata}\n` : ''}}
`;

const cronsOf = async (threadId: string) => agent.crons.search({ thread_id: threadId });

async function applied(dir: DeploymentDir, ...args: string[]): Promise<string> {
  const result = await dir.apply(...args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

describe('agentplatform_cron', () => {
  it('is created, runs on the platform clock, updates in place, imports, and is destroyed', async () => {
    const thread = await agent.threads.create();
    const dir = lp.terraform();
    const settings = { schedule: '*/5 * * * *', metadata: 'jsonencode({ team = "support", tier = 1 })', threadId: thread.thread_id };
    dir.configure(cronConfig(settings));
    expect((await dir.init()).code).toBe(0);
    expect(await applied(dir)).toContain('1 added, 0 changed, 0 destroyed');

    const state = dir.instance('agentplatform_cron.tick').attributes;
    const [cron] = await cronsOf(thread.thread_id);
    expect(state).toMatchObject({
      cron_id: cron!.cron_id,
      assistant_id: 'chat',
      schedule: '*/5 * * * *',
      next_run_date: new Date(Date.UTC(2032, 2, 1, 8, 5)).toISOString(),
    });
    expect(cron).toMatchObject({ schedule: '*/5 * * * *', metadata: { team: 'support', tier: 1 } });
    expect(state.metadata).toBe('{"team":"support","tier":1}');
    expect((await dir.plan()).code).toBe(0);

    // the cron fires on the platform's clock: a run on its thread, carrying its id
    clock.advance(5 * MINUTE);
    const ran = await until(async () => (await agent.runs.list(thread.thread_id)).some((run) => run.status === 'success'));
    expect(ran).toBe(true);
    const [run] = await agent.runs.list(thread.thread_id);
    expect(run!.metadata).toMatchObject({ cron_id: cron!.cron_id, team: 'support' });
    // the refresh reads the next run date the firing moved; nothing to change
    expect((await dir.plan()).code).toBe(0);

    dir.configure(cronConfig({ ...settings, schedule: '0 * * * *', metadata: 'jsonencode({ team = "support", tier = 2 })' }));
    expect(await applied(dir)).toContain('0 added, 1 changed, 0 destroyed');
    const [updated] = await cronsOf(thread.thread_id);
    expect(updated).toMatchObject({ cron_id: cron!.cron_id, schedule: '0 * * * *', metadata: { team: 'support', tier: 2 } });
    expect(dir.instance('agentplatform_cron.tick').attributes.next_run_date).toBe(new Date(Date.UTC(2032, 2, 1, 9, 0)).toISOString());
    expect((await dir.plan()).code).toBe(0);

    // a key removed from the metadata cannot be removed by an update, which merges: the cron is replaced
    dir.configure(cronConfig({ ...settings, schedule: '0 * * * *', metadata: 'jsonencode({ team = "support" })' }));
    const replacing = await dir.plan();
    expect(replacing.code).toBe(2);
    expect(replacing.stdout).toContain('must be replaced');
    dir.configure(cronConfig({ ...settings, schedule: '0 * * * *', metadata: 'jsonencode({ team = "support", tier = 2 })' }));

    // imported elsewhere by <deployment_id>/<cron_id>: only the assistant's name is recorded, with no request
    const other = lp.terraform();
    other.configure(cronConfig({ ...settings, schedule: '0 * * * *', metadata: 'jsonencode({ tier = 2, team = "support" })' }));
    expect((await other.init()).code).toBe(0);
    const imported = await other.tf.run(['import', '-input=false', '-no-color', 'agentplatform_cron.tick', `${deploymentId}/${cron!.cron_id}`]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const afterImport = await other.plan();
    expect(afterImport.code).toBe(2);
    expect(afterImport.stdout).toContain('0 to add, 1 to change, 0 to destroy');
    await applied(other);
    expect((await other.plan()).code).toBe(0);

    // destroyed there, the cron is gone; here the refresh drops it from state and plans it anew
    expect((await other.destroy()).code).toBe(0);
    expect(await cronsOf(thread.thread_id)).toEqual([]);
    const gone = await dir.plan();
    expect(gone.code).toBe(2);
    expect(gone.stdout).toContain('1 to add, 0 to change, 0 to destroy');

    expect(await applied(dir)).toContain('1 added');
    expect(await cronsOf(thread.thread_id)).toHaveLength(1);
    expect((await dir.destroy()).code).toBe(0);
    expect(await cronsOf(thread.thread_id)).toEqual([]);
  }, 300_000);

  it('refuses at plan a schedule that is not five fields in range, naming the field', async () => {
    const thread = await agent.threads.create();
    const dir = lp.terraform();
    dir.configure(cronConfig({ schedule: '61 * * * *', threadId: thread.thread_id }));
    expect((await dir.init()).code).toBe(0);
    const outOfRange = await dir.plan();
    expect(outOfRange.code).toBe(1);
    expect(outOfRange.stderr).toContain('invalid minute field "61": values go from 0 to 59');
    expect(outOfRange.stderr).toContain('schedule');

    dir.configure(cronConfig({ schedule: '0 9 * *', threadId: thread.thread_id }));
    const fourFields = await dir.plan();
    expect(fourFields.code).toBe(1);
    expect(fourFields.stderr).toContain('a cron expression has 5 fields');
    expect(fourFields.stderr).toContain('Write five fields');
    expect(await cronsOf(thread.thread_id)).toEqual([]);
  });
});
