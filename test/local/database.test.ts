/**
 * The platform database's file settings: a new database gets the page size that suits stored runs, and a database
 * made before that (4 KB pages) opens as it is, keeps its page size and its data, and takes new migrations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE, DATABASE_PAGE_SIZE, migrate, openDatabase } from '../../lib/local/db';
import { TRACING_MIGRATIONS } from '../../lib/local/tracing/store/migrations';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-db-'));
  dirs.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('creates a new database with 16 KB pages, in WAL mode', () => {
    const db = openDatabase(tempDir());
    try {
      migrate(db, [TRACING_MIGRATIONS]);
      expect(DATABASE_PAGE_SIZE).toBe(16384);
      expect(db.pragma('page_size', { simple: true })).toBe(DATABASE_PAGE_SIZE);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('opens a database made with 4 KB pages as it is: same page size, same rows, new migrations applied', () => {
    const dir = tempDir();
    const old = new Database(path.join(dir, DATABASE_FILE));
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.exec("CREATE TABLE kept (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO kept (note) VALUES ('before');");
    old.close();

    const db = openDatabase(dir);
    try {
      expect(db.pragma('page_size', { simple: true })).toBe(4096);
      migrate(db, [TRACING_MIGRATIONS]);
      expect(db.prepare('SELECT note FROM kept').pluck().all()).toEqual(['before']);
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'trace_runs'").pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });
});
