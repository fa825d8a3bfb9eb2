/**
 * `agentplatform_deployment` through the real terraform against the local platform, one deployment's whole life:
 * create (waits for DEPLOYED) → no-op plan → new revision → in-place change without one → replacement → drift →
 * import into a fresh state → destroy (waits for 404).
 */
import { NotFoundError } from '../../lib/api/errors';
import { DEPLOYMENT_DOC_PAGES } from '../../lib/provider/resources/deployment/docs';
import { TestPlatform, githubDeployment } from './support/deployment-platform';

// each test runs terraform many times over (a provider process each): more than the default under a loaded machine
jest.setTimeout(180_000);

describe('agentplatform_deployment lifecycle', () => {
  let lp: TestPlatform;
  beforeAll(async () => {
    lp = await TestPlatform.start();
  });
  afterAll(() => lp.close());

  it('creates, updates, replaces, notices drift, imports and destroys', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('life');
    const configure = (attributes: Record<string, string | boolean>) => dir.configure(githubDeployment('agent', { name, ...attributes }));
    const state = () => dir.instance('agentplatform_deployment.agent').attributes;
    configure({});
    expect((await dir.init()).code).toBe(0);

    // Create waits until the first revision is DEPLOYED; server defaults land in optional+computed attributes.
    const created = await dir.apply();
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('Apply complete! Resources: 1 added');
    const first = state();
    expect(first).toMatchObject({ name, revision_status: 'DEPLOYED', repo_ref: 'main', graph_config_path: 'langgraph.json', deployment_type: 'prod', build_on_push: false, wait_for_deployed: true, secrets: null });
    const id = first.id as string;
    expect((await lp.client.getRevision(id, first.latest_revision_id as string)).status).toBe('DEPLOYED');
    expect(first.url).toBe((await lp.client.getDeployment(id)).url);
    // The provider keeps how long the revision took in private state (not an attribute: never in a plan).
    const kept = JSON.parse(Buffer.from(dir.instance('agentplatform_deployment.agent').private ?? '', 'base64').toString('utf8')) as { revision_ms?: number };
    expect(kept.revision_ms).toBeGreaterThan(0);
    expect(first).not.toHaveProperty('revision_ms');

    expect((await dir.plan()).code).toBe(0);

    // A new repo_ref is a new revision: the plan says so, and the apply waits for it.
    configure({ repo_ref: 'release-2' });
    const refPlan = await dir.plan();
    expect(refPlan.code).toBe(2);
    expect(refPlan.stdout).toMatch(/repo_ref\s+= "main" -> "release-2"/);
    expect(refPlan.stdout).toMatch(/latest_revision_id\s+= "[0-9a-f-]{36}" -> \(known after apply\)/);
    expect(refPlan.stdout).toMatch(/revision_status\s+= "DEPLOYED" -> \(known after apply\)/);
    expect((await dir.apply()).code).toBe(0);
    const second = state();
    expect(second).toMatchObject({ id, repo_ref: 'release-2', revision_status: 'DEPLOYED' });
    // Expecting about as long as last time, the wait saw DEPLOYED with a few polls (one or two on a quiet machine, a
    // few more when the machine is loaded and the revision takes longer than the last one did).
    const secondPolls = lp.requests.filter((line) => line.startsWith('GET ') && line.includes(`/revisions/${second.latest_revision_id as string}`));
    expect(secondPolls.length).toBeGreaterThanOrEqual(1);
    expect(secondPolls.length).toBeLessThanOrEqual(5);
    expect(second.latest_revision_id).not.toBe(first.latest_revision_id);
    expect(second.repo_commit_sha).not.toBe(first.repo_commit_sha);
    const revisions = (await lp.client.listRevisions(id)).resources;
    expect(revisions.map((r) => [r.id, r.status, r.source_revision_config.repo_ref])).toEqual([
      [second.latest_revision_id, 'DEPLOYED', 'release-2'],
      [first.latest_revision_id, 'DEPLOYED', 'main'],
    ]);
    expect((await dir.plan()).code).toBe(0);

    // custom_url changes in place without a revision: the revision attributes stay known, only url follows.
    configure({ repo_ref: 'release-2', custom_url: 'https://agent.example.com' });
    const urlPlan = await dir.plan();
    expect(urlPlan.stdout).toMatch(/url\s+= "[^"]+" -> "https:\/\/agent\.example\.com"/);
    expect(urlPlan.stdout).not.toContain('latest_revision_id');
    expect((await dir.apply()).code).toBe(0);
    expect(state()).toMatchObject({ id, latest_revision_id: second.latest_revision_id, url: 'https://agent.example.com' });
    expect((await lp.client.listRevisions(id)).resources).toHaveLength(2);

    // deployment_type cannot change in place: replacement; destroy waits until the old one is gone, so the name is free.
    // build_on_push set, so that a change of it outside Terraform is drift (left out, the platform's value is kept)
    configure({ repo_ref: 'release-2', custom_url: 'https://agent.example.com', deployment_type: 'dev', build_on_push: false });
    const replacePlan = await dir.plan();
    expect(replacePlan.stdout).toMatch(/deployment_type\s+= "prod" -> "dev" # forces replacement/);
    expect(replacePlan.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    expect((await dir.apply()).code).toBe(0);
    const replaced = state();
    expect(replaced).toMatchObject({ name, deployment_type: 'dev', revision_status: 'DEPLOYED' });
    expect(replaced.id).not.toBe(id);
    await expect(lp.client.getDeployment(id)).rejects.toBeInstanceOf(NotFoundError);
    const newId = replaced.id as string;

    // A change made through the API shows as drift, and apply puts it back.
    await lp.client.updateDeployment(newId, { source_config: { custom_url: 'https://drifted.example.com', build_on_push: true } });
    const drift = await dir.plan();
    expect(drift.code).toBe(2);
    expect(drift.stdout).toMatch(/build_on_push\s+= true -> false/);
    expect(drift.stdout).toMatch(/custom_url\s+= "https:\/\/drifted\.example\.com" -> "https:\/\/agent\.example\.com"/);
    expect((await dir.apply()).code).toBe(0);
    expect((await lp.client.getDeployment(newId)).source_config).toMatchObject({ custom_url: 'https://agent.example.com', build_on_push: false });

    // Import into a fresh state: the same configuration plans nothing.
    const fresh = lp.terraform();
    fresh.configure(githubDeployment('agent', { name, repo_ref: 'release-2', custom_url: 'https://agent.example.com', deployment_type: 'dev' }));
    expect((await fresh.init()).code).toBe(0);
    const imported = await fresh.tf.run(['import', '-input=false', '-no-color', 'agentplatform_deployment.agent', newId]);
    expect(imported.stdout).toContain('Import successful!');
    expect(fresh.instance('agentplatform_deployment.agent').attributes).toMatchObject({ ...replaced, timeouts: null });
    const importedPlan = await fresh.plan();
    expect(importedPlan.stdout).toContain('No changes.');
    expect(importedPlan.code).toBe(0);

    // Destroy returns once GET answers 404.
    const destroyed = await fresh.destroy();
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    await expect(lp.client.getDeployment(newId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('plans, after an import, one in-place update of the Terraform-only settings the configuration sets, as the import notes say', async () => {
    const existing = await lp.client.createDeployment({ name: lp.uniqueName('import-settings'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
    const dir = lp.terraform();
    dir.configure(githubDeployment('agent', { name: existing.name, wait_for_deployed: false }, '  timeouts = { update = "5m" }\n'));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.tf.run(['import', '-input=false', '-no-color', 'agentplatform_deployment.agent', existing.id])).code).toBe(0);

    expect((await dir.plan('-out=import.tfplan')).code).toBe(2);
    const shown = JSON.parse((await dir.tf.run(['show', '-json', 'import.tfplan'])).stdout) as {
      resource_changes: { change: { actions: string[]; before: Record<string, unknown>; after: Record<string, unknown> } }[];
    };
    const [{ change }] = shown.resource_changes as [(typeof shown.resource_changes)[number]];
    const changed = Object.keys(change.after).filter((key) => JSON.stringify(change.before[key]) !== JSON.stringify(change.after[key]));

    expect(change.actions).toEqual(['update']);
    expect(changed.sort()).toEqual(['timeouts', 'wait_for_deployed']);
    const notes = DEPLOYMENT_DOC_PAGES.agentplatform_deployment!.importSection!.replace(/\s+/g, ' ');
    expect(notes).toContain('`wait_for_deployed = true`');
    expect(notes).toContain('setting `timeouts`, or `wait_for_deployed = false`, one that only updates the state, with no request to the platform');
    const patches = () => lp.requests.filter((line) => line.startsWith(`PATCH /v2/deployments/${existing.id}`)).length;
    const before = patches();
    expect((await dir.apply()).code).toBe(0);
    expect(patches()).toBe(before);
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ wait_for_deployed: false, timeouts: { update: '5m' } });
    expect((await dir.plan()).code).toBe(0);
  });
});
