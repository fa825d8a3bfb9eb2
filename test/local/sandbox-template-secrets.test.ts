/**
 * The headers a sandbox template's proxy rules inject (bearer tokens, API keys) are sealed at rest with the data dir's
 * key, as deployment secrets and destination credentials are, and the API shows each of their values redacted; a data
 * dir of an earlier version, which kept them in plaintext, has them sealed when it is opened.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AUTH_MIGRATIONS } from '../../lib/local/auth';
import { DEPLOYMENT_MIGRATIONS } from '../../lib/local/control-plane/store';
import { DATABASE_FILE, migrate, openDatabase } from '../../lib/local/db';
import { startLocalPlatform } from '../../lib/local/platform';
import { REDACTED_HEADER_VALUE, SANDBOX_TEMPLATE_MIGRATIONS } from '../../lib/local/sandbox-templates';
import { SecretBox } from '../../lib/local/secret-box';
import { RawApi, removeTempDirs, tempDataDir } from './support/http';

afterAll(() => removeTempDirs());

const TOKEN = 'Bearer ghp_SEALED0123456789abcdefSECRET';
const template = (name: string) => ({
  name,
  image: 'python:3.12',
  proxy_config: {
    rules: [
      { name: 'github', match_hosts: ['api.github.com'], inject_headers: { Authorization: TOKEN, 'X-Team': 'platform' } },
      { name: 'none', match_hosts: ['example.com'] },
    ],
  },
});
const shownRules = [
  expect.objectContaining({ name: 'github', inject_headers: { Authorization: REDACTED_HEADER_VALUE, 'X-Team': REDACTED_HEADER_VALUE } }),
  expect.objectContaining({ name: 'none', inject_headers: {} }),
];

/** Every byte of the data dir's database files, as text: what a copy of the data dir would give away. */
const databaseBytes = (dataDir: string): string =>
  fs
    .readdirSync(dataDir)
    .filter((file) => file.startsWith(DATABASE_FILE))
    .map((file) => fs.readFileSync(path.join(dataDir, file)).toString('latin1'))
    .join('');

/** The injected headers of template `name` as sealed in the data dir, opened with its key. */
function sealedHeaders(dataDir: string, name: string): unknown {
  const db = openDatabase(dataDir);
  try {
    const sealed = db.prepare('SELECT sealed_headers FROM cp_sandbox_templates WHERE name = ?').pluck().get(name) as string;
    return JSON.parse(SecretBox.forDataDir(db, dataDir, []).decrypt(sealed));
  } finally {
    db.close();
  }
}

test('a template added through the API is answered and listed with its header values redacted, and stored sealed', async () => {
  const dataDir = tempDataDir();
  const platform = await startLocalPlatform({ dataDir });
  const api = new RawApi(platform.url, platform.devApiKey);
  const created = await api.post('/v2/sandboxes/templates', template('with-token'));
  expect(created.status).toBe(201);
  expect(created.body.proxy_config.rules).toEqual(shownRules);
  const listed = (await api.get('/v2/sandboxes/templates')).body.templates.find((t: { name: string }) => t.name === 'with-token');
  expect(listed.proxy_config.rules).toEqual(shownRules);
  expect(JSON.stringify(listed)).not.toContain('SECRET');
  await platform.close();

  expect(databaseBytes(dataDir)).not.toContain('SECRET');
  expect(sealedHeaders(dataDir, 'with-token')).toEqual([{ Authorization: TOKEN, 'X-Team': 'platform' }, {}]);
});

test('a data dir of an earlier version, its headers in plaintext, has them sealed and redacted when it is opened', async () => {
  const dataDir = tempDataDir();
  // the schema as the version before sealing left it, with a template it stored
  const db = openDatabase(dataDir);
  migrate(db, [AUTH_MIGRATIONS, { module: 'control-plane', migrations: [...DEPLOYMENT_MIGRATIONS, ...SANDBOX_TEMPLATE_MIGRATIONS.slice(0, 1)] }]);
  const stored = { ...template('old-token'), resources: {}, volume_mounts: [], proxy_config: { rules: [{ ...template('x').proxy_config.rules[0], match_paths: [], enabled: true }], no_proxy: [] } };
  db.prepare("INSERT INTO cp_sandbox_templates (id, tenant_id, name, body, created_at, updated_at) VALUES ('5e1f0000-0000-4000-8000-0000000000dd', NULL, 'old-token', ?, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')").run(JSON.stringify(stored));
  db.close();
  expect(databaseBytes(dataDir)).toContain('SECRET');

  const platform = await startLocalPlatform({ dataDir });
  const list = (await new RawApi(platform.url, platform.devApiKey).get('/v2/sandboxes/templates')).body.templates as { name: string; proxy_config: { rules: unknown[] } }[];
  expect(list.map((t) => t.name)).toEqual(['python-3.12', 'node-22', 'old-token']);
  expect(list[2]!.proxy_config.rules).toEqual([shownRules[0]]);
  await platform.close();

  expect(databaseBytes(dataDir)).not.toContain('SECRET');
  expect(sealedHeaders(dataDir, 'old-token')).toEqual([{ Authorization: TOKEN, 'X-Team': 'platform' }]);
  // a second start finds nothing left to seal, and shows the same
  const again = await startLocalPlatform({ dataDir });
  const relisted = (await new RawApi(again.url, again.devApiKey).get('/v2/sandboxes/templates')).body.templates as { proxy_config: { rules: unknown[] } }[];
  expect(relisted[2]!.proxy_config.rules).toEqual([shownRules[0]]);
  await again.close();
  expect(sealedHeaders(dataDir, 'old-token')).toEqual([{ Authorization: TOKEN, 'X-Team': 'platform' }]);
});
