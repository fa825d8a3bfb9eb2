/**
 * `Idempotency-Key` on the platform's creates (the spec does not mention it: the local platform's choice, written in
 * docs/local-platform.md). A create that carries a key the workspace used before, within {@link KEY_LIFETIME_MS},
 * is answered with the object the first request made, as long as that object is still live (not deleted, not
 * cancelled), instead of making another: a client whose answer was lost can send the same create again and learn
 * what it made. A request with the same key arriving while the first is still being handled waits for it.
 */
import type { Context } from 'hono';
import type { Clock } from './clock';
import { prepared, type Migration, type PlatformDatabase } from './db';
import { RequestValidationError } from './errors';

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
  ) {}

  /**
   * Runs `create` once per live key: without a key it always runs; with one, the live object an earlier request
   * with the key made (`live` returns it, or undefined once it is gone) is answered instead.
   */
  async create<T>(
    tenantId: string,
    key: string | undefined,
    ops: { readonly live: (objectId: string) => T | undefined; readonly create: () => T | Promise<T>; readonly idOf: (object: T) => string },
  ): Promise<KeyedCreate<T>> {
    if (key === undefined) return { object: await ops.create(), replayed: false };
    const slot = `${tenantId}\n${key}`;
    for (let earlier = this.running.get(slot); earlier; earlier = this.running.get(slot)) await earlier.catch(() => undefined);
    const made = this.objectOf(tenantId, key);
    const existing = made === undefined ? undefined : ops.live(made);
    if (existing !== undefined) return { object: existing, replayed: true };
    const creating = Promise.resolve().then(ops.create);
    this.running.set(slot, creating);
    try {
      const object = await creating;
      prepared(this.db, `INSERT OR REPLACE INTO ${this.table} (tenant_id, key, object_id, created_at) VALUES (?, ?, ?, ?)`).run(
        tenantId,
        key,
        ops.idOf(object),
        this.clock.now(),
      );
      return { object, replayed: false };
    } finally {
      this.running.delete(slot);
    }
  }

  /** The object a key made within its lifetime. */
  private objectOf(tenantId: string, key: string): string | undefined {
    const row = prepared(this.db, `SELECT object_id, created_at FROM ${this.table} WHERE tenant_id = ? AND key = ?`).get(tenantId, key) as
      | { object_id: string; created_at: number }
      | undefined;
    return row && this.clock.now() - row.created_at < KEY_LIFETIME_MS ? row.object_id : undefined;
  }
}
