/**
 * A one-off export over more than 1000 UTC days (the local platform's limit; the spec names none), through the real
 * terraform: one made before the platform had that limit stays in state as it is (a plan shows no changes, destroy
 * forgets it), while a new one is planned with a warning on `end_time` that the platform may refuse it, and the
 * apply shows the local platform's refusal on that attribute.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../lib/local/db';
import { MAX_EXPORT_DAYS } from '../../lib/api/schemas/bulk-export-constants';
import { FINAL_EXPORT_STATUSES } from '../../lib/provider/resources/bulk-export/checks';
import { destinationOn, startTestS3, type TestS3 } from '../tracing/support/s3';
import { until } from './support/deployment-platform';
import { ExportTestPlatform, bulkExport, diagnostic, diagnostics, flat } from './support/export-platform';

const START = '2025-01-01T00:00:00Z';
/** More than 1000 UTC days after START. */
const LONG_END = '2027-09-28T00:00:01Z';

let lp: ExportTestPlatform;
let s3: TestS3;

beforeAll(async () => {
  lp = await ExportTestPlatform.start();
  s3 = await startTestS3(['exports']);
});

afterAll(async () => {
  await lp?.close();
  await s3?.close();
});

/** A Completed export over START to LONG_END, as a platform without the limit made it. */
async function exportMadeBeforeTheLimit(destinationId: string, sessionId: string): Promise<string> {
  const made = await lp.client.createExport({ bulk_export_destination_id: destinationId, session_id: sessionId, start_time: START, end_time: '2025-01-02T00:00:00Z' });
  expect(await until(async () => FINAL_EXPORT_STATUSES.includes((await lp.client.getExport(made.id)).status), 30_000)).toBe(true);
  const db = new Database(path.join(lp.dataDir, DATABASE_FILE), { timeout: 5_000 });
  try {
    db.prepare('UPDATE bulk_exports SET end_time = ? WHERE id = ?').run(LONG_END, made.id);
  } finally {
    db.close();
  }
  return made.id;
}

it('an export over more than 1000 days made before the limit plans no changes and is destroyed; a new one is warned of at plan', async () => {
  const destinationId = (await lp.client.createDestination(destinationOn(s3, 'long-range'))).id;
  const sessionId = await lp.seedRuns('long-range', ['2025-01-01T12:00:00Z']);
  const id = await exportMadeBeforeTheLimit(destinationId, sessionId);
  const range = { destination_id: destinationId, session_id: sessionId, start_time: START, end_time: LONG_END };
  const dir = lp.terraform();
  dir.configure(bulkExport('old', range));
  expect((await dir.init()).code).toBe(0);
  expect((await dir.tf.run(['import', '-input=false', '-no-color', 'agentplatform_bulk_export.old', id])).code).toBe(0);

  const kept = await dir.plan();
  expect([kept.code, kept.stderr]).toEqual([0, '']);
  expect(kept.stdout).toContain('No changes.');

  dir.configure([bulkExport('old', range), bulkExport('new', range)].join('\n'));
  const before = lp.requests.length;
  const warned = await dir.plan('-refresh=false');
  expect([warned.code, warned.stderr]).toEqual([2, '']);
  expect(lp.requests.length).toBe(before);
  const warnings = diagnostics(warned.stdout, 'Long export range');
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('in resource "agentplatform_bulk_export" "new":');
  expect(warnings[0]).toMatch(/\d+:\s+end_time\s+=/);
  expect(flat(warnings[0])).toContain(`${START} to ${LONG_END} covers 1001 UTC days, an export run each; the platform may refuse a range this long (the local platform takes at most ${MAX_EXPORT_DAYS}).`);
  const refused = await dir.apply();
  expect(refused.code).toBe(1);
  expect(flat(diagnostic(refused.stderr, 'The platform refused to create the bulk export'))).toContain(`an export covers at most ${MAX_EXPORT_DAYS} UTC days`);

  dir.configure(bulkExport('old', range));
  const destroyed = await dir.destroy();
  expect([destroyed.code, destroyed.stderr]).toEqual([0, '']);
  expect((await lp.client.getExport(id)).status).toBe('Completed');
});
