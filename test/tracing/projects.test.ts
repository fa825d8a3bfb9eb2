/**
 * Tracing projects (`/api/v1/sessions`) on the local platform: LangSmith's create, read, update and delete bodies, the
 * name rule, `Idempotency-Key` on creates, and what a delete does to the project's runs and to the exports naming it.
 */
import { ConflictError, NotFoundError } from '../../lib/api/errors';
import { startScenario, type Scenario } from './support/scenario';

let scenario: Scenario;

beforeAll(async () => {
  scenario = await startScenario({ days: 1, runsPerDay: 3 });
});
afterAll(() => scenario?.close());

const client = () => scenario.platform.client;

test('a project keeps its description and extra, and PATCH replaces the fields it sends', async () => {
  const made = await client().createSession({ name: 'crud', description: 'first', extra: { metadata: { team: 'a' }, kept: 1 } });
  expect(made).toMatchObject({ name: 'crud', description: 'first', extra: { metadata: { team: 'a' }, kept: 1 } });
  expect(await client().findSessionByName('crud')).toEqual(made);

  const renamed = await client().updateSession(made.id, { name: 'crud-2', extra: { metadata: { team: 'b' } } });
  expect(renamed).toMatchObject({ id: made.id, name: 'crud-2', description: 'first', extra: { metadata: { team: 'b' } } });
  expect(await client().updateSession(made.id, { description: null })).toMatchObject({ description: null, name: 'crud-2' });
  expect(await client().findSessionByName('crud')).toBeUndefined();
});

test('a name is unique in the workspace, on create and on rename', async () => {
  await client().createSession({ name: 'taken' });
  const other = await client().createSession({ name: 'free' });
  await expect(client().createSession({ name: 'taken' })).rejects.toBeInstanceOf(ConflictError);
  await expect(client().updateSession(other.id, { name: 'taken' })).rejects.toBeInstanceOf(ConflictError);
});

test('a create sent again under its Idempotency-Key is answered with the first project', async () => {
  const first = await client().createSession({ name: 'keyed' }, { idempotencyKey: 'project-key-1' });
  const again = await client().createSession({ name: 'keyed' }, { idempotencyKey: 'project-key-1' });
  expect(again.id).toBe(first.id);
  await client().deleteSession(first.id);
  const anew = await client().createSession({ name: 'keyed' }, { idempotencyKey: 'project-key-1' });
  expect(anew.id).not.toBe(first.id);
});

test('deleting a project deletes its runs and cancels the exports naming it that have not ended', async () => {
  const { sessionId } = scenario;
  const runsOf = () => scenario.platform.db.prepare('SELECT id FROM trace_runs WHERE session_id = ?').all(sessionId) as { id: string }[];
  const [run] = runsOf();
  expect(run).toBeDefined();
  expect(scenario.platform.stores.runs.get(scenario.platform.tenantId, run!.id)).toBeDefined();
  const schedule = await client().createExport({
    bulk_export_destination_id: scenario.destinationId,
    session_id: sessionId,
    start_time: new Date(scenario.clock.now()).toISOString(),
    interval_hours: 24,
  });
  expect(schedule.status).not.toBe('Cancelled');
  await client().deleteSession(sessionId);
  await expect(client().getSession(sessionId)).rejects.toBeInstanceOf(NotFoundError);
  expect((await client().getExport(schedule.id)).status).toBe('Cancelled');
  await expect(client().transport.request({ method: 'GET', path: `/api/v1/runs/${run!.id}` })).rejects.toBeInstanceOf(NotFoundError);
  expect(runsOf()).toEqual([]);
  await expect(client().deleteSession(sessionId)).rejects.toBeInstanceOf(NotFoundError);
});
