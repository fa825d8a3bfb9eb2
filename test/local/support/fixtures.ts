/** A local platform on port 0 in a temp data dir, driven by a manual clock, plus helpers the tests share. */
import { DeploymentRecord as Deployment, Revision } from '../../../lib/api/schemas/control-plane';
import { ManualClock } from '../../../lib/local/clock';
import type { PipelineTimings } from '../../../lib/local/control-plane/pipeline';
import { startLocalPlatform, type LocalPlatform } from '../../../lib/local/platform';
import { RawApi, tempDataDir } from './http';

/** One virtual second per step, so a revision's status is exactly predictable from the clock. */
export const STEP_MS = 1000;
export const TEST_TIMINGS: PipelineTimings = {
  creatingMs: STEP_MS,
  queuedMs: STEP_MS,
  awaitingBuildMs: STEP_MS,
  buildingMs: STEP_MS,
  awaitingDeployMs: STEP_MS,
  deployingMs: STEP_MS,
  deleteDelayMs: 5 * STEP_MS,
};
/** Virtual time from creation to a final status. */
export const FULL_PIPELINE_MS = 6 * STEP_MS;

/** A running platform with its manual clock and a raw client holding the dev key. */
export interface TestPlatform {
  platform: LocalPlatform;
  clock: ManualClock;
  api: RawApi;
  dataDir: string;
}

export async function startTestPlatform(): Promise<TestPlatform> {
  const clock = new ManualClock(Date.parse('2025-01-01T00:00:00Z'));
  const dataDir = tempDataDir();
  const platform = await startLocalPlatform({ dataDir, clock, timings: TEST_TIMINGS });
  return { platform, clock, api: new RawApi(platform.url, platform.devApiKey), dataDir };
}

let counter = 0;
/** A name no other test uses. */
export const uniqueName = (prefix = 'agent'): string => `${prefix}-${process.pid}-${(counter += 1)}`;

/** The body of a github deployment; `extra` is merged at the top level and into the nested configs. */
export const githubBody = (
  extra: { name?: string; source_config?: object; source_revision_config?: object; secrets?: object[] } = {},
) => ({
  name: extra.name ?? uniqueName('gh'),
  source: 'github',
  source_config: { repo_url: 'https://github.com/example/agent', integration_id: 'int-1', ...extra.source_config },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json', ...extra.source_revision_config },
  ...(extra.secrets ? { secrets: extra.secrets } : {}),
});

/** The body of an external_docker deployment. */
export const dockerBody = (imageUri = 'registry.example.com/agent:1.0', name = uniqueName('img')) => ({
  name,
  source: 'external_docker',
  source_revision_config: { image_uri: imageUri },
});

/** Creates a deployment, asserting 201 and the Deployment schema. */
export async function createDeployment(api: RawApi, body: object, tenant?: string): Promise<Deployment> {
  const response = await api.post('/v2/deployments', body, { tenant });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return Deployment.parse(response.body);
}

export async function getRevision(api: RawApi, deploymentId: string, revisionId: string): Promise<Revision> {
  const response = await api.get(`/v2/deployments/${deploymentId}/revisions/${revisionId}`);
  if (response.status !== 200)
    throw new Error(`get revision failed: ${response.status} ${JSON.stringify(response.body)}`);
  return Revision.parse(response.body);
}

export async function listRevisions(api: RawApi, deploymentId: string, query = ''): Promise<Revision[]> {
  const response = await api.get(`/v2/deployments/${deploymentId}/revisions${query}`);
  if (response.status !== 200) throw new Error(`list failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.resources.map((r: unknown) => Revision.parse(r));
}

/** The single 422 item of a response, asserting there is exactly one. */
export function onlyValidationItem(response: { status: number; body: any }): {
  loc: unknown[];
  msg: string;
  type: string;
} {
  expect(response.status).toBe(422);
  expect(response.body.detail).toHaveLength(1);
  return response.body.detail[0];
}
