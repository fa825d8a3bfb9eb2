/**
 * A scheduled export that starts months in the past, in plain HCL as a user writes it, through the real terraform:
 * the plan warns how many intervals are due at once and the apply creates it (the spec sets no limit: the platform
 * queues what exceeds its capacity); the platform spawns an export of every due interval and runs at most 15 of them
 * at a time (spec: Limits) until all are Completed; the next plan is empty; destroy cancels the schedule.
 */
import type { BulkExport } from '../../lib/api/schemas/bulk-export';
import { ExportStore } from '../../lib/local/tracing/exports/store';
import { startTestS3, type TestS3 } from '../tracing/support/s3';
import { until } from './support/deployment-platform';
import { ExportTestPlatform, diagnostic, flat } from './support/export-platform';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const INTERVAL_HOURS = 6;

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

it('a schedule starting three months ago applies with a warning, exports every interval 15 at a time, plans no change and is cancelled on destroy', async () => {
  // the start of an hour three months ago (every 6 hours: some 360 intervals due), and a run in every day since
  const startMs = Math.floor((Date.now() - 90 * DAY) / HOUR) * HOUR;
  const start = new Date(startMs).toISOString().replace('.000Z', 'Z');
  const sessionId = await lp.seedRuns('backfill', Array.from({ length: 90 }, (_, day) => new Date(startMs + day * DAY + HOUR).toISOString()));
  const dir = lp.terraform({ TF_VAR_export_access_key_id: s3.credentials.access_key_id, TF_VAR_export_secret_access_key: s3.credentials.secret_access_key });
  dir.configure(`
variable "export_access_key_id" {
  type      = string
  ephemeral = true
}

variable "export_secret_access_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "agentplatform_export_destination" "archive" {
  display_name = "trace archive"
  bucket_name  = "exports"
  prefix       = "backfill"
  endpoint_url = "${s3.server.endpoint}"

  credentials = {
    access_key_id     = var.export_access_key_id
    secret_access_key = var.export_secret_access_key
  }
  credentials_version = 1
}

resource "agentplatform_bulk_export" "every_six_hours" {
  destination_id            = agentplatform_export_destination.archive.id
  session_id                = "${sessionId}"
  start_time                = "${start}"
  interval_hours            = ${INTERVAL_HOURS}
  cancel_spawned_on_destroy = true
}
`);
  expect((await dir.init()).code).toBe(0);

  // the most exports of the workspace Running at once, and whether others waited meanwhile, after every change of an
  // export's status
  const setStatus = ExportStore.prototype.setExportStatus;
  let most = 0;
  let queuedWhileFull = false;
  const spy = jest.spyOn(ExportStore.prototype, 'setExportStatus').mockImplementation(function (this: ExportStore, ...args) {
    setStatus.apply(this, args);
    for (const [tenant, running] of this.runningExportsPerTenant()) {
      most = Math.max(most, running);
      if (running === 15 && this.queuedExports(tenant, 1).length > 0) queuedWhileFull = true;
    }
  });
  try {
    const planned = await dir.plan();
    expect([planned.code, planned.stderr]).toEqual([2, '']);
    const due = Math.floor((Date.now() - 10 * 60_000 - startMs) / (INTERVAL_HOURS * HOUR));
    const warning = flat(diagnostic(planned.stdout, 'Scheduled export starts in the past'));
    const said = Number(/is (\d+) interval\(s\) of 6h in the past: \1 interval\(s\) are due at once/.exec(warning)?.[1]);
    expect(Math.abs(said - due)).toBeLessThanOrEqual(1);
    expect(said).toBeGreaterThan(15);

    const applied = await dir.apply();
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    expect(applied.stdout).toContain('Scheduled export starts in the past');
    const parentId = dir.instance('agentplatform_bulk_export.every_six_hours').attributes.id as string;
    const children = async (): Promise<BulkExport[]> => (await lp.client.listExports()).filter((e) => e.source_bulk_export_id === parentId);
    expect(await until(async () => (await children()).length >= said, 60_000)).toBe(true);
    expect(await until(async () => (await children()).every((child) => child.status === 'Completed'), 300_000)).toBe(true);
    const spawned = await children();
    // one export per interval, each interval once, in order
    const starts = spawned.map((child) => Date.parse(child.start_time!)).sort((a, b) => a - b);
    expect(starts).toEqual(Array.from({ length: spawned.length }, (_, k) => startMs + k * INTERVAL_HOURS * HOUR));
    expect(most).toBe(15);
    expect(queuedWhileFull).toBe(true);
  } finally {
    spy.mockRestore();
  }

  const again = await dir.plan();
  expect([again.code, again.stderr]).toEqual([0, '']);
  expect(again.stdout).toContain('No changes.');

  const parentId = dir.instance('agentplatform_bulk_export.every_six_hours').attributes.id as string;
  const destroyed = await dir.destroy();
  expect(destroyed.code).toBe(0);
  expect((await lp.client.getExport(parentId)).status).toBe('Cancelled');
});
