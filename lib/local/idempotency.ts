/**
 * `Idempotency-Key` on the platform's creates (the spec does not mention it: the local platform's choice, written in
 * docs/local-platform.md). A create that carries a key the workspace used before, within {@link KEY_LIFETIME_MS}, and
 * the same body as the request that made the key's object, is answered with that object as long as it is still live
 * (not deleted, not ended without completing, not given up by a cancel request), instead of making another: a client
 * whose answer was lost can send the same create again and learn what it made. Another body under the key is a new
 * create. A request with the same key arriving while the first is still being handled waits for it.
 */
import type { Context } from 'hono';
import type { Clock } from './clock';
import { prepared, type Migration, type PlatformDatabase } from './db';
import { RequestValidationError } from './errors';
import type { SecretBox } from './secret-box';

/** How long a key names its object: a day, as widely used idempotency keys do. */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The longest key taken. */
const MAX_KEY_LENGTH = 255;

/** Response header that says the answer is that of an earlier request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The migration that creates the key table `table` of a module. */
export function idempotencyKeysMigration(id: string, table: string): Migration {
  return {
    id,
    up: `
      CREATE TABLE ${table} (
        tenant_id TEXT NOT NULL,
        key TEXT NOT NULL,
        object_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, key)
      );`,
  };
}

/**
 * The migration that adds the digest of the request body (see {@link IdempotencyKeys.create}) to the key table `table`.
 * Keys kept before it have none, and are taken as matching any body: they were given under the promise of a replay
 * whatever the body, and a retry of a create whose answer was lost across the upgrade must not make a second object.
 */
export function idempotencyBodyDigestMigration(id: string, table: string): Migration {
  return { id, up: `ALTER TABLE ${table} ADD COLUMN body_digest TEXT;` };
}

/** What the body digests are keyed for (see {@link SecretBox.digest}). */
const DIGEST_PURPOSE = 'idempotency-key request body';

/** The request's `Idempotency-Key`, or undefined; a malformed one is refused with a 422. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new RequestValidationError([
      { loc: ['header', 'Idempotency-Key'], msg: `must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters without spaces`, type: 'value_error' },
    ]);
  }
  return key;
}

/** What a create under a key gave: the object, and whether an earlier request had made it. */
export interface KeyedCreate<T> {
  readonly object: T;
  readonly replayed: boolean;
}

/** The keys of one module's creates. */
export class IdempotencyKeys {
  /** Creates under way, by workspace and key: a second request with the key waits for the first. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: PlatformDatabase,
    private readonly table: string,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Runs `create` once per live key and body: without a key it always runs; with one, the live object an earlier
   * request with the key and the same `body` made (`live` returns it, or undefined once it is gone) is answered
   * instead. The body is compared by a keyed digest of it (bodies hold secrets), whatever the order of its fields.
   */
  async create<T>(
    tenantId: string,
    key: string | undefined,
    ops: {
      readonly body: unknown;
      readonly live: (objectId: string) => T | undefined;
      readonly create: () => T | Promise<T>;
      readonly idOf: (object: T) => string;
    },
  ): Promise<KeyedCreate<T>> {
    if (key === undefined) return { object: await ops.create(), replayed: false };
    const digest = this.secrets.digest(DIGEST_PURPOSE, canonicalJson(ops.body));
    const slot = `${tenantId}\n${key}`;
    for (let earlier = this.running.get(slot); earlier; earlier = this.running.get(slot)) await earlier.catch(() => undefined);
    const made = this.madeBy(tenantId, key);
    const existing = made && (made.bodyDigest === null || made.bodyDigest === digest) ? ops.live(made.objectId) : undefined;
    if (existing !== undefined) return { object: existing, replayed: true };
    const creating = Promise.resolve().then(ops.create);
    this.running.set(slot, creating);
    try {
      const object = await creating;
      // the key now stands for what its latest body made: that is the request a client whose answer was lost repeats
      prepared(
        this.db,
        `INSERT OR REPLACE INTO ${this.table} (tenant_id, key, object_id, created_at, body_digest) VALUES (?, ?, ?, ?, ?)`,
      ).run(tenantId, key, ops.idOf(object), this.clock.now(), digest);
      return { object, replayed: false };
    } finally {
      this.running.delete(slot);
    }
  }

  /** Frees every key of the workspace that stands for `objectId`: its client is done with it, a new create makes anew. */
  release(tenantId: string, objectId: string): void {
    prepared(this.db, `DELETE FROM ${this.table} WHERE tenant_id = ? AND object_id = ?`).run(tenantId, objectId);
  }

  /** The object a key made within its lifetime, with the digest of the body that made it (null: kept before digests). */
  private madeBy(tenantId: string, key: string): { objectId: string; bodyDigest: string | null } | undefined {
    const row = prepared(this.db, `SELECT object_id, created_at, body_digest FROM ${this.table} WHERE tenant_id = ? AND key = ?`).get(
      tenantId,
      key,
    ) as { object_id: string; created_at: number; body_digest: string | null } | undefined;
    if (!row || this.clock.now() - row.created_at >= KEY_LIFETIME_MS) return undefined;
    return { objectId: row.object_id, bodyDigest: row.body_digest };
  }
}

/** JSON text of `value` with the keys of every object sorted: the same body sent with its fields in another order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}
