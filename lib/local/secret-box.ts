/**
 * Encryption at rest for secrets the local platform must keep (deployment secrets, destination credentials):
 * AES-256-GCM with a key from `AGENTPLATFORM_LOCAL_SECRET_KEY` (base64, 32 bytes) or, by default, a random key
 * generated once into `<dataDir>/secret.key` (mode 0600). The data dir keeps a value sealed with its key, so that a
 * platform started with another key (a lost key file, a changed variable) refuses to start instead of failing on
 * every secret later.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MigrationSet, PlatformDatabase } from './db';

/** The environment variable that provides the key instead of the data dir's key file. */
export const SECRET_KEY_ENV = 'AGENTPLATFORM_LOCAL_SECRET_KEY';
const KEY_FILE = 'secret.key';
const KEY_BYTES = 32;
const FORMAT = 'v1';
/** The `platform_settings` row that holds a value sealed with the data dir's key, and that value. */
const KEY_CHECK_SETTING = 'secret_key_check';
const KEY_CHECK_TEXT = 'agentplatform-local secret key check';

/** Encrypts and decrypts short strings. */
export class SecretBox {
  /** The HMAC keys of {@link digest}, by purpose. */
  private readonly digestKeys = new Map<string, Buffer>();

  private constructor(private readonly key: Buffer) {}

  /**
   * The box of a data dir, once its key is known to be the one the data dir's secrets were sealed with: the env key
   * when set, else the data dir's key file, else a new key. Throws an error that says what to do when the key does
   * not open the data dir's record of its key or, in a data dir without that record (one of an earlier version), a
   * value sealed in a column of `sets`. Nothing is written before that decision: a new key file and the record are
   * written once the key is taken, so a refused start leaves the data dir as it was.
   */
  static forDataDir(db: PlatformDatabase, dataDir: string, sets: readonly MigrationSet[], env: NodeJS.ProcessEnv = process.env): SecretBox {
    const file = path.join(dataDir, KEY_FILE);
    const given = keyGiven(file, env);
    const box = new SecretBox(given?.key ?? randomBytes(KEY_BYTES));
    const check = keyCheckOf(db);
    box.refuseUnlessOpens(db, dataDir, sets, check, given?.source);
    // a key file another process made meanwhile is kept, and its key checked instead
    if (!given && !createKeyFile(dataDir, file, box.key)) return SecretBox.forDataDir(db, dataDir, sets, env);
    if (check === undefined) {
      db.prepare('INSERT INTO platform_settings (name, value) VALUES (?, ?)').run(KEY_CHECK_SETTING, box.encrypt(KEY_CHECK_TEXT));
    }
    return box;
  }

  /**
   * Before the data dir's migrations run: refuses, as {@link forDataDir} would, a key that does not open what the data
   * dir already holds sealed, so that a refused start does not leave the data dir migrated (to a schema the version
   * it came from no longer opens). Writes nothing; reads only the tables that exist yet.
   */
  static checkBeforeMigrating(db: PlatformDatabase, dataDir: string, sets: readonly MigrationSet[], env: NodeJS.ProcessEnv = process.env): void {
    const given = keyGiven(path.join(dataDir, KEY_FILE), env);
    // without a key, a new one would be made: it opens nothing sealed before
    new SecretBox(given?.key ?? randomBytes(KEY_BYTES)).refuseUnlessOpens(db, dataDir, sets, keyCheckOf(db), given?.source);
  }

  private refuseUnlessOpens(
    db: PlatformDatabase,
    dataDir: string,
    sets: readonly MigrationSet[],
    check: string | undefined,
    source: string | undefined,
  ): void {
    const sealed = check ?? oneSealedValue(db, sets);
    if (sealed !== undefined && !this.opens(sealed, check !== undefined)) throw keyRefused(dataDir, source);
  }

  /** `v1:<iv>:<tag>:<ciphertext>`, base64 parts. */
  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
      .join(':');
  }

  /** Reverses `encrypt`; throws when the value was not encrypted with this key. */
  decrypt(sealed: string): string {
    const [format, iv, tag, data] = sealed.split(':');
    if (format !== FORMAT || data === undefined) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }

  /**
   * A keyed digest (HMAC-SHA-256, base64url) of `data`, for comparing values that hold secrets without keeping them:
   * unlike a plain hash, it cannot be checked against guesses without the data dir's key. Its key is derived from the
   * data dir's key for `purpose` (HKDF), never the encryption key itself, so that no use of one weakens the other.
   */
  digest(purpose: string, data: string): string {
    let key = this.digestKeys.get(purpose);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `agentplatform-local digest: ${purpose}`, KEY_BYTES));
      this.digestKeys.set(purpose, key);
    }
    return createHmac('sha256', key).update(data, 'utf8').digest('base64url');
  }

  /** Whether `sealed` was sealed with this key (and, for the data dir's record of its key, holds the record's text). */
  private opens(sealed: string, isKeyCheck: boolean): boolean {
    try {
      const opened = this.decrypt(sealed);
      return !isKeyCheck || opened === KEY_CHECK_TEXT;
    } catch {
      return false;
    }
  }
}

/** The key of the environment or of the data dir's key file, with where it comes from; undefined when neither is. */
function keyGiven(file: string, env: NodeJS.ProcessEnv): { key: Buffer; source: string } | undefined {
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv) {
    const key = Buffer.from(fromEnv, 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${SECRET_KEY_ENV} must be ${KEY_BYTES} bytes, base64-encoded`);
    return { key, source: SECRET_KEY_ENV };
  }
  if (!fs.existsSync(file)) return undefined;
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `${file} does not hold a ${KEY_BYTES}-byte key (base64): restore it from a backup, or set ${SECRET_KEY_ENV} to the key ` +
        'the data dir was sealed with',
    );
  }
  return { key, source: file };
}

/** The data dir's record of its key; undefined when it has none (or no settings table yet: before its migrations). */
function keyCheckOf(db: PlatformDatabase): string | undefined {
  if (!hasColumn(db, 'platform_settings', 'value')) return undefined;
  return db.prepare('SELECT value FROM platform_settings WHERE name = ?').pluck().get(KEY_CHECK_SETTING) as string | undefined;
}

/** Whether `table` exists with `column` (a data dir not migrated yet may lack either). */
function hasColumn(db: PlatformDatabase, table: string, column: string): boolean {
  return db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').pluck().get(table, column) !== undefined;
}

/** One value sealed in a column of `sets` (of those that exist yet); undefined when nothing is sealed yet. */
function oneSealedValue(db: PlatformDatabase, sets: readonly MigrationSet[]): string | undefined {
  for (const { table, column } of sets.flatMap((set) => set.sealedColumns ?? [])) {
    if (!hasColumn(db, table, column)) continue;
    const value = db.prepare(`SELECT "${column}" FROM "${table}" WHERE "${column}" IS NOT NULL LIMIT 1`).pluck().get() as string | undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The refusal of a key that does not open the data dir's secrets; `source` is undefined when no key was given. */
function keyRefused(dataDir: string, source: string | undefined): Error {
  const retry = '(--reset starts over without them)';
  if (source === undefined) {
    return new Error(
      `the secrets in ${dataDir} were sealed with a key it does not hold (it has no ${KEY_FILE}, and ${SECRET_KEY_ENV} is ` +
        `not set): set ${SECRET_KEY_ENV} to the key they were sealed with (a data dir of an earlier version took its key ` +
        `from that variable), or restore the data dir's ${KEY_FILE} ${retry}`,
    );
  }
  return new Error(
    `the secrets in ${dataDir} were sealed with another key than the one in ${source}: restore the data dir's ` +
      `${KEY_FILE}, or set ${SECRET_KEY_ENV} to the key they were sealed with ${retry}`,
  );
}

/**
 * Writes `key` into a new key file, whole or not at all: a crash while writing leaves no half-written key file behind.
 * False when another process made the key file meanwhile, which is kept.
 */
function createKeyFile(dataDir: string, file: string, key: Buffer): boolean {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, key.toString('base64'), { mode: 0o600 });
  try {
    // a link, not a rename: a rename would replace a key file made meanwhile
    fs.linkSync(partial, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

