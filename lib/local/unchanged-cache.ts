/**
 * A cache of values computed from the database, valid while the platform's connection has made no change: any
 * insert, update or delete through it (`total_changes()`) empties the cache, so a cached value is never older than
 * the data it was read from. Only for tables that no other connection writes — the control plane's tables, which
 * only the platform's own connection writes (export workers open their own connections to read runs). Checking costs
 * one table-less statement, far less than the reads it spares; it pays off where the same record is read again and
 * again between writes, such as a revision polled by waiting clients.
 */
import type { Statement } from 'better-sqlite3';
import type { PlatformDatabase } from './db';

/** Entries kept at most; beyond it the cache starts over (the hot entries come back at once). */
const DEFAULT_MAX_ENTRIES = 1024;

/** Values by key, valid while the database is unchanged. */
export class UnchangedCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly changes: Statement;
  private generation = -1;

  constructor(
    db: PlatformDatabase,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {
    this.changes = db.prepare('SELECT total_changes()').pluck();
  }

  /** The cached value of `key`, or the one `compute` gives (kept unless undefined). */
  get(key: string, compute: () => V | undefined): V | undefined {
    const generation = this.changes.get() as number;
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const value = compute();
    if (value === undefined) return undefined;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
