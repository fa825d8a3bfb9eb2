/**
 * The pipeline lives in the database: a platform stopped (cleanly, or by SIGKILL) while a revision is BUILDING
 * resumes it after a start on the same data dir, and the revision reaches DEPLOYED.
 */
import { DeploymentRecord as Deployment, Revision } from '../../lib/api/schemas/control-plane';
import { startLocalPlatform } from '../../lib/local/platform';
import { ensureCliBuilt } from './support/build';
import { childEnv, startCli, type CliProcess } from './support/child';
import { dockerBody } from './support/fixtures';
import { pollUntil, RawApi, removeTempDirs, tempDataDir } from './support/http';

/** Fast steps except BUILDING, which never ends on its own: the stop always happens while BUILDING. */
const STUCK_IN_BUILDING = {
  creatingMs: 5,
  queuedMs: 5,
  awaitingBuildMs: 5,
  buildingMs: 3_600_000,
  awaitingDeployMs: 5,
  deployingMs: 5,
};
const FAST = { creatingMs: 5, queuedMs: 5, awaitingBuildMs: 5, buildingMs: 5, awaitingDeployMs: 5, deployingMs: 5 };

const revisionOf = async (api: RawApi, deployment: Deployment) =>
  Revision.parse((await api.get(`/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`)).body);

afterAll(() => removeTempDirs());

async function createAndWaitForBuilding(api: RawApi): Promise<Deployment> {
  const response = await api.post('/v2/deployments', dockerBody());
  expect(response.status).toBe(201);
  const deployment = Deployment.parse(response.body);
  await pollUntil(
    () => revisionOf(api, deployment),
    (r) => r.status === 'BUILDING',
  );
  return deployment;
}

describe('in-process: close while BUILDING, start again on the same data dir', () => {
  test('the revision carries on to DEPLOYED, with the same key and data', async () => {
    const dataDir = tempDataDir();
    const first = await startLocalPlatform({ dataDir, timings: STUCK_IN_BUILDING });
    const deployment = await createAndWaitForBuilding(new RawApi(first.url, first.devApiKey));
    await first.close();
    await first.close();

    const second = await startLocalPlatform({ dataDir, timings: FAST });
    try {
      expect(second.devApiKey).toBe(first.devApiKey);
      expect(second.defaultTenantId).toBe(first.defaultTenantId);
      const api = new RawApi(second.url, second.devApiKey);
      const revision = await pollUntil(
        () => revisionOf(api, deployment),
        (r) => r.status === 'DEPLOYED',
      );
      expect(revision.id).toBe(deployment.latest_revision_id);
      const current = Deployment.parse((await api.get(`/v2/deployments/${deployment.id}`)).body);
      expect(current.active_revision_id).toBe(revision.id);
      expect(current.url).toBe(`${second.url}/deployments/${deployment.id}`);
    } finally {
      await second.close();
    }
  });
  test('a pending delete survives a restart too', async () => {
    const dataDir = tempDataDir();
    const first = await startLocalPlatform({ dataDir, timings: { ...FAST, deleteDelayMs: 3_600_000 } });
    const api = new RawApi(first.url, first.devApiKey);
    const deployment = Deployment.parse((await api.post('/v2/deployments', dockerBody())).body);
    expect((await api.delete(`/v2/deployments/${deployment.id}`)).status).toBe(202);
    await first.close();
    const second = await startLocalPlatform({ dataDir, timings: { ...FAST, deleteDelayMs: 5 } });
    try {
      const again = new RawApi(second.url, second.devApiKey);
      await pollUntil(
        () => again.get(`/v2/deployments/${deployment.id}`),
        (r) => r.status === 404,
      );
    } finally {
      await second.close();
    }
  });
});

describe('child process: SIGKILL while BUILDING, restart on the same data dir', () => {
  let running: CliProcess | undefined;
  beforeAll(() => ensureCliBuilt(), 120_000);
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
  });

  test('the revision reaches DEPLOYED after the restart', async () => {
    const dataDir = tempDataDir();
    const args = ['--port', '0', '--data-dir', dataDir];
    running = await startCli([...args, '--timings', JSON.stringify(STUCK_IN_BUILDING)], childEnv());
    const key = running.keyLine;
    const deployment = await createAndWaitForBuilding(new RawApi(running.url, key));
    running.child.kill('SIGKILL');
    expect(await running.exited).toBe('SIGKILL');

    running = await startCli([...args, '--step-ms', '5'], childEnv());
    expect(running.keyLine).toBe(key);
    const api = new RawApi(running.url, key);
    const revision = await pollUntil(
      () => revisionOf(api, deployment),
      (r) => r.status === 'DEPLOYED',
    );
    expect(revision.id).toBe(deployment.latest_revision_id);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });
});
