/**
 * The local platform's SQLite database (`<dataDir>/platform.db`) and its migrations. Every module of the platform
 * brings an ordered list of migrations; each runs once per data dir, in order, inside a transaction.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';

/** The database handle every module receives. */
export type PlatformDatabase = Database.Database;

/** One schema change, applied once per data dir. */
export interface Migration {
  /** Unique within its module, never renamed once released (for example `001-deployments`). */
  readonly id: string;
  /** SQL to execute, or a function for changes that need code (seeding rows, back-filling). */
  readonly up: string | ((db: PlatformDatabase) => void);
}

/** A column of a module's table that holds values sealed with the data dir's secret key (see secret-box.ts). */
export interface SealedColumn {
  readonly table: string;
  readonly column: string;
}

/** A module's migrations under its name; applied ids are recorded as `<module>/<id>`. */
export interface MigrationSet {
  /** The module name, the namespace of its migration ids. */
  readonly module: string;
  /** Applied in this order. */
  readonly migrations: readonly Migration[];
  /**
   * The columns of the module's tables that hold sealed values: a data dir without a record of its key is checked
   * against one of them.
   * @default none
   */
  readonly sealedColumns?: readonly SealedColumn[];
}

/** The file name of the database inside the data dir. */
export const DATABASE_FILE = 'platform.db';

/**
 * The page size of a new database. A stored run with about 1 KB of inputs and outputs takes about 1.6 KB, so a 4 KB
 * page held two runs and a fifth of it stayed empty, and an export, which reads runs in start-time order through an
 * index, read a page from the file for every other run. A 16 KB page holds ten; the file of a million such runs is a
 * fifth smaller, and encoding a day without inputs/outputs took about 6% less CPU per row (docs/export-benchmark.md). It
 * applies when the file is created: an existing database keeps its page size.
 */
export const DATABASE_PAGE_SIZE = 16384;

/**
 * Opens (creating when needed) the database of a data dir with WAL, foreign keys and a busy timeout. A new data dir
 * is readable by its owner only (0700), and so is a new database (0600; SQLite gives its WAL files the same mode):
 * it holds trace inputs and outputs, and the hashes of API keys.
 */
export function openDatabase(dataDir: string): PlatformDatabase {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DATABASE_FILE);
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  const db = new Database(file);
  // only a database without any page yet takes it; before WAL, which fixes the page size
  db.pragma(`page_size = ${DATABASE_PAGE_SIZE}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

const statementCache = new WeakMap<PlatformDatabase, Map<string, Database.Statement>>();

/** A prepared statement, compiled once per database and SQL text (request paths run the same few statements). */
export function prepared(db: PlatformDatabase, source: string): Database.Statement {
  let statements = statementCache.get(db);
  if (!statements) statementCache.set(db, (statements = new Map()));
  let statement = statements.get(source);
  if (!statement) statements.set(source, (statement = db.prepare(source)));
  return statement;
}

/**
 * Applies, in order, every migration not yet recorded in `schema_migrations`. A database that has a migration of
 * these modules that this version does not know was written by a newer version: it is refused, untouched.
 */
export function migrate(db: PlatformDatabase, sets: readonly MigrationSet[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((row) => row.id),
  );
  const known = new Set(sets.flatMap((set) => set.migrations.map((migration) => `${set.module}/${migration.id}`)));
  const modules = new Set(sets.map((set) => set.module));
  const unknown = [...applied].filter((id) => modules.has(id.split('/')[0]!) && !known.has(id));
  if (unknown.length > 0) {
    throw new Error(
      `${db.name} was written by a newer version of the local platform (it has migration ${unknown.join(', ')}, which ` +
        'this version does not know): run that version, or use another data dir',
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  let migrated = false;
  for (const set of sets) {
    for (const migration of set.migrations) {
      const id = `${set.module}/${migration.id}`;
      if (applied.has(id)) continue;
      db.transaction(() => {
        if (typeof migration.up === 'string') db.exec(migration.up);
        else migration.up(db);
        record.run(id, new Date().toISOString());
      })();
      migrated = true;
    }
  }
  // a migration that rebuilds a table writes all of it to the WAL, which would otherwise keep that size on disk
  if (migrated && !db.memory) db.pragma('wal_checkpoint(TRUNCATE)');
}
