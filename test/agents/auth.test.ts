/**
 * The gate of every agent server: an API key of the organization that owns the deployment (any header case);
 * 401 without a known key, 403 for a key of another organization, 404 for an unknown or deleted deployment, 503
 * (with Retry-After) while no revision is DEPLOYED, 409 when none will be (the latest revision failed).
 */
import { request } from 'undici';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../lib/api/errors';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

let platform: AgentTestPlatform;
let deployment: Deployment;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('gated');
});
afterAll(() => platform.close());

const statusOf = async (url: string, headers: Record<string, string>) => {
  const response = await request(url, { headers });
  return {
    status: response.statusCode,
    body: (await response.body.json()) as unknown,
    retryAfter: response.headers['retry-after'],
  };
};

describe('API keys', () => {
  it.each(['X-Api-Key', 'x-api-key', 'X-API-KEY', 'x-Api-kEy'])(
    'accepts the owner organization key in header %s',
    async (header) => {
      expect(await statusOf(`${deployment.url}/ok`, { [header]: platform.apiKey })).toMatchObject({
        status: 200,
        body: { ok: true },
      });
    },
  );

  it('answers 401 with a detail without a key or with an unknown key', async () => {
    expect(await statusOf(`${deployment.url}/ok`, {})).toMatchObject({
      status: 401,
      body: { detail: expect.stringContaining('Missing API key') },
    });
    await expect(platform.client(deployment, 'lp_not-a-real-key').health()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('answers 403 to a valid key of another organization, on every route', async () => {
    const other = platform.createOrganization('other');
    const client = platform.client(deployment, other.apiKey);
    await expect(client.health()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(client.threads.create()).rejects.toMatchObject({
      status: 403,
      body: { detail: expect.stringContaining('organization') },
    });
    await expect(client.assistants.search()).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('serves a deployment of another organization to that organization only', async () => {
    const other = platform.createOrganization('owner-b');
    const theirs = await platform.deploy('theirs', undefined, other.apiKey);
    expect(await platform.client(theirs, other.apiKey).health()).toEqual({ ok: true });
    await expect(platform.client(theirs).health()).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('deployment states', () => {
  it('answers 404 for a deployment that does not exist', async () => {
    const url = deployment.url?.replace(deployment.id, '00000000-0000-4000-8000-000000000000') as string;
    expect(await statusOf(`${url}/ok`, { 'x-api-key': platform.apiKey })).toMatchObject({
      status: 404,
      body: { detail: 'Deployment 00000000-0000-4000-8000-000000000000 not found' },
    });
  });

  it('answers 503 with Retry-After while no revision is DEPLOYED, and 409 when the latest one failed', async () => {
    const controlPlane = platform.controlPlane();
    const failing = await controlPlane.createDeployment({
      name: 'never-deployed',
      source: 'github',
      source_config: { repo_url: 'https://github.com/example/agents', build_on_push: false },
      source_revision_config: { repo_ref: 'fail-build' },
    });
    const revision = await waitFor(async () => {
      const current = await controlPlane.getRevision(failing.id, failing.latest_revision_id as string);
      return current.status === 'BUILD_FAILED' && current;
    });
    // a failed revision never comes up: no retry is invited, and the detail says what to do
    const failed = await statusOf(`${failing.url}/ok`, { 'x-api-key': platform.apiKey });
    expect(failed).toMatchObject({ status: 409, retryAfter: undefined });
    expect((failed.body as { detail: string }).detail).toBe(
      `Deployment ${failing.id} has no deployed revision: its latest revision ended BUILD_FAILED. ` +
        `Update the deployment (PATCH /v2/deployments/${failing.id}) with a source that builds to deploy a new revision`,
    );
    await expect(platform.client(failing).health()).rejects.toBeInstanceOf(ConflictError);
    // while it is still being built, the answer is to wait
    platform.db.prepare("UPDATE cp_revisions SET status = 'BUILDING', next_transition_at = NULL WHERE id = ?").run(revision.id);
    const building = await statusOf(`${failing.url}/ok`, { 'x-api-key': platform.apiKey });
    expect(building).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
    expect((building.body as { detail: string }).detail).toBe(`Deployment ${failing.id} is not deployed yet (latest revision BUILDING)`);
  });

  it('answers 404 once the deployment is deleted', async () => {
    const doomed = await platform.deploy('doomed');
    const client = platform.client(doomed);
    expect(await client.health()).toEqual({ ok: true });
    await platform.controlPlane().deleteDeployment(doomed.id);
    await expect(client.health()).rejects.toBeInstanceOf(NotFoundError);
  });
});
