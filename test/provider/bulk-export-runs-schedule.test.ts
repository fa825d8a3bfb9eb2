/**
 * `agentplatform_bulk_export_runs` of a scheduled export, through the real terraform against the local platform on a
 * manual clock: a schedule has no runs of its own, so the data source lists the runs of the exports it spawned, each
 * naming its export; a schedule that spawned nothing yet has none.
 */
import type { BulkExportRecord as BulkExport } from '../../lib/api/schemas/bulk-export';
import { ManualClock } from '../../lib/local/clock';
import { destinationOn, startTestS3, type TestS3 } from '../tracing/support/s3';
import { until, type DeploymentDir } from './support/deployment-platform';
import { ExportTestPlatform } from './support/export-platform';

const CLOCK_START = Date.parse('2025-04-01T00:00:00Z');
const MINUTE = 60_000;

let s3: TestS3;
let lp: ExportTestPlatform;
let clock: ManualClock;
let dir: DeploymentDir;
let scheduleId: string;

beforeAll(async () => {
  s3 = await startTestS3(['exports']);
  clock = new ManualClock(CLOCK_START);
  lp = await ExportTestPlatform.start(clock);
  const sessionId = await lp.seedRuns('scheduled', ['2025-04-01T00:10:00Z', '2025-04-01T00:20:00Z', '2025-04-01T01:10:00Z']);
  const destination = await lp.client.createDestination(destinationOn(s3, 'runs', 'runs'));
  scheduleId = (
    await lp.client.createExport({ bulk_export_destination_id: destination.id, session_id: sessionId, start_time: '2025-04-01T00:00:00Z', interval_hours: 1 })
  ).id;
  dir = lp.terraform();
  dir.configure(
    `data "agentplatform_bulk_export_runs" "schedule" {\n  export_id = "${scheduleId}"\n}\n\n` +
      'output "runs" {\n  value = data.agentplatform_bulk_export_runs.schedule.runs\n}\n\n' +
      // the id as a user may copy it, in upper case
      `data "agentplatform_bulk_export_runs" "upper" {\n  export_id = "${scheduleId.toUpperCase()}"\n}\n\n` +
      'output "runs_upper" {\n  value = data.agentplatform_bulk_export_runs.upper.runs\n}\n',
  );
  expect((await dir.init()).code).toBe(0);
});

afterAll(async () => {
  await lp?.close();
  await s3?.close();
});

type RunOutput = { bulk_export_id: string; status: string; rows_exported: number; start_time: string; files: string[] };

async function readRuns(): Promise<RunOutput[]> {
  const applied = await dir.apply();
  expect(applied.stderr).toBe('');
  return JSON.parse((await dir.tf.run(['output', '-json', 'runs'])).stdout) as RunOutput[];
}

const spawned = async (): Promise<BulkExport[]> => (await lp.client.listExports()).filter((e) => e.source_bulk_export_id === scheduleId);

test('before its first interval is due, a schedule has no runs', async () => {
  expect(await readRuns()).toEqual([]);
});

test('then it lists the runs of the exports it spawned, in range order, each naming its spawned export', async () => {
  // both intervals are due 10 minutes after their end
  clock.advance(130 * MINUTE);
  const children = async () => {
    const exports = await spawned();
    return exports.length === 2 && exports.every((e) => e.status === 'Completed') ? exports : undefined;
  };
  expect(await until(async () => (await children()) !== undefined, 20_000)).toBe(true);
  const [first, second] = (await children())!.sort((a, b) => Date.parse(a.start_time) - Date.parse(b.start_time));

  const runs = await readRuns();

  expect(runs.map((r) => [r.bulk_export_id, r.status, r.rows_exported, r.start_time])).toEqual([
    [first!.id, 'Completed', 2, '2025-04-01T00:00:00.000Z'],
    [second!.id, 'Completed', 1, '2025-04-01T01:00:00.000Z'],
  ]);
  expect(runs.flatMap((r) => r.files)).toHaveLength(2);
  expect(JSON.parse((await dir.tf.run(['output', '-json', 'runs_upper'])).stdout)).toEqual(runs);
});
