/**
 * `agentplatform_deployment`'s post-deploy check (`smoke_test`) through the real terraform against the local
 * platform: a check that passes runs once per revision (and again when its settings change); one that fails names the
 * revision and the run's error, and after a fix the next apply passes on the same deployment, never replacing it; a
 * check that could not run (the revision not DEPLOYED yet) runs on the next apply.
 */
import { AgentServerClient } from '../../lib/api/agent-server';
import { ManualClock } from '../../lib/local/clock';
import { FAST_TIMINGS, TestPlatform, githubDeployment, type DeploymentDir } from './support/deployment-platform';

// each test runs terraform many times over (a provider process each): more than the default under a loaded machine
jest.setTimeout(240_000);

/** A pattern of these words, whatever terraform wraps between them. */
const words = (text: string): RegExp => new RegExp(text.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'));

const PING = 'jsonencode({ messages = [{ role = "user", content = "ping" }] })';

/** A `smoke_test` block of these settings (string values quoted, `input` the ping). */
function smokeTest(settings: Record<string, string>): string {
  const lines = Object.entries(settings).map(([key, value]) => `    ${key} = ${JSON.stringify(value)}`);
  return `  smoke_test = {\n    input = ${PING}\n${lines.join('\n')}\n  }\n`;
}

describe('agentplatform_deployment smoke_test', () => {
  let lp: TestPlatform;
  beforeAll(async () => {
    lp = await TestPlatform.start();
  });
  afterAll(() => lp.close());

  /** How many runs were streamed from `deploymentId`'s agent server so far. */
  const runsOf = (deploymentId: string): number => lp.requests.filter((line) => line.startsWith(`POST /deployments/${deploymentId}/runs/stream `)).length;
  const state = (dir: DeploymentDir) => dir.instance('agentplatform_deployment.agent');

  it('runs after a create and after each new revision, not on an apply without one; a change of its settings runs it again', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('smoke');
    const configure = (attributes: Record<string, string>, check: Record<string, string>) =>
      dir.configure(githubDeployment('agent', { name, ...attributes }, smokeTest(check)));
    configure({}, { assistant_id: 'chat', expect_contains: 'You said: ping' });
    expect((await dir.init()).code).toBe(0);

    const createPlan = await dir.plan();
    expect(createPlan.stdout).toMatch(/smoke_test_revision_id\s+= \(known after apply\)/);
    const created = await dir.apply();
    expect(created.stderr).toBe('');
    const first = state(dir).attributes;
    const id = first.id as string;
    expect(first.revision_status).toBe('DEPLOYED');
    expect(first.smoke_test_revision_id).toBe(first.latest_revision_id);
    expect(runsOf(id)).toBe(1);

    // Passed on this revision: nothing to plan, nothing run again.
    expect((await dir.plan()).code).toBe(0);
    expect((await dir.apply()).stdout).toContain('Resources: 0 added, 0 changed, 0 destroyed');
    expect(runsOf(id)).toBe(1);

    // A new revision: the plan shows the check will run, and the apply runs it on that revision.
    configure({ repo_ref: 'release-2' }, { assistant_id: 'chat', expect_contains: 'You said: ping' });
    const revisionPlan = await dir.plan();
    expect(revisionPlan.code).toBe(2);
    expect(revisionPlan.stdout).toMatch(/smoke_test_revision_id\s+= "[0-9a-f-]{36}" -> \(known after apply\)/);
    expect((await dir.apply()).code).toBe(0);
    const second = state(dir).attributes;
    expect(second.latest_revision_id).not.toBe(first.latest_revision_id);
    expect(second.smoke_test_revision_id).toBe(second.latest_revision_id);
    expect(runsOf(id)).toBe(2);

    // A change of the check alone runs it again on the same revision, in place.
    configure({ repo_ref: 'release-2' }, { assistant_id: 'chat', expect_contains: 'ping', timeout: '1m' });
    const settingsPlan = await dir.plan();
    expect(settingsPlan.stdout).toContain('1 to change, 0 to destroy');
    expect((await dir.apply()).code).toBe(0);
    expect(state(dir).attributes).toMatchObject({ id, latest_revision_id: second.latest_revision_id, smoke_test_revision_id: second.latest_revision_id });
    expect(runsOf(id)).toBe(3);
    expect((await dir.plan()).code).toBe(0);

    // Imported into a fresh state, the deployment has no passed check: one in-place update runs it, nothing is replaced.
    expect((await dir.tf.run(['state', 'rm', '-no-color', 'agentplatform_deployment.agent'])).code).toBe(0);
    expect((await dir.tf.run(['import', '-input=false', '-no-color', 'agentplatform_deployment.agent', id])).code).toBe(0);
    const importPlan = await dir.plan();
    expect(importPlan.stdout).toMatch(/smoke_test_revision_id\s+= \(known after apply\)/);
    expect(importPlan.stdout).toContain('0 to add, 1 to change, 0 to destroy');
    expect((await dir.apply()).code).toBe(0);
    expect(state(dir).attributes).toMatchObject({ id, smoke_test_revision_id: second.latest_revision_id });
    expect(runsOf(id)).toBe(4);
    expect((await dir.plan()).code).toBe(0);
  });

  it('fails the apply naming the revision and the run\'s error; fixed, the next apply passes on the same deployment', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('smoke-fail');
    const configure = (check: Record<string, string>) => dir.configure(githubDeployment('agent', { name }, smokeTest(check)));

    // On create, a failed check fails the apply and terraform taints the deployment; untainted, the next plan runs
    // the check again in place.
    configure({ assistant_id: 'chat', expect_contains: 'goodbye' });
    expect((await dir.init()).code).toBe(0);
    const created = await dir.apply();
    expect(created.code).toBe(1);
    const first = state(dir);
    const id = first.attributes.id as string;
    const revision = first.attributes.latest_revision_id as string;
    expect(first.status).toBe('tainted');
    expect(first.attributes.smoke_test_revision_id).toBeNull();
    expect(created.stderr).toContain(`smoke_test failed on revision ${revision}`);
    expect(created.stderr).toMatch(words('does not contain "goodbye": "You said: ping".'));
    expect(created.stderr).toMatch(words('terraform marks it tainted, so the next apply replaces it.'));
    expect((await dir.plan()).stdout).toContain('is tainted, so must be replaced');
    expect((await dir.tf.run(['untaint', '-no-color', 'agentplatform_deployment.agent'])).code).toBe(0);
    const again = await dir.plan();
    expect(again.code).toBe(2);
    expect(again.stdout).toContain('will be updated in-place');
    expect(again.stdout).not.toContain('must be replaced');

    // An assistant whose model fails: the update's check fails the apply with the run's error.
    const agents = new AgentServerClient({ baseUrl: first.attributes.url as string, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey } });
    try {
      const broken = await agents.assistants.create({ graph_id: 'chat', config: { configurable: { model_error: 'the model is down' } } });
      configure({ assistant_id: broken.assistant_id });
      const failed = await dir.apply();
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`smoke_test failed on revision ${revision}`);
      expect(failed.stderr).toMatch(words('failed: FakeModelError: the model is down.'));
      expect(state(dir).attributes).toMatchObject({ id, latest_revision_id: revision, smoke_test_revision_id: null });

      // A run that outlasts `timeout` fails too.
      const slow = await agents.assistants.create({ graph_id: 'chat', config: { configurable: { reply_tokens: 50, token_delay_ms: 2000 } } });
      configure({ assistant_id: slow.assistant_id, timeout: '1s' });
      const late = await dir.apply();
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(words('did not finish within 1s (`timeout`).'));
    } finally {
      await agents.close();
    }

    // Fixed: the next apply runs the check again and passes, on the deployment and revision it had.
    configure({ assistant_id: 'chat', expect_contains: 'You said: ping' });
    const fixed = await dir.apply();
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('0 added, 1 changed, 0 destroyed');
    expect(state(dir).attributes).toMatchObject({ id, latest_revision_id: revision, smoke_test_revision_id: revision });
    expect((await lp.client.listDeployments({ nameContains: name })).resources.map((d) => d.id)).toEqual([id]);
    expect((await dir.plan()).code).toBe(0);
  });

  it('refuses an input that is not a JSON object at plan', async () => {
    const dir = lp.terraform();
    dir.configure(githubDeployment('agent', { name: lp.uniqueName('smoke-bad') }, '  smoke_test = {\n    assistant_id = "chat"\n    input = "[1, 2]"\n  }\n'));
    expect((await dir.init()).code).toBe(0);
    const planned = await dir.plan();
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('Invalid smoke_test.input');
    expect(planned.stderr).toContain('must be a JSON object');
  });
});

describe('agentplatform_deployment smoke_test without waiting for DEPLOYED', () => {
  // the platform's clock moves only when told: the revision stays where the create left it until the test moves it
  const clock = new ManualClock();
  let lp: TestPlatform;
  beforeAll(async () => {
    lp = await TestPlatform.start(FAST_TIMINGS, clock);
  });
  afterAll(() => lp.close());

  it('leaves the check to the next apply, which runs it once the revision is DEPLOYED', async () => {
    const dir = lp.terraform();
    dir.configure(githubDeployment('agent', { name: lp.uniqueName('smoke-nowait'), wait_for_deployed: false }, smokeTest({ assistant_id: 'chat' })));
    expect((await dir.init()).code).toBe(0);
    const created = await dir.apply();
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('smoke_test did not run');
    const first = dir.instance('agentplatform_deployment.agent').attributes;
    expect(first.revision_status).not.toBe('DEPLOYED');
    expect(first.smoke_test_revision_id).toBeNull();

    clock.advance(60_000);
    expect((await lp.client.getDeployment(first.id as string)).active_revision_id).toBe(first.latest_revision_id);
    const next = await dir.apply();
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('0 added, 1 changed, 0 destroyed');
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ id: first.id, smoke_test_revision_id: first.latest_revision_id });
    expect((await dir.plan()).code).toBe(0);
  });
});
