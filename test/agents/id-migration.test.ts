/**
 * A data dir whose agent tables were made when thread and assistant ids were one namespace for the whole platform
 * takes the migrations to ids of each deployment (and to crons that go with their thread or assistant): every thread, checkpoint,
 * run, assistant and default assistant is kept and found as before, the same ids can then be used by another
 * deployment, and deleting a thread still deletes its checkpoints and runs (and nothing of another deployment's thread
 * of the same id).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../lib/local/clock';
import { migrate, openDatabase, type PlatformDatabase } from '../../lib/local/db';
import { AssistantStore } from '../../lib/local/agents/store/assistants';
import { AGENT_SERVER_MIGRATIONS } from '../../lib/local/agents/store/migrations';
import { RunStore } from '../../lib/local/agents/store/runs';
import { ThreadStore } from '../../lib/local/agents/store/threads';

const D1 = 'deployment-one';
const D2 = 'deployment-two';
const THREAD = '11111111-2222-4333-8444-555555555555';
const ASSISTANT = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const RUN = '1ef00000-0000-6000-8000-000000000001';
const NOW = '2026-01-01T00:00:00.000Z';
const CRON = 'cccccccc-0000-4000-8000-000000000001';
const ORPHAN_CRON = 'cccccccc-0000-4000-8000-000000000002';
const ASSISTANT_GONE_CRON = 'cccccccc-0000-4000-8000-000000000003';
const STATELESS_CRON = 'cccccccc-0000-4000-8000-000000000004';

let dir: string;
let db: PlatformDatabase;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-ids-'));
  db = openDatabase(dir);
  // the tables as the first two migrations made them, with a thread, its checkpoints and run, and a default assistant
  migrate(db, [{ module: AGENT_SERVER_MIGRATIONS.module, migrations: AGENT_SERVER_MIGRATIONS.migrations.slice(0, 2) }]);
  db.prepare('INSERT INTO agent_threads VALUES (?, ?, ?, ?, ?, ?)').run(THREAD, D1, '{"owner":"us"}', 'idle', NOW, NOW);
  const checkpoint = db.prepare(
    `INSERT INTO agent_checkpoints (checkpoint_id, thread_id, parent_checkpoint_id, run_id, step, state, next, created_at)
     VALUES (?, ?, ?, ?, ?, ?, '[]', ?)`,
  );
  checkpoint.run('cp-1', THREAD, null, RUN, -1, '{"messages":[]}', NOW);
  checkpoint.run('cp-2', THREAD, 'cp-1', RUN, 0, '{"messages":[{"type":"human","content":"kept"}]}', NOW);
  // a checkpoint since deleted (a rolled-back run's): its number is not given again
  checkpoint.run('cp-gone', THREAD, 'cp-2', RUN, 1, '{}', NOW);
  db.prepare("DELETE FROM agent_checkpoints WHERE checkpoint_id = 'cp-gone'").run();
  db.prepare(
    `INSERT INTO agent_runs (run_id, deployment_id, thread_id, assistant_id, status, multitask_strategy, metadata, kwargs,
     attempt, created_at, updated_at) VALUES (?, ?, ?, ?, 'success', NULL, '{}', '{}', 1, ?, ?)`,
  ).run(RUN, D1, THREAD, ASSISTANT, NOW, NOW);
  db.prepare(
    `INSERT INTO agent_assistants VALUES (?, ?, 'chat', 'chat', NULL, '{}', '{}', '{"created_by":"system"}', 3, ?, ?)`,
  ).run(ASSISTANT, D1, NOW, NOW);
  db.prepare('INSERT INTO agent_default_assistants VALUES (?, ?, ?)').run(D1, 'chat', ASSISTANT);
  // a cron of the thread, and one of a thread deleted before a thread's deletion took its crons
  const cron = db.prepare(`INSERT INTO agent_crons VALUES (?, ?, ?, ?, '* * * * *', '{}', '{}', NULL, NULL, ?, ?)`);
  cron.run(CRON, D1, ASSISTANT, THREAD, NOW, NOW);
  cron.run(ORPHAN_CRON, D1, ASSISTANT, '99999999-2222-4333-8444-555555555555', NOW, NOW);
  // a stateless cron of the assistant, and one of an assistant deleted before an assistant's deletion took its crons
  cron.run(STATELESS_CRON, D1, ASSISTANT, null, NOW, NOW);
  cron.run(ASSISTANT_GONE_CRON, D1, '77777777-7777-4888-8999-aaaaaaaaaaaa', null, NOW, NOW);
  migrate(db, [AGENT_SERVER_MIGRATIONS]);
});

afterAll(() => {
  db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('keeps every row, found by deployment and id as before', () => {
  const threads = new ThreadStore(db, systemClock);
  expect(threads.get(D1, THREAD)).toMatchObject({ metadata: { owner: 'us' }, values: { messages: [{ content: 'kept' }] } });
  expect(threads.state(D1, THREAD).checkpoint).toMatchObject({ checkpoint_id: 'cp-2' });
  expect(new RunStore(db, systemClock).get(D1, THREAD, RUN).run).toMatchObject({ status: 'success', assistant_id: ASSISTANT });
  // the default assistant is still the one recorded, version and all
  expect(new AssistantStore(db, systemClock).find(D1, 'chat', ['chat'])).toMatchObject({ assistant_id: ASSISTANT, version: 3 });
  expect(db.pragma('foreign_key_check')).toEqual([]);
  // the crons of threads and of assistants that are gone are gone too (they failed at every firing); the others are kept
  expect(db.prepare('SELECT cron_id FROM agent_crons ORDER BY cron_id').pluck().all()).toEqual([CRON, STATELESS_CRON]);
});

test('lets another deployment use the same ids, and a thread deleted takes only its own checkpoints and runs', () => {
  const threads = new ThreadStore(db, systemClock);
  const runs = new RunStore(db, systemClock);
  threads.create(D2, { thread_id: THREAD, metadata: { owner: 'them' } });
  threads.saveCheckpoint(D2, THREAD, { checkpointId: 'cp-3', parentCheckpointId: null, runId: 'r2', step: -1, values: { n: 2 }, next: [] });
  new AssistantStore(db, systemClock).create(D2, { graph_id: 'chat', assistant_id: ASSISTANT, name: 'theirs' });
  // checkpoints keep their order and numbers after the migration, and the deleted one's number stays unused
  const seqs = db.prepare('SELECT checkpoint_id, seq FROM agent_checkpoints ORDER BY seq').raw().all();
  expect(seqs).toEqual([
    ['cp-1', 1],
    ['cp-2', 2],
    ['cp-3', 4],
  ]);

  threads.delete(D1, THREAD);
  expect(db.prepare('SELECT count(*) FROM agent_checkpoints WHERE deployment_id = ?').pluck().get(D1)).toBe(0);
  expect(() => runs.get(D1, THREAD, RUN)).toThrow(/not found/);
  expect(threads.get(D2, THREAD)).toMatchObject({ metadata: { owner: 'them' }, values: { n: 2 } });
  expect(new AssistantStore(db, systemClock).get(D1, ASSISTANT)).toMatchObject({ name: 'chat' });
});
