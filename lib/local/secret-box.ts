/**
 * Encryption at rest for secrets the local platform must keep (deployment secrets, later destination credentials):
 * AES-256-GCM with a key from `AGENTPLATFORM_LOCAL_SECRET_KEY` (base64, 32 bytes) or, by default, a random key
 * generated once into `<dataDir>/secret.key` (mode 0600).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The environment variable that provides the key instead of the data dir's key file. */
export const SECRET_KEY_ENV = 'AGENTPLATFORM_LOCAL_SECRET_KEY';
const KEY_FILE = 'secret.key';
const FORMAT = 'v1';

/** Encrypts and decrypts short strings. */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The box of a data dir: the env key when set, else the data dir's key file (created on first use). */
  static forDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretBox {
    const fromEnv = env[SECRET_KEY_ENV];
    if (fromEnv) {
      const key = Buffer.from(fromEnv, 'base64');
      if (key.length !== 32) throw new Error(`${SECRET_KEY_ENV} must be 32 bytes, base64-encoded`);
      return new SecretBox(key);
    }
    const file = path.join(dataDir, KEY_FILE);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    return new SecretBox(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'));
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
