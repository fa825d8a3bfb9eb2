/**
 * A data dir made before assistant versions were recorded: migration 007 records each assistant's current fields as
 * its one version, so its versions can be listed, a later update is the next version, and the recorded one can be
 * made the latest again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../lib/local/clock';
import { migrate, openDatabase, type PlatformDatabase } from '../../lib/local/db';
import { AssistantStore } from '../../lib/local/agents/store/assistants';
import { AGENT_SERVER_MIGRATIONS } from '../../lib/local/agents/store/migrations';

const DEPLOYMENT = 'deployment-one';
const ASSISTANT = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const NOW = '2026-01-01T00:00:00.000Z';

let dir: string;
let db: PlatformDatabase;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-versions-'));
  db = openDatabase(dir);
  const before = AGENT_SERVER_MIGRATIONS.migrations.filter((migration) => migration.id < '007');
  migrate(db, [{ module: AGENT_SERVER_MIGRATIONS.module, migrations: before }]);
  db.prepare(
    `INSERT INTO agent_assistants (deployment_id, assistant_id, graph_id, name, description, config, context, metadata,
     version, created_at, updated_at) VALUES (?, ?, 'chat', 'support', NULL, '{"configurable":{"reply_tokens":3}}', '{}',
     '{"team":"support"}', 3, ?, ?)`,
  ).run(DEPLOYMENT, ASSISTANT, NOW, NOW);
  migrate(db, [AGENT_SERVER_MIGRATIONS]);
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the current fields become the one recorded version; an update is the next; the first can be the latest again', () => {
  const assistants = new AssistantStore(db, systemClock);
  expect(assistants.versions(DEPLOYMENT, ASSISTANT, {})).toEqual([
    expect.objectContaining({
      assistant_id: ASSISTANT,
      version: 3,
      name: 'support',
      config: { configurable: { reply_tokens: 3 } },
      metadata: { team: 'support' },
      created_at: NOW,
    }),
  ]);
  expect(assistants.update(DEPLOYMENT, ASSISTANT, { name: 'renamed' }).version).toBe(4);
  expect(assistants.setLatest(DEPLOYMENT, ASSISTANT, 3)).toMatchObject({ version: 3, name: 'support' });
  // deleting the assistant takes its versions with it
  assistants.delete(DEPLOYMENT, ASSISTANT);
  expect(db.prepare('SELECT count(*) FROM agent_assistant_versions').pluck().get()).toBe(0);
});
