/**
 * Fast routes answer the plain case of the hottest reads before the app, and must answer exactly as the app does.
 * The app's own route is reached with the same path plus an empty query string (`?`), which fast routes never take,
 * so every case below compares the two over real HTTP, and the platform's count of fast answers shows which of them
 * answered the plain path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../../lib/local/db';
import { FastRoutes } from '../../lib/local/fast-routes';
import { UnchangedCache } from '../../lib/local/unchanged-cache';
import { createDeployment, FULL_PIPELINE_MS, githubBody, startTestPlatform, STEP_MS, type TestPlatform } from './support/fixtures';
import { tempDataDir } from './support/http';

describe('FastRoutes', () => {
  let server: Server;
  let base: string;
  const lines: string[] = [];
  const routes = new FastRoutes((line) => lines.push(line));
  let calls = 0;
  routes.get(/^\/items\/(\d+)$/, (match, header) => {
    calls += 1;
    if (match[1] === '0') return undefined;
    if (match[1] === '13') throw new Error('unlucky');
    return { status: 200, body: JSON.stringify({ item: Number(match[1]), key: header('x-api-key') ?? null, auth: header('authorization') ?? null }) };
  });
  beforeAll(async () => {
    server = createServer((req, res) => routes.answer(req, res) || res.writeHead(418).end('app'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers a matched GET with JSON, a request id and a log line like the app', async () => {
    const response = await fetch(`${base}/items/7`, { headers: { 'x-api-key': 'k1', authorization: 'Bearer secret' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // `authorization` is left to the app, which reads it the fetch way.
    expect(await response.json()).toEqual({ item: 7, key: 'k1', auth: null });
    expect(lines.at(-1)).toMatch(/^GET \/items\/7 200 \d+\.\dms$/);
  });

  it('leaves to the app whatever it does not take: other methods, query strings, no match, a decline, an error', async () => {
    const before = calls;
    for (const [method, path] of [['POST', '/items/7'], ['GET', '/items/7?x=1'], ['GET', '/items/7/'], ['GET', '/items/0'], ['GET', '/items/13']]) {
      const response = await fetch(`${base}${path}`, { method });
      expect([method, path, response.status, await response.text()]).toEqual([method, path, 418, 'app']);
    }
    expect(calls - before).toBe(2);
  });
});

describe('UnchangedCache', () => {
  it('keeps a value until the connection writes, and never keeps undefined', () => {
    const db = openDatabase(tempDataDir());
    try {
      db.exec('CREATE TABLE t (v TEXT)');
      const cache = new UnchangedCache<string>(db, 2);
      let computed = 0;
      const read = (key: string) => cache.get(key, () => ((computed += 1), (db.prepare('SELECT group_concat(v) AS v FROM t').get() as { v: string | null }).v ?? undefined));
      expect(read('a')).toBeUndefined();
      db.prepare('INSERT INTO t (v) VALUES (?)').run('x');
      expect([read('a'), read('a'), computed]).toEqual(['x', 'x', 2]);
      db.prepare('INSERT INTO t (v) VALUES (?)').run('y');
      expect([read('a'), computed]).toEqual(['x,y', 3]);
      // Beyond its size it starts over rather than grow.
      read('b');
      read('c');
      expect([read('a'), computed]).toEqual(['x,y', 6]);
    } finally {
      db.close();
    }
  });
});

describe('GET revision: the fast route answers as the app does', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(() => t.platform.close());

  /**
   * The fast route's answer and the app's, with the request id left out; `fast` is what the app would answer unless
   * the fast route declines (`fastTakes: false`), and the count of fast answers shows which one answered.
   */
  const both = async (path: string, options: Parameters<TestPlatform['api']['get']>[1] = {}, fastTakes = true) => {
    const before = t.platform.fastAnswers;
    const fast = await t.api.get(path, options);
    expect({ path, answeredFast: t.platform.fastAnswers - before }).toEqual({ path, answeredFast: fastTakes ? 1 : 0 });
    const app = await t.api.get(`${path}?`, options);
    expect(t.platform.fastAnswers - before).toBe(fastTakes ? 1 : 0);
    // the Date header is the platform's clock (a manual one here), on both paths
    const view = (r: typeof fast) => ({ status: r.status, type: r.headers.get('content-type'), date: r.headers.get('date'), body: r.body });
    return { fast: view(fast), app: view(app) };
  };

  it('through every status of the pipeline, a new revision, and the deletion', async () => {
    const d = await createDeployment(t.api, githubBody());
    const path = `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`;
    const seen: string[] = [];
    for (let step = 0; step <= 6; step++) {
      const { fast, app } = await both(path);
      expect(fast).toEqual(app);
      expect(fast.date).toBe(new Date(t.clock.now()).toUTCString());
      seen.push(fast.body.status);
      t.clock.advance(STEP_MS);
    }
    expect(seen).toEqual(['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);

    const patched = await t.api.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: 'release' } });
    expect(patched.status).toBe(200);
    t.clock.advance(FULL_PIPELINE_MS);
    const newer = await both(`/v2/deployments/${d.id}/revisions/${patched.body.latest_revision_id}`);
    expect(newer.fast).toEqual(newer.app);
    expect(newer.fast.body).toMatchObject({ status: 'DEPLOYED', source_revision_config: { repo_ref: 'release' } });

    expect((await t.api.delete(`/v2/deployments/${d.id}`)).status).toBe(202);
    t.clock.advance(FULL_PIPELINE_MS);
    // a deployment that is gone: the fast route declines, and the app answers the 404
    const gone = await both(path, {}, false);
    expect(gone.fast).toEqual(gone.app);
    expect(gone.fast.status).toBe(404);
  });

  it('leaves every error, Bearer and ids not in canonical form to the app: no key, a wrong key, another workspace, unknown ids', async () => {
    const d = await createDeployment(t.api, githubBody());
    const path = `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`;
    const other = t.platform.admin.createOrganization('other');
    const cases: [string, Parameters<TestPlatform['api']['get']>[1], number][] = [
      [path, { key: null }, 401],
      [path, { key: 'not-a-key-at-all' }, 401],
      [path, { key: null, headers: { authorization: `Bearer ${t.platform.devApiKey}` } }, 200],
      [path, { tenant: other.tenantIds[0] }, 403],
      [path, { key: other.apiKey }, 404],
      [`/v2/deployments/${d.id}/revisions/00000000-0000-4000-8000-000000000000`, {}, 404],
      [`/v2/deployments/00000000-0000-4000-8000-000000000000/revisions/${d.latest_revision_id}`, {}, 404],
      [path.toUpperCase().replace('/V2/DEPLOYMENTS/', '/v2/deployments/').replace('/REVISIONS/', '/revisions/'), {}, 200],
      [`/v2/deployments/${d.id}/revisions/not-a-uuid`, {}, 422],
    ];
    for (const [casePath, options, status] of cases) {
      const { fast, app } = await both(casePath, options, false);
      expect({ casePath, ...fast }).toEqual({ casePath, ...app });
      expect({ casePath, status: fast.status }).toEqual({ casePath, status });
    }
  });
});
