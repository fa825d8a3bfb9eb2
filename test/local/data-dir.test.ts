/**
 * What the local platform keeps in its data dir, and what it refuses to start with: the data dir and its database
 * are its owner's alone; the API keys are the configured ones (a key taken out is revoked); a secret key other than
 * the one the data dir's secrets were sealed with, a damaged key file and a database of a newer version are refused
 * at start, with what to do, before anything is served or changed.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { LOCK_FILE } from '../../lib/local/data-dir';
import { DATABASE_FILE } from '../../lib/local/db';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { SECRET_KEY_ENV } from '../../lib/local/secret-box';
import { CLI_BIN, ensureCliBuilt } from './support/build';

const roots: string[] = [];
const newDataDir = (): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-data-dir-'));
  roots.push(root);
  return path.join(root, 'data');
};
const mode = (file: string): number => fs.statSync(file).mode & 0o777;
/** The pid a lock file records (SQLite's user_version, in its header); read only while no lock of this process is held. */
const recordedPid = (lock: string): number => fs.readFileSync(lock).readUInt32BE(60);
const start = (dataDir: string): Promise<LocalPlatform> => startLocalPlatform({ dataDir, apiKeys: ['key-of-the-data-dir-test'] });

beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

test('a new data dir and its database are readable by their owner only', async () => {
  const dataDir = newDataDir();
  const platform = await start(dataDir);
  try {
    expect(mode(dataDir)).toBe(0o700);
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, 'secret.key']) expect([file, mode(path.join(dataDir, file))]).toEqual([file, 0o600]);
  } finally {
    await platform.close();
  }
});

test('a data dir whose secrets were sealed with another key is refused, saying how to give the right one', async () => {
  const dataDir = newDataDir();
  await (await start(dataDir)).close();
  const keyFile = path.join(dataDir, 'secret.key');
  const original = fs.readFileSync(keyFile, 'utf8');
  fs.writeFileSync(keyFile, randomBytes(32).toString('base64'));
  await expect(start(dataDir)).rejects.toThrow(`the secrets in ${dataDir} were sealed with another key than the one in ${keyFile}`);
  // the right key, from the environment: accepted
  fs.rmSync(keyFile);
  process.env[SECRET_KEY_ENV] = original;
  try {
    await (await start(dataDir)).close();
  } finally {
    delete process.env[SECRET_KEY_ENV];
  }
});

test('a key file that does not hold a whole key is refused', async () => {
  const dataDir = newDataDir();
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'secret.key'), '');
  await expect(start(dataDir)).rejects.toThrow(`${path.join(dataDir, 'secret.key')} does not hold a 32-byte key (base64)`);
});

test('a key taken out of the configuration stops working at the next start; keys added otherwise stay', async () => {
  const dataDir = newDataDir();
  const status = async (platform: LocalPlatform, apiKey: string) =>
    (await fetch(`${platform.url}/v2/deployments`, { headers: { 'X-Api-Key': apiKey } })).status;
  const first = await startLocalPlatform({ dataDir, apiKeys: ['leaked-key-0001', 'kept-key-0002'] });
  const other = first.admin.createOrganization('another team');
  expect([await status(first, 'leaked-key-0001'), await status(first, 'kept-key-0002')]).toEqual([200, 200]);
  await first.close();
  const second = await startLocalPlatform({ dataDir, apiKeys: ['kept-key-0002'] });
  try {
    expect([await status(second, 'leaked-key-0001'), await status(second, 'kept-key-0002'), await status(second, other.apiKey)]).toEqual([401, 200, 200]);
  } finally {
    await second.close();
  }
});

test('a database of a newer version is refused, untouched', async () => {
  const dataDir = newDataDir();
  const platform = await start(dataDir);
  await platform.close();
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES ('auth/999-from-a-newer-version', '2030-01-01T00:00:00Z')").run();
  const count = () => (db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n;
  const before = count();
  db.close();
  await expect(start(dataDir)).rejects.toThrow(/was written by a newer version of the local platform \(it has migration auth\/999-from-a-newer-version/);
  const after = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    expect((after.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(before);
  } finally {
    after.close();
  }
});

describe('one platform per data dir', () => {
  test('a second platform on a data dir in use is refused, naming the process; the data dir is free again after close', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    try {
      await expect(start(dataDir)).rejects.toThrow(`the data dir ${dataDir} is in use by another platform of this process`);
      await expect(startLocalPlatform({ dataDir, reset: true })).rejects.toThrow('in use');
      // the running platform's database is still there
      expect(fs.existsSync(path.join(dataDir, DATABASE_FILE))).toBe(true);
    } finally {
      await first.close();
    }
    await (await start(dataDir)).close();
  });

  test('a lock file of an earlier version (a text pid) is refused while that process runs, else taken over', async () => {
    const dataDir = newDataDir();
    fs.mkdirSync(dataDir, { recursive: true });
    const lock = path.join(dataDir, LOCK_FILE);
    // the parent of this test process runs, and is not this process
    fs.writeFileSync(lock, `${process.ppid}\n`);
    await expect(start(dataDir)).rejects.toThrow(
      `the data dir ${dataDir} is in use by process ${process.ppid}: stop that platform, or choose another --data-dir ` +
        `(if process ${process.ppid} is not a local platform, delete ${lock})`,
    );
    expect(fs.readFileSync(lock, 'utf8')).toBe(`${process.ppid}\n`);

    fs.writeFileSync(lock, '2147483646\n');
    await (await start(dataDir)).close();
    // replaced by a lock of this version, which stays after the platform stops, with the pid of its last holder
    expect(recordedPid(lock)).toBe(process.pid);
    expect(mode(lock)).toBe(0o600);

    // a damaged lock file (neither text nor SQLite): no process can hold it, so it is replaced too
    const damaged = Buffer.alloc(4096, 0x5a);
    Buffer.from('SQLite format 3\0', 'latin1').copy(damaged);
    fs.writeFileSync(lock, damaged);
    await (await start(dataDir)).close();
    expect(recordedPid(lock)).toBe(process.pid);
  });

  test('a data dir named by another path (a symlink) in the same process is refused, and the first keeps its lock', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    try {
      const link = path.join(path.dirname(dataDir), 'link-to-data');
      fs.symlinkSync(dataDir, link);
      await expect(start(link)).rejects.toThrow(`the data dir ${link} is in use by another platform of this process`);
      // the attempt opened nothing of the lock file: another process is still refused
      const other = spawnSync(process.execPath, [CLI_BIN, '--port', '0', '--data-dir', dataDir], { encoding: 'utf8', timeout: 30_000 });
      expect(other.status).toBe(1);
      expect(other.stderr).toContain(`is in use by process ${process.pid}`);
    } finally {
      await first.close();
    }
  });

  test('a lock file naming a process that runs but holds no lock (its pid was reused) is taken over', async () => {
    const dataDir = newDataDir();
    fs.mkdirSync(dataDir, { recursive: true });
    const lock = path.join(dataDir, LOCK_FILE);
    const Database = (await import('better-sqlite3')).default;
    const left = new Database(lock);
    left.pragma(`user_version = ${process.ppid}`);
    left.close();
    await (await start(dataDir)).close();
    expect(recordedPid(lock)).toBe(process.pid);
  });
});

describe('--reset', () => {
  test('deletes only the platform\'s own files, and refuses a data dir that holds anything else, deleting nothing', async () => {
    const dataDir = newDataDir();
    await (await startLocalPlatform({ dataDir })).close();
    const notes = path.join(dataDir, 'notes.txt');
    fs.writeFileSync(notes, 'keep me');
    fs.mkdirSync(path.join(dataDir, 'src'));
    await expect(startLocalPlatform({ dataDir, reset: true })).rejects.toThrow(
      `refusing to reset ${dataDir}: it holds files the platform did not make (notes.txt, src)`,
    );
    expect(fs.readFileSync(notes, 'utf8')).toBe('keep me');
    expect(fs.existsSync(path.join(dataDir, DATABASE_FILE))).toBe(true);

    fs.rmSync(notes);
    fs.rmSync(path.join(dataDir, 'src'), { recursive: true });
    const before = fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8');
    const reset = await startLocalPlatform({ dataDir, reset: true });
    try {
      expect(`${reset.devApiKey}\n`).not.toBe(before);
    } finally {
      await reset.close();
    }
  });

  test('an empty data dir path is refused rather than taken as the working directory', async () => {
    await expect(startLocalPlatform({ dataDir: '', reset: true })).rejects.toThrow('the data dir must not be empty');
  });
});

test('a dev key file left empty (a crash while it was written) gets a new key, written whole', async () => {
  const dataDir = newDataDir();
  await (await startLocalPlatform({ dataDir })).close();
  const keyFile = path.join(dataDir, 'dev-api-key');
  fs.writeFileSync(keyFile, '');
  const platform = await startLocalPlatform({ dataDir });
  try {
    expect(platform.devApiKey).toMatch(/^lp_[A-Za-z0-9_-]{43}$/);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(`${platform.devApiKey}\n`);
    expect(mode(keyFile)).toBe(0o600);
    expect(fs.readdirSync(dataDir).filter((name) => name.endsWith('.partial'))).toEqual([]);
  } finally {
    await platform.close();
  }
});

test('on an IPv6 address the platform\'s URL puts it in brackets, and serves there', async () => {
  const platform = await startLocalPlatform({ dataDir: newDataDir(), host: '::1', port: 0 });
  try {
    expect(platform.url).toBe(`http://[::1]:${platform.port}`);
    const response = await fetch(`${platform.url}/v2/deployments`, { headers: { 'x-api-key': platform.devApiKey } });
    expect(response.status).toBe(200);
  } finally {
    await platform.close();
  }
});
