import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { ControlPlaneClient } from '../../lib/api/control-plane';
import { InvalidArgumentError, NotFoundError, ValidationError } from '../../lib/api/errors';
import { HttpTransport } from '../../lib/api/http';
import type { Deployment, Revision, RevisionStatus, SandboxTemplate } from '../../lib/api/schemas/control-plane';

const ORIGIN = 'http://control-plane.test';
const API_KEY = 'cp-key-5f2a9c81d7e3';
const DEPLOYMENT_ID = '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const REVISION_ID = '0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d';
const NOW = '2025-06-01T12:00:00Z';

const deployment: Deployment = {
  id: DEPLOYMENT_ID,
  tenant_id: 'ws-default',
  name: 'support-agent',
  source: 'github',
  source_config: { integration_id: 'int-1', repo_url: 'https://github.com/acme/agent', deployment_type: 'prod', build_on_push: true },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json', image_uri: null, repo_commit_sha: 'abc123' },
  secrets: [{ name: 'OPENAI_API_KEY' }],
  status: 'READY',
  latest_revision_id: REVISION_ID,
  active_revision_id: null,
  url: 'http://127.0.0.1:8123/deployments/6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  created_at: NOW,
  updated_at: NOW,
};

function revision(n: number, status: RevisionStatus = 'DEPLOYED'): Revision {
  return {
    id: `0a1b2c3d-4e5f-4a6b-9c7d-${String(n).padStart(12, '0')}`,
    created_at: NOW,
    updated_at: NOW,
    status,
    source: 'github',
    source_revision_config: { repo_ref: 'main', repo_commit_sha: `sha${n}` },
  };
}

const template: SandboxTemplate = {
  id: '11111111-2222-4333-8444-555555555555',
  name: 'python-3.12',
  image: 'python:3.12-slim',
  resources: { cpu: '500m', memory: '1Gi', storage: '5Gi' },
  volume_mounts: [{ volume_name: 'workspace', mount_path: '/workspace' }],
  proxy_config: {
    rules: [{ name: 'openai', match_hosts: ['api.openai.com'], inject_headers: { 'x-org': 'acme' }, match_paths: ['/v1/*'], enabled: true }],
    no_proxy: ['localhost'],
  },
  created_at: NOW,
  updated_at: NOW,
};

interface SeenRequest {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

let agent: MockAgent;
let seen: SeenRequest[];
let client: ControlPlaneClient;

/** Answers `method path` (any query) with each reply in turn, recording every request. */
function route(method: string, path: string, ...sequence: [number, unknown?][]): void {
  let calls = 0;
  agent
    .get(ORIGIN)
    .intercept({ path: (p) => p.split('?')[0] === path, method })
    .reply((opts) => {
      seen.push({
        method: opts.method,
        path: opts.path,
        body: typeof opts.body === 'string' ? JSON.parse(opts.body) : undefined,
        headers: opts.headers as Record<string, string>,
      });
      const [statusCode, data] = sequence[Math.min(calls++, sequence.length - 1)];
      return { statusCode, data: data === undefined ? '' : JSON.stringify(data) };
    })
    .persist();
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  seen = [];
  client = new ControlPlaneClient({
    baseUrl: ORIGIN,
    auth: { kind: 'api-key', apiKey: API_KEY, tenantId: 'ws-default' },
    dispatcher: agent,
    sleep: async () => undefined,
  });
});

afterEach(async () => {
  await client.close();
  await agent.close();
});

describe('deployments', () => {
  it('creates a deployment with POST and parses it, registering secret values for redaction', async () => {
    route('POST', '/v2/deployments', [201, deployment]);
    const body = {
      name: 'support-agent',
      source: 'github' as const,
      source_revision_config: { repo_ref: 'main' },
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-openai-secret-value' }],
    };
    await expect(client.createDeployment(body)).resolves.toEqual(deployment);
    expect(seen).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v2/deployments', body }),
    ]);
    expect(seen[0].headers).toMatchObject({ 'x-api-key': API_KEY, 'x-tenant-id': 'ws-default' });
    expect(client.transport.redact('echo sk-openai-secret-value')).toBe('echo [REDACTED]');
  });

  it('sends the Idempotency-Key a create is given, and none otherwise', async () => {
    route('POST', '/v2/deployments', [201, deployment]);
    const body = { name: 'support-agent', source: 'github' as const };
    await client.createDeployment(body, { idempotencyKey: 'terraform-agentplatform_deployment-abc' });
    await client.createDeployment(body);
    expect(seen[0].headers).toMatchObject({ 'idempotency-key': 'terraform-agentplatform_deployment-abc', 'x-api-key': API_KEY });
    expect(seen[1].headers).not.toHaveProperty('idempotency-key');
  });

  it('gets a deployment, and a missing one is a NotFoundError naming it', async () => {
    route('GET', `/v2/deployments/${DEPLOYMENT_ID}`, [200, deployment], [404, { detail: `Deployment ${DEPLOYMENT_ID} not found` }]);
    await expect(client.getDeployment(DEPLOYMENT_ID)).resolves.toEqual(deployment);
    const err = await client.getDeployment(DEPLOYMENT_ID).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe(
      `GET ${ORIGIN}/v2/deployments/${DEPLOYMENT_ID}: 404 Not Found: Deployment ${DEPLOYMENT_ID} not found`,
    );
  });

  it('takes ids that are UUIDs of any version or variant, as the platform does', async () => {
    const id = '12345678-1234-1234-1234-123456789012';
    const other = { ...deployment, id, latest_revision_id: '00000000-0000-0000-0000-00000000000a' };
    route('GET', `/v2/deployments/${id}`, [200, other]);
    await expect(client.getDeployment(id)).resolves.toEqual(other);
    await expect(client.getDeployment('not-a-uuid')).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('patches a deployment, and a secret echoed in a 422 stays redacted', async () => {
    const patch = { source_revision_config: { repo_ref: 'release' }, secrets: [{ name: 'TOKEN', value: 'tok-very-secret' }] };
    route(
      'PATCH',
      `/v2/deployments/${DEPLOYMENT_ID}`,
      [200, { ...deployment, source_revision_config: { repo_ref: 'release' } }],
      [422, { detail: [{ loc: ['body', 'secrets', 0, 'value'], msg: 'tok-very-secret is too short', type: 'value_error' }] }],
    );
    const updated = await client.updateDeployment(DEPLOYMENT_ID, patch);
    expect(updated.source_revision_config?.repo_ref).toBe('release');
    expect(seen[0]).toMatchObject({ method: 'PATCH', path: `/v2/deployments/${DEPLOYMENT_ID}`, body: patch });
    const err = await client.updateDeployment(DEPLOYMENT_ID, patch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain('body.secrets.0.value: [REDACTED] is too short');
    expect(inspect(err, { depth: 10 })).not.toContain('tok-very-secret');
  });

  it('deletes a deployment answered with 202 or 204 and an empty body', async () => {
    route('DELETE', `/v2/deployments/${DEPLOYMENT_ID}`, [202], [204]);
    await expect(client.deleteDeployment(DEPLOYMENT_ID)).resolves.toBeUndefined();
    await expect(client.deleteDeployment(DEPLOYMENT_ID)).resolves.toBeUndefined();
    expect(seen.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('lists deployments with name filter and paging in the query', async () => {
    route('GET', '/v2/deployments', [200, { resources: [deployment], offset: 11 }]);
    await expect(client.listDeployments({ nameContains: 'support agent', limit: 10, offset: 1 })).resolves.toEqual({
      resources: [deployment],
      offset: 11,
    });
    await client.listDeployments();
    expect(seen.map((r) => r.path)).toEqual(['/v2/deployments?name_contains=support%20agent&limit=10&offset=1', '/v2/deployments']);
  });
});

describe('revisions', () => {
  const revisionsPath = `/v2/deployments/${DEPLOYMENT_ID}/revisions`;

  it('lists revisions with limit, offset, a status list and remote_reconciled', async () => {
    route('GET', revisionsPath, [200, { resources: [revision(1, 'BUILDING')], offset: 6 }]);
    const page = await client.listRevisions(DEPLOYMENT_ID, {
      limit: 5,
      offset: 1,
      status: ['BUILDING', 'DEPLOYED'],
      remoteReconciled: true,
    });
    expect(page).toEqual({ resources: [revision(1, 'BUILDING')], offset: 6 });
    expect(seen[0].path).toBe(`${revisionsPath}?limit=5&offset=1&status=BUILDING,DEPLOYED&remote_reconciled=true`);
  });

  it('iterates every page, each starting at the offset the server returned', async () => {
    route(
      'GET',
      revisionsPath,
      [200, { resources: [revision(1), revision(2)], offset: 2 }],
      [200, { resources: [revision(3), revision(4)], offset: 4 }],
      [200, { resources: [revision(5)], offset: 5 }],
    );
    const ids: string[] = [];
    for await (const rev of client.iterateRevisions(DEPLOYMENT_ID, { limit: 2, status: ['DEPLOYED'] })) ids.push(rev.id);
    expect(ids).toEqual([1, 2, 3, 4, 5].map((n) => revision(n).id));
    expect(seen.map((r) => r.path)).toEqual([0, 2, 4].map((o) => `${revisionsPath}?limit=2&offset=${o}&status=DEPLOYED`));
  });

  it('stops iterating at an empty page, with pages of 100 by default', async () => {
    const full = Array.from({ length: 100 }, (_, n) => revision(n));
    route('GET', revisionsPath, [200, { resources: full, offset: 100 }], [200, { resources: [], offset: 100 }]);
    let count = 0;
    for await (const rev of client.iterateRevisions(DEPLOYMENT_ID)) count += rev ? 1 : 0;
    expect(count).toBe(100);
    expect(seen.map((r) => r.path)).toEqual([`${revisionsPath}?limit=100&offset=0`, `${revisionsPath}?limit=100&offset=100`]);
  });

  it('gets one revision', async () => {
    route('GET', `${revisionsPath}/${REVISION_ID}`, [200, { ...revision(7), id: REVISION_ID }]);
    await expect(client.getRevision(DEPLOYMENT_ID, REVISION_ID)).resolves.toMatchObject({ id: REVISION_ID, status: 'DEPLOYED' });
  });
});

describe('sandbox templates', () => {
  it('lists the templates of the workspace', async () => {
    route('GET', '/v2/sandboxes/templates', [200, { templates: [template] }]);
    await expect(client.listSandboxTemplates()).resolves.toEqual([template]);
  });
});

describe('arguments checked before sending', () => {
  it.each([
    ['a malformed deployment id', () => client.getDeployment('not-a-uuid'), 'deploymentId'],
    ['a malformed revision id', () => client.getRevision(DEPLOYMENT_ID, '42'), 'revisionId'],
    ['a malformed id on delete', () => client.deleteDeployment(''), 'deploymentId'],
    ['limit 0', () => client.listRevisions(DEPLOYMENT_ID, { limit: 0 }), 'limit'],
    ['limit 101', () => client.listDeployments({ limit: 101 }), 'limit'],
    ['a fractional limit', () => client.listRevisions(DEPLOYMENT_ID, { limit: 1.5 }), 'limit'],
    ['a negative offset', () => client.listRevisions(DEPLOYMENT_ID, { offset: -1 }), 'offset'],
    ['an unknown status', () => client.listRevisions(DEPLOYMENT_ID, { status: ['DONE' as RevisionStatus] }), 'status'],
  ])('refuses %s', async (_case, call, argument) => {
    const err = await call().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe(argument);
    expect(seen).toEqual([]);
  });
});

describe('transport sharing', () => {
  it('uses a shared transport with bearer auth and leaves it open on close', async () => {
    const transport = new HttpTransport({ baseUrl: ORIGIN, auth: { kind: 'bearer', token: 'bearer-xyz' }, dispatcher: agent });
    const shared = new ControlPlaneClient({ transport });
    route('GET', '/v2/sandboxes/templates', [200, { templates: [] }]);
    await shared.close();
    await expect(shared.listSandboxTemplates()).resolves.toEqual([]);
    expect(seen[0].headers).toMatchObject({ authorization: 'Bearer bearer-xyz' });
    expect(seen[0].headers).not.toHaveProperty('x-api-key');
    await transport.close();
  });
});
