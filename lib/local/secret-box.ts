/**
 * Encryption at rest for secrets the local platform must keep (deployment secrets, destination credentials):
 * AES-256-GCM with a key from `AGENTPLATFORM_LOCAL_SECRET_KEY` (base64, 32 bytes) or, by default, a random key
 * generated once into `<dataDir>/secret.key` (mode 0600). The data dir keeps a value sealed with its key, so that a
 * platform started with another key (a lost key file, a changed variable) refuses to start instead of failing on
 * every secret later.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PlatformDatabase } from './db';

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
  private constructor(
    private readonly key: Buffer,
    /** Where the key comes from, for messages. */
    readonly source: string,
  ) {}

  /** The box of a data dir: the env key when set, else the data dir's key file (created on first use). */
  static forDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretBox {
    const fromEnv = env[SECRET_KEY_ENV];
    if (fromEnv) {
      const key = Buffer.from(fromEnv, 'base64');
      if (key.length !== KEY_BYTES) throw new Error(`${SECRET_KEY_ENV} must be ${KEY_BYTES} bytes, base64-encoded`);
      return new SecretBox(key, SECRET_KEY_ENV);
    }
    const file = path.join(dataDir, KEY_FILE);
    if (!fs.existsSync(file)) createKeyFile(dataDir, file);
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== KEY_BYTES) {
      throw new Error(
        `${file} does not hold a ${KEY_BYTES}-byte key (base64): restore it from a backup, or set ${SECRET_KEY_ENV} to the key ` +
          'the data dir was sealed with',
      );
    }
    return new SecretBox(key, file);
  }

  /**
   * Checks that this box's key is the one the data dir's secrets were sealed with (recording it on first use), and
   * throws an error that says what to do when it is not.
   */
  verifyFor(db: PlatformDatabase, dataDir: string): void {
    const row = db.prepare('SELECT value FROM platform_settings WHERE name = ?').get(KEY_CHECK_SETTING) as { value: string } | undefined;
    if (!row) {
      db.prepare('INSERT INTO platform_settings (name, value) VALUES (?, ?)').run(KEY_CHECK_SETTING, this.encrypt(KEY_CHECK_TEXT));
      return;
    }
    let opened: string | undefined;
    try {
      opened = this.decrypt(row.value);
    } catch {
      opened = undefined;
    }
    if (opened === KEY_CHECK_TEXT) return;
    throw new Error(
      `the secrets in ${dataDir} were sealed with another key than the one in ${this.source}: restore the data dir's ` +
        `${KEY_FILE}, or set ${SECRET_KEY_ENV} to the key they were sealed with (--reset starts over without them)`,
    );
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
}

/** Writes a new random key, whole or not at all: a crash while writing leaves no half-written key file behind. */
function createKeyFile(dataDir: string, file: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, randomBytes(KEY_BYTES).toString('base64'), { mode: 0o600 });
  try {
    // a link, not a rename: a key file another process made meanwhile is kept
    fs.linkSync(partial, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}
