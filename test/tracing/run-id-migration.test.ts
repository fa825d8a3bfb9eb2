/**
 * A data dir whose trace store was made when run ids were one namespace for the whole platform takes the migration to
 * ids of each workspace: every run is kept, value for value, in its order, and found and exported as before; the same
 * id can then be stored by another workspace; and inputs and outputs come last in each row.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../lib/local/clock';
import { migrate, openDatabase, type PlatformDatabase } from '../../lib/local/db';
import { RunStore, readRunPage, type StoredRun } from '../../lib/local/tracing/store/runs';
import { SessionStore } from '../../lib/local/tracing/store/sessions';
import { TRACING_MIGRATIONS } from '../../lib/local/tracing/store/migrations';
import { syntheticRunBatches } from '../../lib/local/tracing/synthetic/generate';
import { toMicros } from '../../lib/local/tracing/store/time';

const TENANT = '0e0e0e0e-0000-4000-8000-000000000001';
const OTHER_TENANT = '0e0e0e0e-0000-4000-8000-000000000002';
const START = toMicros('2024-03-01T00:00:00Z');
const END = toMicros('2024-03-02T00:00:00Z');

let dir: string;
let db: PlatformDatabase;
let before: StoredRun[];
let sessionId: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-ids-'));
  db = openDatabase(dir);
  // the tables as the first three migrations made them, with runs written as that version wrote them
  migrate(db, [{ module: TRACING_MIGRATIONS.module, migrations: TRACING_MIGRATIONS.migrations.slice(0, 3) }]);
  // as that version wrote a project (the store's own insert names the columns of later migrations)
  sessionId = randomUUID();
  db.prepare('INSERT INTO tracing_sessions (id, tenant_id, name, description, created_at) VALUES (?, ?, ?, NULL, ?)').run(sessionId, TENANT, 'before', new Date().toISOString());
  const runs = [...syntheticRunBatches({ tenantId: TENANT, sessionId, count: 300, startMicros: START, endMicros: END, payloadBytes: 4000 })].flat();
  const columns = Object.keys(runs[0]!);
  const insert = db.prepare(`INSERT INTO trace_runs (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
  db.transaction(() => runs.forEach((run) => insert.run(run)))();
  before = db.prepare('SELECT * FROM trace_runs ORDER BY rowid').all() as StoredRun[];
  migrate(db, [TRACING_MIGRATIONS]);
});

afterAll(() => {
  db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('keeps every run, value for value and in its order, found by workspace and id, and read for export in cursor order', () => {
  expect(before).toHaveLength(300);
  expect(db.prepare('SELECT * FROM trace_runs ORDER BY rowid').all()).toEqual(before);
  const store = new RunStore(db, new SessionStore(db, systemClock));
  expect(store.get(TENANT, before[7]!.id)).toMatchObject({ id: before[7]!.id, name: before[7]!.name });
  expect(store.get(OTHER_TENANT, before[7]!.id)).toBeUndefined();
  const page = readRunPage(db, { sessionId, fromMicros: START, toMicros: END, after: null, limit: 1000, columns: ['id'] });
  const inCursorOrder = [...before].sort((a, b) => a.start_time - b.start_time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((run) => run.id);
  expect(page.map((row) => row[0])).toEqual(inCursorOrder);
  // the export reads through its index, as before
  const plan = db.prepare('EXPLAIN QUERY PLAN SELECT id FROM trace_runs WHERE session_id = ? AND start_time >= ? ORDER BY start_time, id').all('s', 0);
  expect(JSON.stringify(plan)).toContain('trace_runs_export_order');
  expect(db.pragma('foreign_key_check')).toEqual([]);
  // the copy went through the write-ahead log, which is emptied after migrating rather than kept at the table's size
  expect(fs.statSync(path.join(dir, 'platform.db-wal')).size).toBe(0);
});

test('lets another workspace store a run of the same id, and a repeated post in one workspace is still skipped', () => {
  const sessions = new SessionStore(db, systemClock);
  const store = new RunStore(db, sessions);
  const otherSession = sessions.create(OTHER_TENANT, { name: 'replayed' });
  const { id } = before[0]!;
  const copy = { id, name: 'copy', run_type: 'chain' as const, start_time: '2024-03-01T01:00:00Z', session_id: otherSession.id };
  expect(store.ingest(OTHER_TENANT, { post: [copy], patch: [] })).toEqual({ created: 1, patched: 0 });
  expect(store.ingest(OTHER_TENANT, { post: [copy], patch: [] })).toEqual({ created: 0, patched: 0 });
  expect(store.get(OTHER_TENANT, id)).toMatchObject({ name: 'copy', session_id: otherSession.id });
  expect(store.get(TENANT, id)).toMatchObject({ name: before[0]!.name, session_id: sessionId });
});

test('inputs and outputs are the last columns of a row, so the others are read without their overflow pages', () => {
  const columns = (db.prepare('PRAGMA table_info(trace_runs)').all() as { name: string }[]).map((column) => column.name);
  expect(columns.slice(-2)).toEqual(['inputs', 'outputs']);
  expect(new Set(columns)).toEqual(new Set(Object.keys(before[0]!)));
});
