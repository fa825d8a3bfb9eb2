/**
 * Conformance of the local platform's control plane with area A of the platform API: every parameter rule, limit,
 * error body and the authentication model, one test per rule, over raw HTTP.
 */
import { randomUUID } from 'node:crypto';
import {
  DeploymentRecord as Deployment,
  DeploymentRecordsList as DeploymentsList,
  ErrorDetail,
  HTTPValidationError,
  RevisionsList,
  SandboxTemplateRecordsList as SandboxTemplatesList,
} from '../../lib/api/schemas/control-plane';
import {
  createDeployment,
  dockerBody,
  FULL_PIPELINE_MS,
  githubBody,
  listRevisions,
  onlyValidationItem,
  startTestPlatform,
  uniqueName,
  type TestPlatform,
} from './support/fixtures';
import { RawApi, removeTempDirs } from './support/http';

let t: TestPlatform;
let deployment: Deployment;
const revisionsPath = () => `/v2/deployments/${deployment.id}/revisions`;

beforeAll(async () => {
  t = await startTestPlatform();
  deployment = await createDeployment(t.api, dockerBody('registry.example.com/agent:0'));
  for (let i = 1; i <= 24; i += 1) {
    const response = await t.api.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: `registry.example.com/agent:${i}` },
    });
    expect(response.status).toBe(200);
  }
  t.clock.advance(FULL_PIPELINE_MS);
});
afterAll(async () => {
  await t.platform.close();
  removeTempDirs();
});

describe('revision list: limit is an integer from 1 to 100, default 20', () => {
  test.each([
    ['0', 'greater_than_equal', 'Input should be greater than or equal to 1'],
    ['101', 'less_than_equal', 'Input should be less than or equal to 100'],
    ['abc', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
  ])('limit=%s is a 422 naming limit', async (limit, type, msg) => {
    const response = await t.api.get(`${revisionsPath()}?limit=${limit}`);
    expect(HTTPValidationError.parse(response.body)).toEqual({ detail: [{ loc: ['query', 'limit'], msg, type }] });
  });
  test('absent limit returns 20 revisions', async () => {
    expect(await listRevisions(t.api, deployment.id)).toHaveLength(20);
  });
  test('limit=1 and limit=100 are accepted', async () => {
    expect(await listRevisions(t.api, deployment.id, '?limit=1')).toHaveLength(1);
    expect(await listRevisions(t.api, deployment.id, '?limit=100')).toHaveLength(25);
  });
});

describe('revision list: offset is an integer >= 0, default 0, and the response offset starts the next page', () => {
  test('offset=-1 is a 422 naming offset', async () => {
    expect(onlyValidationItem(await t.api.get(`${revisionsPath()}?offset=-1`))).toEqual({
      loc: ['query', 'offset'],
      msg: 'Input should be greater than or equal to 0',
      type: 'greater_than_equal',
    });
  });
  test('pages chained by the returned offset cover every revision once, in order', async () => {
    const all = await listRevisions(t.api, deployment.id, '?limit=100');
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const page = RevisionsList.parse((await t.api.get(`${revisionsPath()}?limit=7&offset=${offset}`)).body);
      expect(page.offset).toBe(offset + page.resources.length);
      if (page.resources.length === 0) break;
      seen.push(...page.resources.map((r) => r.id));
      offset = page.offset;
    }
    expect(seen).toEqual(all.map((r) => r.id));
  });
  test('every bad parameter is reported at once, the path first, as FastAPI lists them', async () => {
    const response = await t.api.get('/v2/deployments/not-a-uuid/revisions?limit=0&offset=x&remote_reconciled=maybe');
    expect(HTTPValidationError.parse(response.body).detail.map((d) => d.loc)).toEqual([
      ['path', 'deployment_id'],
      ['query', 'limit'],
      ['query', 'offset'],
      ['query', 'remote_reconciled'],
    ]);
    const both = await t.api.get('/v2/deployments/bad/revisions/worse');
    expect(HTTPValidationError.parse(both.body).detail.map((d) => d.loc)).toEqual([
      ['path', 'deployment_id'],
      ['path', 'revision_id'],
    ]);
  });
});

describe('revision list: status is a comma-separated list checked against the 13 statuses', () => {
  test('an unknown status is a 422 of type enum naming status and the bad value', async () => {
    const item = onlyValidationItem(await t.api.get(`${revisionsPath()}?status=DEPLOYED,FINISHED`));
    expect(item).toMatchObject({ loc: ['query', 'status'], type: 'enum' });
    expect(item.msg).toContain("'CREATING'");
    expect(item.msg).toContain('FINISHED');
  });
  test('a list of known statuses filters by them', async () => {
    const filtered = await listRevisions(t.api, deployment.id, '?status=DEPLOYED,SKIPPED&limit=100');
    expect(filtered.filter((r) => r.status === 'DEPLOYED')).toHaveLength(1);
    expect(filtered.filter((r) => r.status === 'SKIPPED')).toHaveLength(24);
    expect(await listRevisions(t.api, deployment.id, '?status=BUILD_FAILED')).toEqual([]);
  });
  test('a repeated parameter reads as FastAPI reads it: a list collects every value, a scalar takes the last', async () => {
    const repeated = await listRevisions(t.api, deployment.id, '?status=DEPLOYED&status=SKIPPED&limit=100');
    expect(repeated.filter((r) => r.status === 'SKIPPED')).toHaveLength(24);
    expect(repeated.filter((r) => r.status === 'DEPLOYED')).toHaveLength(1);
    expect(onlyValidationItem(await t.api.get(`${revisionsPath()}?limit=1&limit=200`)).loc).toEqual(['query', 'limit']);
    expect(await listRevisions(t.api, deployment.id, '?limit=200&limit=2')).toHaveLength(2);
  });
});

describe('revision list: remote_reconciled is a boolean', () => {
  test('a non-boolean is a 422 naming remote_reconciled', async () => {
    expect(onlyValidationItem(await t.api.get(`${revisionsPath()}?remote_reconciled=maybe`))).toEqual({
      loc: ['query', 'remote_reconciled'],
      msg: 'Input should be a valid boolean, unable to interpret input',
      type: 'bool_parsing',
    });
  });
  test('true selects the deployed (reconciled) revision, false the others', async () => {
    const reconciled = await listRevisions(t.api, deployment.id, '?remote_reconciled=true');
    expect(reconciled.map((r) => r.status)).toEqual(['DEPLOYED']);
    const pending = await listRevisions(t.api, deployment.id, '?remote_reconciled=false&limit=100');
    expect(pending).toHaveLength(24);
  });
});

describe('path parameters are uuids', () => {
  test('a bad deployment_id is a 422 at ["path", "deployment_id"]', async () => {
    expect(onlyValidationItem(await t.api.get('/v2/deployments/123/revisions'))).toMatchObject({
      loc: ['path', 'deployment_id'],
      type: 'uuid_parsing',
    });
  });
  test('a bad revision_id is a 422 at ["path", "revision_id"]', async () => {
    const item = onlyValidationItem(await t.api.get(`${revisionsPath()}/zzz`));
    expect(item).toMatchObject({ loc: ['path', 'revision_id'], type: 'uuid_parsing' });
    expect(item.msg).toMatch(/^Input should be a valid UUID, /);
  });
  test('a uuid with the urn:uuid: prefix the message offers is read, as pydantic reads it', async () => {
    const response = await t.api.get(`/v2/deployments/urn:uuid:${deployment.id.toUpperCase()}`);
    expect(response.status).toBe(200);
    expect((response.body as { id: string }).id).toBe(deployment.id);
  });
});

describe('unknown resources are 404 {"detail"} naming them', () => {
  test('revision list of an unknown deployment', async () => {
    const id = randomUUID();
    const response = await t.api.get(`/v2/deployments/${id}/revisions`);
    expect(response.status).toBe(404);
    expect(ErrorDetail.parse(response.body).detail).toBe(`Deployment ${id} not found`);
  });
  test('an unknown revision of a known deployment', async () => {
    const id = randomUUID();
    const response = await t.api.get(`${revisionsPath()}/${id}`);
    expect(response.status).toBe(404);
    expect(response.body.detail).toContain(id);
  });
  test('an unknown route', async () => {
    const response = await t.api.get('/v2/nothing-here', { key: null });
    expect(response).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
  });
});

describe('revisions are listed newest first', () => {
  test('the first listed is the latest revision, the last the first one', async () => {
    const all = await listRevisions(t.api, deployment.id, '?limit=100');
    const current = Deployment.parse((await t.api.get(`/v2/deployments/${deployment.id}`)).body);
    expect(all[0].id).toBe(current.latest_revision_id);
    expect(all[all.length - 1].id).toBe(deployment.latest_revision_id);
    const created = all.map((r) => Date.parse(r.created_at));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
  });
});

describe('deployment list: name_contains, limit, offset', () => {
  test('name_contains filters case-insensitively and paging follows the same rules', async () => {
    const stem = uniqueName('Listed');
    for (const suffix of ['a', 'b', 'c']) await createDeployment(t.api, dockerBody(undefined, `${stem}-${suffix}`));
    const page = DeploymentsList.parse(
      (await t.api.get(`/v2/deployments?name_contains=${stem.toLowerCase()}&limit=2`)).body,
    );
    expect(page.resources.map((d) => d.name)).toEqual([`${stem}-c`, `${stem}-b`]);
    expect(page.offset).toBe(2);
    const rest = DeploymentsList.parse((await t.api.get(`/v2/deployments?name_contains=${stem}&offset=2`)).body);
    expect(rest.resources.map((d) => d.name)).toEqual([`${stem}-a`]);
    expect(onlyValidationItem(await t.api.get('/v2/deployments?limit=101')).loc).toEqual(['query', 'limit']);
  });
});

describe('request bodies', () => {
  test('malformed JSON is a 422 of type json_invalid', async () => {
    const item = onlyValidationItem(await t.api.post('/v2/deployments', '{"name": '));
    // where the text went wrong, as FastAPI (Python's json) reports it: here the end of the text, where a value was due
    expect(item).toEqual({ loc: ['body', 9], type: 'json_invalid', msg: 'JSON decode error' });
    expect(onlyValidationItem(await t.api.post('/v2/deployments', '{"name": "a", "source": githb}')).loc).toEqual(['body', 24]);
    // a body of spaces is text, not an absent body: malformed at its end, as Python's json finds it
    expect(onlyValidationItem(await t.api.post('/v2/deployments', ' '))).toEqual({ loc: ['body', 1], type: 'json_invalid', msg: 'JSON decode error' });
  });
  test('a missing body is a 422 at ["body"]', async () => {
    expect(onlyValidationItem(await t.api.request('POST', '/v2/deployments'))).toEqual({
      loc: ['body'],
      msg: 'Field required',
      type: 'missing',
    });
  });
});

describe('every response carries an x-request-id', () => {
  test.each([
    ['200', () => t.api.get('/v2/deployments')],
    ['401', () => t.api.get('/v2/deployments', { key: null })],
    ['404', () => t.api.get(`/v2/deployments/${randomUUID()}`)],
    ['422', () => t.api.get('/v2/deployments?limit=0')],
  ])('on a %s', async (_status, call) => {
    expect((await call()).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('authentication', () => {
  test('no key is a 401 {"detail"}', async () => {
    const response = await t.api.get('/v2/deployments', { key: null });
    expect(response.status).toBe(401);
    expect(typeof ErrorDetail.parse(response.body).detail).toBe('string');
  });
  test('an unknown key is a 401 that does not echo the key', async () => {
    const response = await t.api.get('/v2/deployments', { key: 'lp_not-a-real-key-0001' });
    expect(response.status).toBe(401);
    expect(JSON.stringify(response.body)).not.toContain('lp_not-a-real-key-0001');
  });
  test('Authorization: Bearer <key> works', async () => {
    const response = await t.api.get('/v2/deployments', {
      key: null,
      headers: { Authorization: `Bearer ${t.platform.devApiKey}` },
    });
    expect(response.status).toBe(200);
  });
  test('a lower-case x-api-key header works', async () => {
    const response = await t.api.get('/v2/deployments', { key: null, headers: { 'x-api-key': t.platform.devApiKey } });
    expect(response.status).toBe(200);
  });
  test('X-Tenant-Id of another organization is a 403, as is one that is not a uuid', async () => {
    const other = t.platform.admin.createOrganization('other-org');
    expect((await t.api.get('/v2/deployments', { tenant: other.tenantIds[0] })).status).toBe(403);
    expect((await t.api.get('/v2/deployments', { tenant: 'workspace-1' })).status).toBe(403);
    expect((await t.api.get('/v2/deployments', { tenant: randomUUID() })).status).toBe(403);
  });
  test("another organization's key cannot see this workspace's deployment (404)", async () => {
    const other = t.platform.admin.createOrganization('outsider');
    const outsider = new RawApi(t.platform.url, other.apiKey);
    const response = await outsider.get(`/v2/deployments/${deployment.id}`);
    expect(response.status).toBe(404);
    expect(response.body.detail).toContain(deployment.id);
    expect((await outsider.get(revisionsPath())).status).toBe(404);
  });
  test('a second workspace of the same organization is allowed and isolated', async () => {
    const second = t.platform.admin.createWorkspace(t.platform.defaultOrganizationId, uniqueName('ws'));
    const created = await createDeployment(t.api, githubBody(), second);
    expect(created.tenant_id).toBe(second);
    expect((await t.api.get(`/v2/deployments/${created.id}`, { tenant: second })).status).toBe(200);
    expect((await t.api.get(`/v2/deployments/${created.id}`)).status).toBe(404);
    const defaultList = DeploymentsList.parse((await t.api.get('/v2/deployments?limit=100')).body);
    expect(defaultList.resources.map((d) => d.id)).not.toContain(created.id);
  });
});

describe('sandbox templates', () => {
  test('GET /v2/sandboxes/templates needs a key', async () => {
    expect((await t.api.get('/v2/sandboxes/templates', { key: null })).status).toBe(401);
  });
  test('lists the two seeded templates in the SandboxTemplate shape', async () => {
    const list = SandboxTemplatesList.parse((await t.api.get('/v2/sandboxes/templates')).body);
    expect(list.templates.map((tpl) => tpl.name)).toEqual(['python-3.12', 'node-22']);
    for (const template of list.templates) {
      expect(template.resources.cpu).toMatch(/^\d+m?$/);
      expect(template.volume_mounts.length).toBeGreaterThan(0);
      expect(template.proxy_config.rules[0].match_hosts.length).toBeGreaterThan(0);
    }
  });
  test("POST adds a template to the caller's workspace only; a bad one is a 422, a taken name a 409", async () => {
    const body = { name: uniqueName('tpl'), image: 'ubuntu:24.04', resources: { cpu: '2', memory: '4Gi' } };
    const created = await t.api.post('/v2/sandboxes/templates', body);
    expect(created.status).toBe(201);
    const names = SandboxTemplatesList.parse((await t.api.get('/v2/sandboxes/templates')).body).templates.map(
      (x) => x.name,
    );
    expect(names).toContain(body.name);
    const outsider = new RawApi(t.platform.url, t.platform.admin.createOrganization('tpl-outsider').apiKey);
    const theirs = SandboxTemplatesList.parse((await outsider.get('/v2/sandboxes/templates')).body);
    expect(theirs.templates.map((x) => x.name)).not.toContain(body.name);
    expect((await t.api.post('/v2/sandboxes/templates', body)).status).toBe(409);
    const bad = await t.api.post('/v2/sandboxes/templates', { name: 'x', image: 'y', resources: { cpu: 'lots' } });
    expect(onlyValidationItem(bad)).toEqual({
      loc: ['body', 'resources', 'cpu'],
      type: 'string_pattern_mismatch',
      msg: 'String should be a Kubernetes quantity of 0 or more: a number with an optional suffix, e.g. 500m, 2, 1.5, 512Mi, 2Gi, 1Pi, 10G or 1e3',
    });
  });
  test('resources take every Kubernetes quantity; a negative one, or another unit, is refused', async () => {
    for (const cpu of ['1e3', '1E', '+2', '.5', '1.', '250m', '2E-1', '100n', '5u']) {
      const answer = await t.api.post('/v2/sandboxes/templates', { name: uniqueName('qty'), image: 'i', resources: { cpu, memory: '1Pi', storage: '1Ei' } });
      expect([cpu, answer.status]).toEqual([cpu, 201]);
    }
    for (const memory of ['-1Gi', '1GB', '1 Gi', 'e3']) {
      const answer = await t.api.post('/v2/sandboxes/templates', { name: uniqueName('qty'), image: 'i', resources: { memory } });
      expect([memory, onlyValidationItem(answer).loc]).toEqual([memory, ['body', 'resources', 'memory']]);
    }
  });
  test('a proxy rule injects only headers that are valid on the wire: a 422 names the header, a name that is not a token by its place only', async () => {
    const rule = (inject_headers: Record<string, string>) => ({
      name: uniqueName('hdr'),
      image: 'i',
      proxy_config: { rules: [{ name: 'r', match_hosts: ['example.com'], inject_headers }] },
    });
    const at = ['body', 'proxy_config', 'rules', 0, 'inject_headers'];
    const spaced = onlyValidationItem(await t.api.post('/v2/sandboxes/templates', rule({ 'X-Ok': 'a', 'X Team': 'a' })));
    expect(spaced).toMatchObject({ loc: at, type: 'value_error' });
    expect(spaced.msg).toMatch(/^Value error, the name of header 2 is not an HTTP token \(its character 2, a space, is not allowed; /);
    // a whole header pasted as a name, secret included: the name is repeated nowhere in the answer
    const secret = 'sk-live-0123456789abcdefSECRET';
    for (const value of ['', 7]) {
      const pasted = await t.api.post('/v2/sandboxes/templates', rule({ [`Authorization: Bearer ${secret}`]: value as string }));
      expect(onlyValidationItem(pasted)).toMatchObject({ loc: at, type: 'value_error' });
      expect(onlyValidationItem(pasted).msg).toContain('its character 14, ":", is not allowed');
      expect(JSON.stringify(pasted.body)).not.toMatch(/SECRET|0123456789|Bearer/);
    }
    expect(onlyValidationItem(await t.api.post('/v2/sandboxes/templates', rule({ 'X-Count': 7 as unknown as string })))).toMatchObject({
      loc: [...at, 'X-Count'],
      type: 'string_type',
    });
    const split = onlyValidationItem(await t.api.post('/v2/sandboxes/templates', rule({ 'X-Team': 'a\r\nX-Admin: 1' })));
    expect(split).toMatchObject({ loc: [...at, 'X-Team'], type: 'value_error' });
    expect(split.msg).toMatch(/^Value error, the value of header X-Team holds a CR, LF or other control character/);
    expect(onlyValidationItem(await t.api.post('/v2/sandboxes/templates', rule({ 'X-Nul': 'a\u0000' }))).loc).toEqual([...at, 'X-Nul']);
    expect((await t.api.post('/v2/sandboxes/templates', rule({ Authorization: 'Bearer a\tb', 'X-Empty': '' }))).status).toBe(201);
  });
  test('text that is not well-formed Unicode is a 422 at its field (it would be stored changed)', async () => {
    const answer = await t.api.post('/v2/sandboxes/templates', { name: uniqueName('tpl'), image: 'img\ud800' });
    expect(onlyValidationItem(answer)).toMatchObject({ loc: ['body', 'image'], type: 'string_unicode' });
  });
});
