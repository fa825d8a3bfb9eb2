/**
 * `agentplatform_deployment` when things go wrong, through the real terraform: a failed revision, a name already
 * taken, a create that runs out of time, Ctrl-C during a wait, and terraform killed during a wait. In every case the
 * deployment that exists is in the state, and nothing of the provider outlives terraform.
 */
import { randomUUID } from 'node:crypto';
import { FAST_TIMINGS, TestPlatform, githubDeployment, until } from './support/deployment-platform';
import { collect, eventually, processesWithEnv } from './support/terraform';

/** Terraform wraps diagnostics at 80 columns. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ');

/** Fast until BUILDING, which lasts ten minutes: a create waits there until stopped. */
const STUCK_IN_BUILDING = { ...FAST_TIMINGS, buildingMs: 600_000 };

describe('agentplatform_deployment failures', () => {
  let fast: TestPlatform;
  let slow: TestPlatform;
  beforeAll(async () => {
    [fast, slow] = await Promise.all([TestPlatform.start(), TestPlatform.start(STUCK_IN_BUILDING)]);
  });
  afterAll(() => Promise.all([fast.close(), slow.close()]));

  /** Waits until the platform has a deployment of that name in BUILDING, and the provider has polled it since. */
  async function deploymentWaitedOn(lp: TestPlatform, name: string): Promise<string> {
    let deployment: { id: string; latest_revision_id: string | null } | undefined;
    const created = async () => (deployment = (await lp.client.listDeployments({ nameContains: name })).resources[0]) !== undefined;
    expect(await until(created, 30_000)).toBe(true);
    const { id, latest_revision_id: revisionId } = deployment!;
    expect(await until(async () => (await lp.client.getRevision(id, revisionId!)).status === 'BUILDING')).toBe(true);
    // From here on only the provider asks for this revision.
    const polls = () => lp.requests.filter((line) => line.includes(`/revisions/${revisionId}`)).length;
    const before = polls();
    expect(await eventually(() => polls() > before)).toBe(true);
    return id;
  }

  it('fails the apply on BUILD_FAILED, naming the revision and its status, and keeps the id in state', async () => {
    const dir = fast.terraform();
    const name = fast.uniqueName('broken');
    dir.configure(githubDeployment('agent', { name, repo_ref: 'main#fail-build' }));
    expect((await dir.init()).code).toBe(0);

    const result = await dir.apply();

    expect(result.code).toBe(1);
    const instance = dir.instance('agentplatform_deployment.agent');
    const { id, latest_revision_id: revisionId } = instance.attributes as { id: string; latest_revision_id: string };
    expect(result.stderr).toContain(`Error: Deployment "${name}": revision ${revisionId} ended in BUILD_FAILED`);
    expect(instance).toMatchObject({ status: 'tainted', attributes: { revision_status: 'BUILD_FAILED', active_revision_id: null } });
    expect((await fast.client.getDeployment(id)).name).toBe(name);
    expect((await fast.client.getRevision(id, revisionId)).status).toBe('BUILD_FAILED');
  });

  it('deploys the same source again on the next apply after an update whose revision failed', async () => {
    const dir = fast.terraform();
    const name = fast.uniqueName('redeploy');
    dir.configure(githubDeployment('agent', { name, repo_ref: 'main' }));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const id = dir.instance('agentplatform_deployment.agent').attributes.id as string;
    const serving = dir.instance('agentplatform_deployment.agent').attributes.latest_revision_id as string;
    expect(dir.instance('agentplatform_deployment.agent').attributes.active_revision_id).toBe(serving);

    dir.configure(githubDeployment('agent', { name, repo_ref: 'main#fail-deploy' }));
    const failed = await dir.apply();
    expect(failed.code).toBe(1);
    expect(oneLine(failed.stderr)).toContain('an apply without a change deploys the same source again');
    const first = dir.instance('agentplatform_deployment.agent');
    expect(first.status).toBeUndefined();
    expect(first.attributes).toMatchObject({ id, repo_ref: 'main#fail-deploy', revision_status: 'DEPLOY_FAILED' });
    // the revision before the failed one still serves, and a refresh reads the same
    expect(first.attributes.latest_revision_id).not.toBe(serving);
    expect(first.attributes.active_revision_id).toBe(serving);
    expect((await fast.client.getDeployment(id)).active_revision_id).toBe(serving);

    // no change in the configuration: the plan still deploys again, and says so
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ revision_status');
    expect(oneLine(plan.stdout)).toContain('"DEPLOY_FAILED" -> (known after apply)');
    expect(oneLine(plan.stdout + plan.stderr)).toContain('Warning: Failed revision deployed again');
    expect(plan.stdout).toContain('0 to add, 1 to change, 0 to destroy');
    const again = await dir.apply();
    expect(again.code).toBe(1);
    const second = dir.instance('agentplatform_deployment.agent').attributes;
    expect(second.latest_revision_id).not.toBe(first.attributes.latest_revision_id);
    expect((await fast.client.getRevision(id, second.latest_revision_id as string)).status).toBe('DEPLOY_FAILED');

    // along with a change that makes no revision of its own, the failed source is deployed again in the same apply
    dir.configure(githubDeployment('agent', { name, repo_ref: 'main#fail-deploy', custom_url: 'https://agent.example.com' }));
    expect((await dir.apply()).code).toBe(1);
    const third = dir.instance('agentplatform_deployment.agent').attributes;
    expect(third.latest_revision_id).not.toBe(second.latest_revision_id);
    expect(third).toMatchObject({ custom_url: 'https://agent.example.com', revision_status: 'DEPLOY_FAILED' });
    expect((await fast.client.getDeployment(id)).source_config).toMatchObject({ custom_url: 'https://agent.example.com' });

    dir.configure(githubDeployment('agent', { name, repo_ref: 'main' }));
    expect((await dir.apply()).code).toBe(0);
    const fixed = dir.instance('agentplatform_deployment.agent').attributes;
    expect(fixed).toMatchObject({ id, revision_status: 'DEPLOYED', active_revision_id: fixed.latest_revision_id });
    expect(fixed.active_revision_id).not.toBe(serving);
    expect((await dir.plan()).code).toBe(0);
    expect((await dir.destroy()).code).toBe(0);
  });

  it('refuses a name already taken, with the command that imports the existing deployment', async () => {
    const name = fast.uniqueName('taken');
    const existing = await fast.client.createDeployment({ name, source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
    const dir = fast.terraform();
    dir.configure(githubDeployment('agent', { name }));
    expect((await dir.init()).code).toBe(0);

    const result = await dir.apply();

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: Deployment name already taken');
    expect(result.stderr).toContain(`terraform import agentplatform_deployment.<name> ${existing.id}`);
    expect(result.stderr).toContain(`id = "${existing.id}"`);
    // the one case where importing is not the way: a replacement that is created before the deployment it replaces
    expect(oneLine(result.stderr)).toContain('the deployment it replaces holds the name until it is destroyed');
    expect(result.stderr).toMatch(/on main\.tf line \d+, in resource "agentplatform_deployment" "agent":\s+\d+:\s+name = /);
    expect(JSON.parse(dir.stateText()).resources).toEqual([]);
  });

  it('times out a create, naming the last status seen, and keeps the id in state', async () => {
    const dir = slow.terraform();
    dir.configure(githubDeployment('agent', { name: slow.uniqueName('slow') }, '  timeouts = { create = "1s" }\n'));
    expect((await dir.init()).code).toBe(0);

    const result = await dir.apply();

    expect(result.code).toBe(1);
    const { id, latest_revision_id: revisionId } = dir.instance('agentplatform_deployment.agent').attributes as { id: string; latest_revision_id: string };
    expect(result.stderr).toContain('create timed out');
    expect(oneLine(result.stderr)).toContain(`Timed out after 1s waiting for revision ${revisionId} to be DEPLOYED; last status BUILDING`);
    expect((await slow.client.getDeployment(id)).latest_revision_id).toBe(revisionId);
  });

  it('fails an update whose revision a newer one of another source, made outside Terraform, took the place of; the state says what is deployed', async () => {
    const dir = slow.terraform();
    const name = slow.uniqueName('overtaken');
    dir.configure(githubDeployment('agent', { name, repo_ref: 'v1', wait_for_deployed: false }));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const id = dir.instance('agentplatform_deployment.agent').attributes.id as string;
    dir.configure(githubDeployment('agent', { name, repo_ref: 'v2' }));
    const applying = dir.apply();
    // the provider waits for the revision of v2 (BUILDING for ten minutes)...
    const awaited = async () => {
      const { latest_revision_id: latest } = await slow.client.getDeployment(id);
      const revision = await slow.client.getRevision(id, latest!);
      return revision.source_revision_config.repo_ref === 'v2' && slow.requests.some((line) => line.includes(`/revisions/${latest}`) && line.startsWith('GET'));
    };
    expect(await until(awaited, 30_000)).toBe(true);
    // ...when someone deploys another branch
    const outside = await slow.client.updateDeployment(id, { source_revision_config: { repo_ref: 'hotfix' } });

    const result = await applying;

    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toContain(`revision ${outside.latest_revision_id}, made outside Terraform, took the place of this apply's`);
    expect(oneLine(result.stderr)).toContain('which deploys repo_ref "hotfix" instead of "v2"');
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ repo_ref: 'hotfix', latest_revision_id: outside.latest_revision_id });
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/repo_ref\s+= "hotfix" -> "v2"/);
  });

  it('says so when the deployment is deleted while the apply waits for it, and plans it again', async () => {
    const gone = await TestPlatform.start({ ...STUCK_IN_BUILDING, deleteDelayMs: 0 });
    try {
      const dir = gone.terraform();
      const name = gone.uniqueName('deleted-meanwhile');
      dir.configure(githubDeployment('agent', { name }));
      expect((await dir.init()).code).toBe(0);
      const applying = dir.apply();
      const id = await deploymentWaitedOn(gone, name);
      await gone.client.deleteDeployment(id);

      const result = await applying;

      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toContain(`Deployment "${name}" was deleted during the create`);
      expect(oneLine(result.stderr)).toContain(`Deployment ${id} was deleted (outside Terraform) while this apply waited for its revision`);
      const plan = await dir.plan();
      expect(plan.code).toBe(2);
      expect(plan.stdout).toContain('agentplatform_deployment.agent will be created');
    } finally {
      await gone.close();
    }
  });

  it('ends a wait cleanly on Ctrl-C, keeping the id in state', async () => {
    const dir = slow.terraform();
    const name = slow.uniqueName('interrupted');
    dir.configure(githubDeployment('agent', { name }));
    expect((await dir.init()).code).toBe(0);
    const child = dir.tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
    const done = collect(child);
    const id = await deploymentWaitedOn(slow, name);

    // Ctrl-C in a terminal signals the whole process group; the provider ignores it and waits for StopProvider.
    process.kill(-child.pid!, 'SIGINT');
    const result = await done;

    expect(result.stdout).toContain('Interrupt received');
    expect(result.stderr).toContain(`Deployment "${name}": create interrupted`);
    expect(oneLine(result.stderr)).toContain('last status BUILDING');
    expect(result.stderr).not.toContain('panic');
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ id, revision_status: 'BUILDING' });
  });

  it('leaves no provider process behind when terraform is killed mid-wait', async () => {
    const marker = `DEPLOYMENT_TEST_RUN=${randomUUID()}`;
    const dir = slow.terraform({ DEPLOYMENT_TEST_RUN: marker.split('=')[1] });
    const name = slow.uniqueName('killed');
    dir.configure(githubDeployment('agent', { name }));
    expect((await dir.init()).code).toBe(0);
    const child = dir.tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
    const done = collect(child);
    await deploymentWaitedOn(slow, name);
    const provider = processesWithEnv(marker).filter((pid) => pid !== child.pid);
    expect(provider.length).toBeGreaterThan(0);

    child.kill('SIGKILL');
    await done;

    expect(await eventually(() => processesWithEnv(marker).length === 0, 10_000)).toBe(true);
  });
});
