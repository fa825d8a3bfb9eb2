/**
 * The revision pipeline: the success path step by step, failures asked for with markers, and newer revisions
 * superseding older ones in flight. The manual clock makes every status exactly predictable.
 */
import { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import {
  createDeployment,
  dockerBody,
  FULL_PIPELINE_MS,
  getRevision,
  githubBody,
  startTestPlatform,
  STEP_MS,
  type TestPlatform,
} from './support/fixtures';
import { removeTempDirs } from './support/http';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(async () => {
  await t.platform.close();
  removeTempDirs();
});

const getDeployment = async (id: string) => Deployment.parse((await t.api.get(`/v2/deployments/${id}`)).body);
const patchImage = async (id: string, imageUri: string) =>
  Deployment.parse(
    (await t.api.patch(`/v2/deployments/${id}`, { source_revision_config: { image_uri: imageUri } })).body,
  );

describe('a revision goes CREATING → QUEUED → AWAITING_BUILD → BUILDING → AWAITING_DEPLOY → DEPLOYING → DEPLOYED', () => {
  test('one step per step duration, then DEPLOYED, reconciled, and the active revision', async () => {
    const created = await createDeployment(t.api, githubBody());
    const revisionId = created.latest_revision_id!;
    const seen: string[] = [];
    for (let step = 0; step < 7; step += 1) {
      const revision = await getRevision(t.api, created.id, revisionId);
      seen.push(revision.status);
      if (step === 6) expect(revision.updated_at > revision.created_at).toBe(true);
      t.clock.advance(STEP_MS);
    }
    expect(seen).toEqual([
      'CREATING',
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    const reconciled = await t.api.get(`/v2/deployments/${created.id}/revisions?remote_reconciled=true`);
    expect(reconciled.body.resources.map((r: { id: string }) => r.id)).toEqual([revisionId]);
    expect((await getDeployment(created.id)).active_revision_id).toBe(revisionId);
  });
});

describe('failure markers end a revision in the asked-for *_FAILED status', () => {
  test.each([
    [
      'fail-create in repo_ref',
      'CREATE_FAILED',
      githubBody({ source_revision_config: { repo_ref: 'main#fail-create' } }),
    ],
    ['fail-build in repo_ref', 'BUILD_FAILED', githubBody({ source_revision_config: { repo_ref: 'main#fail-build' } })],
    [
      'fail-deploy in graph_config_path',
      'DEPLOY_FAILED',
      githubBody({ source_revision_config: { graph_config_path: 'fail-deploy/langgraph.json' } }),
    ],
    ['fail-build in image_uri', 'BUILD_FAILED', dockerBody('registry.example.com/agent:fail-build')],
  ])('%s → %s', async (_case, status, body) => {
    const created = await createDeployment(t.api, body);
    t.clock.advance(FULL_PIPELINE_MS);
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe(status);
    expect((await getDeployment(created.id)).active_revision_id).toBeNull();
  });
  test('a failed revision leaves the previously deployed one active', async () => {
    const created = await createDeployment(t.api, dockerBody('registry.example.com/ok:1'));
    t.clock.advance(FULL_PIPELINE_MS);
    const failing = await patchImage(created.id, 'registry.example.com/ok:2-fail-deploy');
    t.clock.advance(FULL_PIPELINE_MS);
    expect((await getRevision(t.api, created.id, failing.latest_revision_id!)).status).toBe('DEPLOY_FAILED');
    expect((await getDeployment(created.id)).active_revision_id).toBe(created.latest_revision_id);
  });
});

describe('a newer revision supersedes older ones in flight', () => {
  test('one not yet deploying becomes SKIPPED, and the newer one deploys', async () => {
    const created = await createDeployment(t.api, dockerBody('registry.example.com/s:1'));
    t.clock.advance(3 * STEP_MS);
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('BUILDING');
    const updated = await patchImage(created.id, 'registry.example.com/s:2');
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('SKIPPED');
    t.clock.advance(FULL_PIPELINE_MS);
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('SKIPPED');
    expect((await getRevision(t.api, created.id, updated.latest_revision_id!)).status).toBe('DEPLOYED');
  });
  test('one already DEPLOYING becomes INTERRUPTED', async () => {
    const created = await createDeployment(t.api, dockerBody('registry.example.com/i:1'));
    t.clock.advance(5 * STEP_MS);
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('DEPLOYING');
    await patchImage(created.id, 'registry.example.com/i:2');
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('INTERRUPTED');
  });
  test('a final revision is left as it is', async () => {
    const created = await createDeployment(t.api, dockerBody('registry.example.com/f:1'));
    t.clock.advance(FULL_PIPELINE_MS);
    await patchImage(created.id, 'registry.example.com/f:2');
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('DEPLOYED');
  });
});

describe('deleting a deployment ends its revisions in flight', () => {
  test('a building revision becomes SKIPPED while the deployment awaits deletion', async () => {
    const created = await createDeployment(t.api, dockerBody('registry.example.com/d:1'));
    t.clock.advance(3 * STEP_MS);
    expect((await t.api.delete(`/v2/deployments/${created.id}`)).status).toBe(202);
    expect((await getRevision(t.api, created.id, created.latest_revision_id!)).status).toBe('SKIPPED');
  });
});
