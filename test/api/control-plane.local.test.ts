/**
 * The control plane client against the real local platform over loopback HTTP: every endpoint, and every error
 * class the platform can answer with.
 */
import { ControlPlaneClient } from '../../lib/api/control-plane';
import {
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../../lib/api/errors';
import type { Deployment } from '../../lib/api/schemas/control-plane';
import { freePort } from '../support/free-port';
import { FULL_PIPELINE_MS, STEP_MS, startTestPlatform, uniqueName, type TestPlatform } from '../local/support/fixtures';

let t: TestPlatform;
let client: ControlPlaneClient;

const clientFor = (apiKey: string, tenantId?: string) =>
  new ControlPlaneClient({ baseUrl: t.platform.url, auth: { kind: 'api-key', apiKey, tenantId }, retry: { maxRetries: 0 } });

const github = (name = uniqueName('client')) => ({
  name,
  source: 'github' as const,
  source_config: { repo_url: 'https://github.com/example/agent', integration_id: 'int-1' },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
});

beforeAll(async () => {
  t = await startTestPlatform();
  client = clientFor(t.platform.devApiKey);
});
afterAll(async () => {
  await client.close();
  await t.platform.close();
});

describe('deployments', () => {
  let created: Deployment;

  beforeAll(async () => {
    created = await client.createDeployment({ ...github(), secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-test-1234' }] });
  });

  test('create returns the deployment with its first revision, secrets by name only', () => {
    expect(created.latest_revision_id).not.toBeNull();
    expect(created.secrets).toEqual([{ name: 'OPENAI_API_KEY' }]);
    expect(JSON.stringify(created)).not.toContain('sk-test-1234');
  });

  test('get returns what create returned', async () => {
    const fetched = await client.getDeployment(created.id);
    expect(fetched.id).toBe(created.id);
    expect(fetched.name).toBe(created.name);
  });

  test('the first revision reaches DEPLOYED and the deployment names it active', async () => {
    t.clock.advance(FULL_PIPELINE_MS);
    const revision = await client.getRevision(created.id, created.latest_revision_id!);
    expect(revision.status).toBe('DEPLOYED');
    expect(revision.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await client.getDeployment(created.id)).active_revision_id).toBe(revision.id);
  });

  test('update of repo_ref makes a new revision; listRevisions shows it first', async () => {
    const updated = await client.updateDeployment(created.id, { source_revision_config: { repo_ref: 'release' } });
    expect(updated.latest_revision_id).not.toBe(created.latest_revision_id);
    const { resources } = await client.listRevisions(created.id);
    expect(resources.map((r) => r.id)).toEqual([updated.latest_revision_id, created.latest_revision_id]);
  });

  test('listDeployments filters by name and pages', async () => {
    const prefix = uniqueName('page');
    for (let i = 0; i < 3; i += 1) await client.createDeployment(github(`${prefix}-${i}`));
    const first = await client.listDeployments({ nameContains: prefix, limit: 2 });
    expect(first.resources).toHaveLength(2);
    const second = await client.listDeployments({ nameContains: prefix, limit: 2, offset: first.offset });
    expect(second.resources).toHaveLength(1);
    const names = [...first.resources, ...second.resources].map((d) => d.name).sort();
    expect(names).toEqual([0, 1, 2].map((i) => `${prefix}-${i}`));
  });

  test('delete turns get into NotFoundError after the delete delay', async () => {
    const doomed = await client.createDeployment(github());
    await client.deleteDeployment(doomed.id);
    expect((await client.getDeployment(doomed.id)).status).toBe('AWAITING_DELETE');
    t.clock.advance(5 * STEP_MS);
    await expect(client.getDeployment(doomed.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('revisions across pages', () => {
  test('iterateRevisions yields every revision once, newest first, across pages of 2', async () => {
    const d = await client.createDeployment(github());
    for (const ref of ['a', 'b', 'c', 'd']) await client.updateDeployment(d.id, { source_revision_config: { repo_ref: ref } });
    const seen: string[] = [];
    for await (const revision of client.iterateRevisions(d.id, { limit: 2 })) seen.push(revision.source_revision_config.repo_ref!);
    expect(seen).toEqual(['d', 'c', 'b', 'a', 'main']);
  });

  test('a revision created during the iteration does not make it yield an older one twice', async () => {
    const d = await client.createDeployment(github());
    for (const ref of ['a', 'b', 'c']) await client.updateDeployment(d.id, { source_revision_config: { repo_ref: ref } });
    const seen: string[] = [];
    for await (const revision of client.iterateRevisions(d.id, { limit: 2 })) {
      seen.push(revision.source_revision_config.repo_ref!);
      // after the first page, a new revision pushes every older one a place further
      if (seen.length === 2) await client.updateDeployment(d.id, { source_revision_config: { repo_ref: 'e' } });
    }
    expect(seen).toEqual(['c', 'b', 'a', 'main']);
  });

  test('status and remote_reconciled filters reach the server', async () => {
    const d = await client.createDeployment(github());
    t.clock.advance(FULL_PIPELINE_MS);
    await client.updateDeployment(d.id, { source_revision_config: { repo_ref: 'next' } });
    const deployed = await client.listRevisions(d.id, { status: ['DEPLOYED'] });
    expect(deployed.resources.map((r) => r.source_revision_config.repo_ref)).toEqual(['main']);
    const unreconciled = await client.listRevisions(d.id, { remoteReconciled: false });
    expect(unreconciled.resources.map((r) => r.source_revision_config.repo_ref)).toEqual(['next']);
  });
});

describe('sandbox templates', () => {
  test('lists the seeded templates with every field', async () => {
    const templates = await client.listSandboxTemplates();
    expect(templates.length).toBeGreaterThanOrEqual(2);
    for (const template of templates) {
      expect(template.resources).toHaveProperty('cpu');
      expect(Array.isArray(template.proxy_config?.rules)).toBe(true);
    }
  });
});

describe('errors', () => {
  test('unknown deployment: NotFoundError naming the id, with the request id', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const err = await client.getDeployment(id).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.status).toBe(404);
    expect(err.message).toContain(id);
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('server-side rule: tag ref with build_on_push is a ValidationError naming the field', async () => {
    const body = github();
    const err = await client
      .createDeployment({
        ...body,
        source_config: { ...body.source_config, build_on_push: true },
        source_revision_config: { repo_ref: 'refs/tags/v1' },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.items.length).toBeGreaterThan(0);
    expect(err.message).toMatch(/build_on_push|repo_ref/);
  });

  test('a limit the server refuses is a ValidationError when sent raw', async () => {
    const d = await client.createDeployment(github());
    const err = await client.transport
      .request({ method: 'GET', path: `/v2/deployments/${d.id}/revisions`, query: { limit: 101 } })
      .catch((e: ValidationError) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).items[0].loc).toEqual(['query', 'limit']);
  });

  test('duplicate name: ConflictError', async () => {
    const name = uniqueName('dup');
    await client.createDeployment(github(name));
    await expect(client.createDeployment(github(name))).rejects.toBeInstanceOf(ConflictError);
  });

  test('bad key: UnauthorizedError that does not contain the key', async () => {
    const badKey = 'not-a-real-key-0123456789';
    const bad = clientFor(badKey);
    const err = await bad.listDeployments().catch((e) => e);
    await bad.close();
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(`${err.message} ${err.stack} ${JSON.stringify(err)}`).not.toContain(badKey);
  });

  test('a workspace of another organization: ForbiddenError', async () => {
    const other = t.platform.admin.createOrganization('other-org');
    const intruder = clientFor(t.platform.devApiKey, other.tenantIds[0]);
    const err = await intruder.listDeployments().catch((e) => e);
    await intruder.close();
    expect(err).toBeInstanceOf(ForbiddenError);
  });

  test('a second workspace of the same organization sees none of the first one', async () => {
    const mine = await client.createDeployment(github());
    const tenantId = t.platform.admin.createWorkspace(t.platform.defaultOrganizationId, uniqueName('ws'));
    const second = clientFor(t.platform.devApiKey, tenantId);
    const err = await second.getDeployment(mine.id).catch((e) => e);
    const list = await second.listDeployments();
    await second.close();
    expect(err).toBeInstanceOf(NotFoundError);
    expect(list.resources).toEqual([]);
  });

  test('nothing listening: NetworkError', async () => {
    const port = await freePort();
    const nobody = new ControlPlaneClient({
      baseUrl: `http://127.0.0.1:${port}`,
      auth: { kind: 'api-key', apiKey: 'k-123456' },
      retry: { maxRetries: 0 },
    });
    const err = await nobody.listDeployments().catch((e) => e);
    await nobody.close();
    expect(err).toBeInstanceOf(NetworkError);
  });
});
