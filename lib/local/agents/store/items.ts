/**
 * The Store of the agent servers: JSON items under a namespace (a path of labels) and a key, each deployment's own.
 * Searches match a namespace prefix and filters on value fields as the LangGraph store does; there is no vector
 * index, so a search's `query` neither filters nor orders (every score is null), as on a LangGraph server whose store
 * has no embeddings configured.
 */
import { isDeepStrictEqual } from 'node:util';
import type {
  StoreItem,
  StoreListNamespaces,
  StorePutItem,
  StoreSearchItem,
  StoreSearchItems,
} from '../../../api/schemas/agent-server-store';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { fromJson, isoNow } from './json';

interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | null;
}

const MINUTE_MS = 60_000;

/** The labels of a namespace as stored (labels hold no periods, so the joined text keeps them apart). */
const joined = (namespace: readonly string[]): string => namespace.join('.');

/** Items of every deployment's Store. */
export class StoreItems {
  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock) {}

  /** Writes an item, replacing the value of one under the same namespace and key (its creation time is kept). */
  put(deploymentId: string, body: StorePutItem): void {
    const now = this.clock.now();
    const iso = new Date(now).toISOString();
    const ttl = body.ttl ?? null;
    this.db
      .prepare(
        `INSERT INTO agent_store_items (deployment_id, namespace, key, value, created_at, updated_at, ttl_minutes, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (deployment_id, namespace, key) DO UPDATE SET
           value = excluded.value, updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes,
           expires_at = excluded.expires_at,
           created_at = CASE WHEN agent_store_items.expires_at <= excluded.updated_at THEN excluded.created_at
                             ELSE agent_store_items.created_at END`,
      )
      .run(deploymentId, joined(body.namespace), body.key, JSON.stringify(body.value), iso, iso, ttl, expiry(now, ttl));
  }

  /** The item, or null when there is none (or it expired); a read with `refreshTtl` restarts its time to live. */
  get(deploymentId: string, namespace: readonly string[], key: string, refreshTtl: boolean): StoreItem | null {
    const row = this.db
      .prepare(
        `SELECT * FROM agent_store_items WHERE deployment_id = ? AND namespace = ? AND key = ?
         AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .get(deploymentId, joined(namespace), key, isoNow(this.clock)) as ItemRow | undefined;
    if (!row) return null;
    if (refreshTtl) this.refresh(deploymentId, [row]);
    return itemOf(row);
  }

  /** Deletes the item; deleting one that does not exist is no error, as on the LangGraph server. */
  delete(deploymentId: string, namespace: readonly string[], key: string): void {
    this.db
      .prepare('DELETE FROM agent_store_items WHERE deployment_id = ? AND namespace = ? AND key = ?')
      .run(deploymentId, joined(namespace), key);
  }

  /**
   * Items under the namespace prefix whose value holds the filter, most recently updated first (then by namespace
   * and key), paged by `limit` and `offset`.
   */
  search(deploymentId: string, query: StoreSearchItems): StoreSearchItem[] {
    const prefix = joined(query.namespace_prefix);
    const rows = this.db
      .prepare(
        `SELECT * FROM agent_store_items WHERE deployment_id = ? AND (expires_at IS NULL OR expires_at > ?)
         AND (? = '' OR namespace = ? OR substr(namespace, 1, ?) = ?)
         ORDER BY updated_at DESC, namespace, key`,
      )
      .all(deploymentId, isoNow(this.clock), prefix, prefix, prefix.length + 1, `${prefix}.`) as ItemRow[];
    const filter = query.filter ?? {};
    const page = rows
      .filter((row) => Object.entries(filter).every(([field, wanted]) => matches(fromJson<Record<string, unknown>>(row.value)[field], wanted)))
      .slice(query.offset, query.offset + query.limit);
    if (query.refresh_ttl ?? true) this.refresh(deploymentId, page);
    return page.map((row) => ({ ...itemOf(row), score: null }));
  }

  /**
   * The namespaces that hold items, matching the prefix and suffix (`*` matches any one label), cut to `max_depth`
   * labels (duplicates once), sorted, then paged.
   */
  listNamespaces(deploymentId: string, query: StoreListNamespaces): string[][] {
    const stored = this.db
      .prepare(
        `SELECT DISTINCT namespace FROM agent_store_items WHERE deployment_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .pluck()
      .all(deploymentId, isoNow(this.clock)) as string[];
    const found = new Map<string, string[]>();
    for (const text of stored) {
      const namespace = text.split('.');
      if (query.prefix && !startsWith(namespace, query.prefix)) continue;
      if (query.suffix && !startsWith([...namespace].reverse(), [...query.suffix].reverse())) continue;
      const cut = query.max_depth ? namespace.slice(0, query.max_depth) : namespace;
      found.set(joined(cut), cut);
    }
    return [...found.values()]
      .sort(compareNamespaces)
      .slice(query.offset, query.offset + query.limit);
  }

  private refresh(deploymentId: string, rows: readonly ItemRow[]): void {
    const now = this.clock.now();
    const update = this.db.prepare(
      'UPDATE agent_store_items SET expires_at = ? WHERE deployment_id = ? AND namespace = ? AND key = ?',
    );
    for (const row of rows) {
      if (row.ttl_minutes !== null) update.run(expiry(now, row.ttl_minutes), deploymentId, row.namespace, row.key);
    }
  }
}

function expiry(now: number, ttlMinutes: number | null): string | null {
  return ttlMinutes === null ? null : new Date(now + ttlMinutes * MINUTE_MS).toISOString();
}

function itemOf(row: ItemRow): StoreItem {
  return {
    namespace: row.namespace.split('.'),
    key: row.key,
    value: fromJson(row.value),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function startsWith(namespace: readonly string[], pattern: readonly string[]): boolean {
  return namespace.length >= pattern.length && pattern.every((label, index) => label === '*' || label === namespace[index]);
}

/** Tuple order: label by label, a namespace before the longer ones it starts. */
function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (a[index] !== b[index]) return a[index] < b[index] ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Whether a value field matches a filter value, as the LangGraph store compares them: an object of operators applies
 * each (the request schema admits only the known ones); another object matches field by field; anything else must be
 * equal.
 */
function matches(actual: unknown, wanted: unknown): boolean {
  if (isObject(wanted)) {
    const keys = Object.keys(wanted);
    if (keys.some((key) => key.startsWith('$'))) {
      return keys.every((operator) => compare(actual, operator, wanted[operator]));
    }
    return isObject(actual) && keys.every((key) => matches(actual[key], wanted[key]));
  }
  return isDeepStrictEqual(actual, wanted);
}

function compare(actual: unknown, operator: string, operand: unknown): boolean {
  if (operator === '$eq') return isDeepStrictEqual(actual, operand);
  if (operator === '$ne') return !isDeepStrictEqual(actual, operand);
  const [left, right] = [Number(actual), Number(operand)];
  if (typeof actual !== 'number' && typeof actual !== 'string') return false;
  if (Number.isNaN(left) || Number.isNaN(right)) return false;
  if (operator === '$gt') return left > right;
  if (operator === '$gte') return left >= right;
  if (operator === '$lt') return left < right;
  return left <= right;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
