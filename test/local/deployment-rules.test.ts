/**
 * The deployment rules of the local platform (issue rules beyond the seed's parameter table): body validation,
 * immutable fields, when a PATCH makes a revision, secrets, names, urls, and deletion. Raw HTTP, manual clock.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DeploymentRecord as Deployment, DeploymentRecordsList as DeploymentsList } from '../../lib/api/schemas/control-plane';
import {
  createDeployment,
  dockerBody,
  FULL_PIPELINE_MS,
  githubBody,
  listRevisions,
  onlyValidationItem,
  startTestPlatform,
  TEST_TIMINGS,
  uniqueName,
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

const patch = (id: string, body: object) => t.api.patch(`/v2/deployments/${id}`, body);
const revisionCount = async (id: string) => (await listRevisions(t.api, id, '?limit=100')).length;

describe('create: the body shape', () => {
  test.each([
    ['name missing', { source: 'github' }, ['body', 'name'], 'missing'],
    ['name with spaces', { ...githubBody(), name: 'my agent' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['name too long', { ...githubBody(), name: 'a'.repeat(64) }, ['body', 'name'], 'string_too_long'],
    ['a secret value over 65,536 characters', githubBody({ secrets: [{ name: 'K', value: 'v'.repeat(65_537) }] }), ['body', 'secrets', 0, 'value'], 'string_too_long'],
    ['unknown source', { ...githubBody(), source: 'gitlab' }, ['body', 'source'], 'enum'],
    [
      'unknown deployment_type',
      githubBody({ source_config: { deployment_type: 'staging' } }),
      ['body', 'source_config', 'deployment_type'],
      'enum',
    ],
    ['unknown field', { ...githubBody(), colour: 'blue' }, ['body', 'colour'], 'extra_forbidden'],
    [
      'max_scale 0',
      githubBody({ source_config: { resource_spec: { max_scale: 0 } } }),
      ['body', 'source_config', 'resource_spec', 'max_scale'],
      'greater_than_equal',
    ],
    [
      'build_on_push not a boolean',
      githubBody({ source_config: { build_on_push: 'yes please' } }),
      ['body', 'source_config', 'build_on_push'],
      'bool_type',
    ],
  ])('%s is a 422 naming the field', async (_case, body, loc, type) => {
    expect(onlyValidationItem(await t.api.post('/v2/deployments', body))).toMatchObject({ loc, type });
  });
});

describe('create: rules between fields', () => {
  test.each([
    ['github without repo_url', { name: uniqueName(), source: 'github' }, ['body', 'source_config', 'repo_url']],
    [
      'external_docker without image_uri',
      { name: uniqueName(), source: 'external_docker' },
      ['body', 'source_revision_config', 'image_uri'],
    ],
    [
      'image_uri on github',
      githubBody({ source_revision_config: { image_uri: 'x:1' } }),
      ['body', 'source_revision_config', 'image_uri'],
    ],
    [
      'repo_ref on external_docker',
      { ...dockerBody(), source_revision_config: { image_uri: 'x:1', repo_ref: 'main' } },
      ['body', 'source_revision_config', 'repo_ref'],
    ],
    [
      'graph_config_path on external_docker',
      { ...dockerBody(), source_revision_config: { image_uri: 'x:1', graph_config_path: 'g.json' } },
      ['body', 'source_revision_config', 'graph_config_path'],
    ],
    [
      'a tag ref with build_on_push',
      githubBody({ source_config: { build_on_push: true }, source_revision_config: { repo_ref: 'refs/tags/v1.0.0' } }),
      ['body', 'source_config', 'build_on_push'],
    ],
    [
      'min_scale above max_scale',
      githubBody({ source_config: { resource_spec: { min_scale: 3, max_scale: 2 } } }),
      ['body', 'source_config', 'resource_spec', 'min_scale'],
    ],
    [
      'a custom_url that is not a URL',
      githubBody({ source_config: { custom_url: 'agent.example.com' } }),
      ['body', 'source_config', 'custom_url'],
    ],
    [
      'a repo_url with a space (a URL parser would mend it)',
      githubBody({ source_config: { repo_url: 'https://github.com/example/my agent' } }),
      ['body', 'source_config', 'repo_url'],
    ],
    [
      'a repo_url with one slash after the scheme (a URL parser would mend it)',
      githubBody({ source_config: { repo_url: 'http:/github.com/example/a' } }),
      ['body', 'source_config', 'repo_url'],
    ],
    [
      'a custom_url with one slash after the scheme',
      githubBody({ source_config: { custom_url: 'https:/agent.example.com' } }),
      ['body', 'source_config', 'custom_url'],
    ],
    [
      'a repo_url that carries a token',
      { name: 'with-token', source: 'github', source_config: { repo_url: 'https://x-access-token:ghp_secret@github.com/example/a' } },
      ['body', 'source_config', 'repo_url'],
    ],
    [
      'a custom_url that carries a user name and password',
      githubBody({ source_config: { custom_url: 'https://user:password@agent.example.com' } }),
      ['body', 'source_config', 'custom_url'],
    ],
    [
      'duplicate secret names',
      githubBody({
        secrets: [
          { name: 'K', value: 'a' },
          { name: 'K', value: 'b' },
        ],
      }),
      ['body', 'secrets', 1, 'name'],
    ],
  ])('%s is a 422 at that field', async (_case, body, loc) => {
    expect(onlyValidationItem(await t.api.post('/v2/deployments', body)).loc).toEqual(loc);
  });
  test('a URL scheme in capitals is a scheme (RFC 3986): accepted, and kept as sent', async () => {
    const created = await createDeployment(t.api, githubBody({ source_config: { repo_url: 'HTTPS://GitHub.com/example/a/' } }));
    expect(created.source_config.repo_url).toBe('HTTPS://GitHub.com/example/a/');
  });
  test('a secret value of 65,536 characters is accepted, counted as characters (code points), not UTF-16 units', async () => {
    // an emoji is one character and two UTF-16 units: 65,536 characters, 131,072 units
    await createDeployment(t.api, githubBody({ secrets: [{ name: 'EMOJI', value: '😀'.repeat(65_536) }] }));
  });
  test('a tag ref without build_on_push, and build_on_push on a branch, are accepted', async () => {
    await createDeployment(t.api, githubBody({ source_revision_config: { repo_ref: 'refs/tags/v1.0.0' } }));
    const created = await createDeployment(t.api, githubBody({ source_config: { build_on_push: true } }));
    expect(created.source_config.build_on_push).toBe(true);
  });
});

describe('create: what a new deployment looks like', () => {
  test('201 with the Deployment schema, defaults, READY, the first revision as latest, no active revision', async () => {
    const response = await t.api.post('/v2/deployments', {
      name: uniqueName(),
      source: 'github',
      source_config: { repo_url: 'https://github.com/example/a' },
    });
    expect(response.status).toBe(201);
    const created = Deployment.parse(response.body);
    expect(Object.keys(response.body).sort()).toEqual(Object.keys(Deployment.shape).sort());
    expect(created).toMatchObject({ status: 'READY', tenant_id: t.platform.defaultTenantId, active_revision_id: null });
    expect(created.source_config.deployment_type).toBe('prod');
    expect(created.source_revision_config).toMatchObject({
      repo_ref: 'main',
      graph_config_path: 'langgraph.json',
      image_uri: null,
    });
    const [first] = await listRevisions(t.api, created.id);
    expect(first.id).toBe(created.latest_revision_id);
    expect(first.status).toBe('CREATING');
  });
  test('a github revision carries a 40-hex repo_commit_sha; an image revision none', async () => {
    const gh = await createDeployment(t.api, githubBody());
    expect(gh.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const img = await createDeployment(t.api, dockerBody());
    expect(img.source_revision_config.repo_commit_sha).toBeNull();
  });
  test('a name is unique in a workspace: a second create is a 409 naming the existing id', async () => {
    const body = githubBody();
    const first = await createDeployment(t.api, body);
    const again = await t.api.post('/v2/deployments', body);
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(`Deployment named '${body.name}' already exists in this workspace (id ${first.id})`);
    const other = t.platform.admin.createWorkspace(t.platform.defaultOrganizationId, uniqueName('ws'));
    await createDeployment(t.api, body, other);
  });
});

describe('url', () => {
  test("the platform's address of the deployment, or its custom_url", async () => {
    const plain = await createDeployment(t.api, githubBody());
    expect(plain.url).toBe(`${t.platform.url}/deployments/${plain.id}`);
    const custom = await createDeployment(
      t.api,
      githubBody({ source_config: { custom_url: 'https://agent.example.com' } }),
    );
    expect(custom.url).toBe('https://agent.example.com');
  });
});

describe('secrets', () => {
  test('values are never returned, nor stored in clear', async () => {
    const value = `s3cr3t-${uniqueName()}`;
    const created = await createDeployment(t.api, githubBody({ secrets: [{ name: 'OPENAI_API_KEY', value }] }));
    expect(created.secrets).toEqual([{ name: 'OPENAI_API_KEY' }]);
    const responses = [
      await t.api.get(`/v2/deployments/${created.id}`),
      await t.api.get('/v2/deployments?limit=100'),
      await patch(created.id, { secrets: [{ name: 'OPENAI_API_KEY', value }] }),
    ];
    for (const response of responses) expect(JSON.stringify(response.body)).not.toContain(value);
    DeploymentsList.parse(responses[1].body);
    for (const file of fs.readdirSync(t.dataDir)) {
      expect(fs.readFileSync(path.join(t.dataDir, file)).includes(value)).toBe(false);
    }
  });
});

describe('PATCH: immutable fields', () => {
  let created: Deployment;
  beforeAll(async () => {
    created = await createDeployment(t.api, githubBody());
  });
  test.each([
    ['source', { source: 'external_docker' }, ['body', 'source']],
    [
      'repo_url',
      { source_config: { repo_url: 'https://github.com/example/other' } },
      ['body', 'source_config', 'repo_url'],
    ],
    ['integration_id', { source_config: { integration_id: 'int-2' } }, ['body', 'source_config', 'integration_id']],
    ['deployment_type', { source_config: { deployment_type: 'dev' } }, ['body', 'source_config', 'deployment_type']],
  ])('changing %s is a 422 naming it', async (_field, body, loc) => {
    expect(onlyValidationItem(await patch(created.id, body)).loc).toEqual(loc);
  });
  test('sending the same values is accepted', async () => {
    const same = await patch(created.id, {
      source: 'github',
      source_config: { repo_url: created.source_config.repo_url, deployment_type: 'prod' },
    });
    expect(same.status).toBe(200);
  });
  test('sending null for them is accepted and changes nothing', async () => {
    const unchanged = await patch(created.id, { source: null, source_config: { repo_url: null, deployment_type: null } });
    expect(unchanged.status).toBe(200);
    expect(Deployment.parse(unchanged.body)).toMatchObject({ source: 'github', source_config: { repo_url: created.source_config.repo_url, deployment_type: 'prod' } });
  });
  test('fields of the other source are a 422', async () => {
    expect(onlyValidationItem(await patch(created.id, { source_revision_config: { image_uri: 'x:2' } })).loc).toEqual([
      'body',
      'source_revision_config',
      'image_uri',
    ]);
  });
});

describe('PATCH: a tag ref needs build_on_push false, judged on the merged result', () => {
  test('build_on_push true onto a tag ref is a 422 at build_on_push', async () => {
    const created = await createDeployment(t.api, githubBody({ source_revision_config: { repo_ref: 'refs/tags/v1' } }));
    expect(onlyValidationItem(await patch(created.id, { source_config: { build_on_push: true } })).loc).toEqual([
      'body',
      'source_config',
      'build_on_push',
    ]);
  });
  test('a tag ref onto build_on_push true is a 422 at repo_ref; with build_on_push false in the same PATCH it passes', async () => {
    const created = await createDeployment(t.api, githubBody({ source_config: { build_on_push: true } }));
    const refOnly = { source_revision_config: { repo_ref: 'refs/tags/v2' } };
    expect(onlyValidationItem(await patch(created.id, refOnly)).loc).toEqual([
      'body',
      'source_revision_config',
      'repo_ref',
    ]);
    expect((await patch(created.id, { ...refOnly, source_config: { build_on_push: false } })).status).toBe(200);
  });
  test('scale bounds are checked on the merged resource_spec', async () => {
    const created = await createDeployment(
      t.api,
      githubBody({ source_config: { resource_spec: { min_scale: 2, max_scale: 4 } } }),
    );
    // the error is at what the request sent
    expect(onlyValidationItem(await patch(created.id, { source_config: { resource_spec: { max_scale: 1 } } }))).toMatchObject({
      type: 'value_error',
      loc: ['body', 'source_config', 'resource_spec', 'max_scale'],
    });
    expect(onlyValidationItem(await patch(created.id, { source_config: { resource_spec: { min_scale: 5 } } })).loc).toEqual([
      'body',
      'source_config',
      'resource_spec',
      'min_scale',
    ]);
    const ok = await patch(created.id, { source_config: { resource_spec: { max_scale: 3 } } });
    expect(Deployment.parse(ok.body).source_config.resource_spec).toEqual({
      min_scale: 2,
      max_scale: 3,
      cpu: null,
      memory_mb: null,
    });
  });
});

describe('PATCH: which changes make a new revision', () => {
  test.each([
    ['repo_ref', { source_revision_config: { repo_ref: 'release' } }],
    ['graph_config_path', { source_revision_config: { graph_config_path: 'graphs/research.json' } }],
    ['a changed secret value', { secrets: [{ name: 'TOKEN', value: 'two' }] }],
    [
      'an added secret',
      {
        secrets: [
          { name: 'TOKEN', value: 'one' },
          { name: 'OTHER', value: 'x' },
        ],
      },
    ],
  ])('%s makes one', async (_case, body) => {
    const created = await createDeployment(t.api, githubBody({ secrets: [{ name: 'TOKEN', value: 'one' }] }));
    const updated = Deployment.parse((await patch(created.id, body)).body);
    expect(updated.latest_revision_id).not.toBe(created.latest_revision_id);
    expect(await revisionCount(created.id)).toBe(2);
  });
  test.each([
    ['build_on_push', { source_config: { build_on_push: true } }],
    ['custom_url', { source_config: { custom_url: 'https://x.example.com' } }],
    ['resource_spec', { source_config: { resource_spec: { cpu: 2 } } }],
    ['the same secrets', { secrets: [{ name: 'TOKEN', value: 'one' }] }],
    ['null revision fields', { source_revision_config: { repo_ref: null, graph_config_path: null } }],
  ])('%s does not', async (_case, body) => {
    const created = await createDeployment(t.api, githubBody({ secrets: [{ name: 'TOKEN', value: 'one' }] }));
    const updated = Deployment.parse((await patch(created.id, body)).body);
    expect(updated.latest_revision_id).toBe(created.latest_revision_id);
    expect(await revisionCount(created.id)).toBe(1);
  });
  test('image_uri makes one for external_docker, and the new revision carries the merged config', async () => {
    const created = await createDeployment(t.api, dockerBody('registry.example.com/a:1'));
    const updated = Deployment.parse(
      (await patch(created.id, { source_revision_config: { image_uri: 'registry.example.com/a:2' } })).body,
    );
    expect(updated.source_revision_config.image_uri).toBe('registry.example.com/a:2');
    expect(await revisionCount(created.id)).toBe(2);
  });
  test('a new github revision resolves the new ref to another commit', async () => {
    const created = await createDeployment(t.api, githubBody());
    const updated = Deployment.parse(
      (await patch(created.id, { source_revision_config: { repo_ref: 'feature' } })).body,
    );
    expect(updated.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(updated.source_revision_config.repo_commit_sha).not.toBe(created.source_revision_config.repo_commit_sha);
    expect(updated.source_revision_config.graph_config_path).toBe('langgraph.json');
  });
});

describe('DELETE: the deployment disappears after the delete delay', () => {
  test('202 and AWAITING_DELETE, revisions still listable, PATCH refused, then 404', async () => {
    const created = await createDeployment(t.api, githubBody());
    t.clock.advance(FULL_PIPELINE_MS);
    const response = await t.api.delete(`/v2/deployments/${created.id}`);
    expect(response.status).toBe(202);
    expect(Deployment.parse(response.body).status).toBe('AWAITING_DELETE');
    expect(Deployment.parse((await t.api.get(`/v2/deployments/${created.id}`)).body).status).toBe('AWAITING_DELETE');
    expect(await listRevisions(t.api, created.id)).toHaveLength(1);
    expect((await patch(created.id, { source_config: { build_on_push: true } })).status).toBe(409);
    // also a PATCH that breaks a rule of the body: the deployment takes no change at all
    expect((await patch(created.id, { source: 'external_docker' })).status).toBe(409);
    expect((await t.api.delete(`/v2/deployments/${created.id}`)).status).toBe(202);
    t.clock.advance(TEST_TIMINGS.deleteDelayMs - 1);
    expect((await t.api.get(`/v2/deployments/${created.id}`)).status).toBe(200);
    t.clock.advance(1);
    expect((await t.api.get(`/v2/deployments/${created.id}`)).status).toBe(404);
    expect((await t.api.get(`/v2/deployments/${created.id}/revisions`)).status).toBe(404);
    expect((await t.api.delete(`/v2/deployments/${created.id}`)).status).toBe(404);
  });
});
