/**
 * A data dir made by an earlier version of the local platform starts as it was: its secrets are opened with the key
 * they were sealed with, and a start with any other key is refused before anything is written (its migrations
 * included); its API keys keep
 * working, but for the dev key once other keys are given; its files become their owner's alone; its idempotency keys,
 * kept without a digest of their body, match any body for the rest of their day.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AUTH_MIGRATIONS } from '../../lib/local/auth';
import { DATABASE_FILE, migrate, openDatabase } from '../../lib/local/db';
import { startLocalPlatform, type LocalPlatform, type LocalPlatformOptions } from '../../lib/local/platform';
import { SECRET_KEY_ENV } from '../../lib/local/secret-box';
import { createDeployment, githubBody } from './support/fixtures';
import { RawApi, removeTempDirs, tempDataDir } from './support/http';

afterAll(() => removeTempDirs());

const mode = (file: string): number => fs.statSync(file).mode & 0o777;
const status = async (platform: LocalPlatform, apiKey: string): Promise<number> =>
  (await fetch(`${platform.url}/v2/deployments`, { headers: { 'X-Api-Key': apiKey } })).status;

/** Runs `body` with the secret key variable set to `key`. */
async function withSecretKey<T>(key: string, body: () => Promise<T>): Promise<T> {
  process.env[SECRET_KEY_ENV] = key;
  try {
    return await body();
  } finally {
    delete process.env[SECRET_KEY_ENV];
  }
}

/** What a start says when it is refused; a start that is not is stopped at once. */
async function refusal(options: LocalPlatformOptions): Promise<string> {
  try {
    await (await startLocalPlatform(options)).close();
    return 'started';
  } catch (err) {
    return (err as Error).message;
  }
}

/** Deletes the data dir's record of its secret key, which versions before it did not keep. */
function forgetKeyRecord(dataDir: string): void {
  const db = openDatabase(dataDir);
  db.prepare("DELETE FROM platform_settings WHERE name = 'secret_key_check'").run();
  db.close();
}

describe('the secret key of a data dir made before it kept a record of its key', () => {
  test('secrets sealed with the variable\'s key: a start without it is refused, changing nothing; with it, the data dir is taken', async () => {
    const dataDir = tempDataDir();
    const key = randomBytes(32).toString('base64');
    await withSecretKey(key, async () => {
      const platform = await startLocalPlatform({ dataDir });
      await createDeployment(new RawApi(platform.url, platform.devApiKey), githubBody({ secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-sealed' }] }));
      await platform.close();
    });
    forgetKeyRecord(dataDir);
    const files = fs.readdirSync(dataDir).sort();

    expect(await refusal({ dataDir })).toContain(
      `the secrets in ${dataDir} were sealed with a key it does not hold (it has no secret.key, and ${SECRET_KEY_ENV} is not set): ` +
        `set ${SECRET_KEY_ENV} to the key they were sealed with`,
    );
    expect(fs.readdirSync(dataDir).sort()).toEqual(files);

    await withSecretKey(key, async () => (await startLocalPlatform({ dataDir })).close());
    // the key is recorded now: another key is refused as before, and the variable's key still taken
    const keyFile = path.join(dataDir, 'secret.key');
    fs.writeFileSync(keyFile, randomBytes(32).toString('base64'));
    expect(await refusal({ dataDir })).toContain(`were sealed with another key than the one in ${keyFile}`);
    fs.rmSync(keyFile);
    await withSecretKey(key, async () => (await startLocalPlatform({ dataDir })).close());
  });

  test('secrets sealed with the key file\'s key: the data dir starts, and the key is recorded', async () => {
    const dataDir = tempDataDir();
    const platform = await startLocalPlatform({ dataDir });
    await createDeployment(new RawApi(platform.url, platform.devApiKey), githubBody({ secrets: [{ name: 'TOKEN', value: 'sealed' }] }));
    await platform.close();
    forgetKeyRecord(dataDir);
    await (await startLocalPlatform({ dataDir })).close();
    expect(await withSecretKey(randomBytes(32).toString('base64'), () => refusal({ dataDir }))).toContain(
      `were sealed with another key than the one in ${SECRET_KEY_ENV}`,
    );
  });
});

test('a start refused for its secret key leaves the data dir\'s migrations as they were, for the version it came from', async () => {
  const dataDir = tempDataDir();
  const platform = await startLocalPlatform({ dataDir });
  await createDeployment(new RawApi(platform.url, platform.devApiKey), githubBody({ secrets: [{ name: 'TOKEN', value: 'sealed' }] }));
  await platform.close();
  // as a data dir of the version before the last migration: its record is not there (the migration only deletes)
  const pending = 'agents/005-orphan-assistant-crons';
  const applied = (): boolean => {
    const db = openDatabase(dataDir);
    try {
      return db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').pluck().get(pending) !== undefined;
    } finally {
      db.close();
    }
  };
  const db = openDatabase(dataDir);
  db.prepare('DELETE FROM schema_migrations WHERE id = ?').run(pending);
  db.close();

  expect(await withSecretKey(randomBytes(32).toString('base64'), () => refusal({ dataDir }))).toContain(
    `were sealed with another key than the one in ${SECRET_KEY_ENV}`,
  );
  expect(applied()).toBe(false);
  await (await startLocalPlatform({ dataDir })).close();
  expect(applied()).toBe(true);
});

test('API keys of a data dir made before configured keys were told apart: only the dev key leaves with the configuration', async () => {
  const dataDir = tempDataDir();
  const devKey = 'lp_dev-key-of-an-earlier-version';
  const addedKey = 'lp_key-added-with-addApiKey';
  const db = openDatabase(dataDir);
  migrate(db, [{ module: AUTH_MIGRATIONS.module, migrations: AUTH_MIGRATIONS.migrations.slice(0, 1) }]);
  const organizationId = '00000000-0000-4000-8000-000000000001';
  const now = '2026-01-01T00:00:00.000Z';
  db.prepare("INSERT INTO organizations VALUES (?, 'default', ?)").run(organizationId, now);
  db.prepare("INSERT INTO workspaces VALUES ('00000000-0000-4000-8000-000000000002', ?, 'default', 1, ?)").run(organizationId, now);
  db.prepare("INSERT INTO platform_settings VALUES ('default_organization_id', ?)").run(organizationId);
  const insertKey = db.prepare('INSERT INTO api_keys VALUES (?, ?, ?)');
  for (const key of [devKey, addedKey]) insertKey.run(createHash('sha256').update(key).digest('hex'), organizationId, now);
  db.close();
  fs.writeFileSync(path.join(dataDir, 'dev-api-key'), `${devKey}\n`);

  const first = await startLocalPlatform({ dataDir });
  try {
    expect(first.devApiKey).toBe(devKey);
    expect([await status(first, devKey), await status(first, addedKey)]).toEqual([200, 200]);
  } finally {
    await first.close();
  }
  const given = await startLocalPlatform({ dataDir, apiKeys: ['key-given-after-the-upgrade'] });
  try {
    expect([await status(given, devKey), await status(given, addedKey)]).toEqual([401, 200]);
  } finally {
    await given.close();
  }
});

test('a data dir whose files others can read is made its owner\'s alone at start, saying so once', async () => {
  const dataDir = tempDataDir();
  await (await startLocalPlatform({ dataDir })).close();
  fs.chmodSync(dataDir, 0o755);
  for (const file of [DATABASE_FILE, 'secret.key', 'dev-api-key']) fs.chmodSync(path.join(dataDir, file), 0o644);
  const lines: string[] = [];
  const platform = await startLocalPlatform({ dataDir, log: (line) => lines.push(line) });
  try {
    expect(mode(dataDir)).toBe(0o700);
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, 'secret.key', 'dev-api-key']) {
      expect([file, mode(path.join(dataDir, file))]).toEqual([file, 0o600]);
    }
    const told = [dataDir, DATABASE_FILE, 'secret.key', 'dev-api-key'].map((name) => (name === dataDir ? name : path.join(dataDir, name)));
    expect(lines).toEqual([`made ${told.join(', ')} readable by their owner only`]);
  } finally {
    await platform.close();
  }
  const quiet: string[] = [];
  await (await startLocalPlatform({ dataDir, log: (line) => quiet.push(line) })).close();
  expect(quiet).toEqual([]);
});

test('an Idempotency-Key kept before body digests matches any body for the rest of its day', async () => {
  const dataDir = tempDataDir();
  const withToken = (value: string) => githubBody({ name: 'keyed-before', secrets: [{ name: 'TOKEN', value }] });
  const create = (api: RawApi, value: string) => api.request('POST', '/v2/deployments', { body: withToken(value), headers: { 'Idempotency-Key': 'kept-key' } });
  let platform = await startLocalPlatform({ dataDir });
  const first = await create(new RawApi(platform.url, platform.devApiKey), 'first');
  expect(first.status).toBe(201);
  await platform.close();
  // as a data dir of the version before the digests: the column is there (migrated), empty
  const db = openDatabase(dataDir);
  db.prepare('UPDATE cp_idempotency_keys SET body_digest = NULL').run();
  db.close();
  platform = await startLocalPlatform({ dataDir });
  try {
    const api = new RawApi(platform.url, platform.devApiKey);
    const replayed = await create(api, 'rotated');
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.id]).toEqual([201, 'true', first.body.id]);
    // the key was taken as it was: it still has no digest, and another body is replayed for the rest of its day
    const digest = openDatabase(dataDir);
    expect(digest.prepare('SELECT body_digest FROM cp_idempotency_keys').pluck().all()).toEqual([null]);
    digest.close();
  } finally {
    await platform.close();
  }
});
