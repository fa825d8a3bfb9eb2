/**
 * `examples/hcl/exports` applies as written against the local platform (on a manual clock) with the in-process S3
 * server as the bucket: the backfill completes with only root runs exported, its files are in the bucket, the
 * schedule is accepted and spawns its first day on the clock, a second plan is empty, and destroy cancels the schedule.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../lib/local/clock';
import { startInProcessS3, type InProcessS3 } from '../../lib/local/s3';
import { packageRoot } from '../../lib/provider/constants';
import { until } from './support/deployment-platform';
import { ExportTestPlatform } from './support/export-platform';
import { listKeys } from '../tracing/support/parquet';
import { S3Client } from '@aws-sdk/client-s3';

const BUCKET = 'agent-traces';
const SCHEDULE_START = Date.parse('2025-06-01T00:00:00Z');

describe('examples/hcl/exports', () => {
  let lp: ExportTestPlatform;
  let s3: InProcessS3;
  let s3Dir: string;
  const clock = new ManualClock(SCHEDULE_START);
  beforeAll(async () => {
    s3Dir = mkdtempSync(join(tmpdir(), 'example-s3-'));
    s3 = await startInProcessS3({ directory: s3Dir, buckets: [BUCKET] });
    lp = await ExportTestPlatform.start(clock);
  });
  afterAll(async () => {
    await lp?.close();
    await s3?.close();
    rmSync(s3Dir, { recursive: true, force: true });
  });

  it('applies, plans nothing more, spawns the schedule on the clock, and destroys', async () => {
    const [rootA, rootB] = [randomUUID(), randomUUID()];
    const run = (id: string, start: string, parent?: string) => ({
      id,
      name: parent ? 'llm' : 'agent',
      run_type: parent ? 'llm' : 'chain',
      start_time: start,
      end_time: start,
      session_name: 'support-agent',
      ...(parent ? { parent_run_id: parent } : {}),
    });
    await lp.client.ingestRuns({
      post: [run(rootA, '2025-05-31T09:00:00Z'), run(randomUUID(), '2025-05-31T09:00:01Z', rootA), run(rootB, '2025-05-31T17:00:00Z'), run(randomUUID(), '2025-06-01T00:30:00Z')],
    });
    const sessionId = (await lp.client.findSessionByName('support-agent'))!.id;
    const dir = lp.terraform({
      TF_VAR_session_id: sessionId,
      TF_VAR_endpoint_url: s3.endpoint,
      TF_VAR_access_key_id: s3.accessKeyId,
      TF_VAR_secret_access_key: s3.secretAccessKey,
      TF_VAR_schedule_start: new Date(SCHEDULE_START).toISOString(),
      TF_VAR_backfill_day: '2025-05-31',
    });
    dir.tf.write('main.tf', readFileSync(join(packageRoot(), 'examples', 'hcl', 'exports', 'main.tf'), 'utf8'));
    expect((await dir.init()).code).toBe(0);

    const applied = await dir.apply();

    expect(applied.stderr).toBe('');
    const output = JSON.parse((await dir.tf.run(['output', '-json'])).stdout) as Record<string, { value: unknown }>;
    const backfill = dir.instance('agentplatform_bulk_export.backfill').attributes;
    expect(backfill).toMatchObject({ status: 'Completed', format_version: 'v2_beta', filter: 'eq(is_root, true)', end_time: '2025-06-01T00:00:00Z' });
    expect(output.backfill_rows!.value).toBe(2);
    const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    try {
      expect(output.backfill_files!.value).toEqual(await listKeys(client, BUCKET, `traces/export_id=${backfill.id}/`));
      expect((output.backfill_files!.value as string[]).length).toBe(1);
      const daily = dir.instance('agentplatform_bulk_export.daily').attributes;
      expect(output.schedule!.value).toBe(`${daily.id} (Running)`);
      expect((await dir.plan()).code).toBe(0);

      // The first day is exported 10 minutes after it ends.
      clock.advance(24 * 3_600_000 + 10 * 60_000);
      const first = () => lp.client.listExports().then((all) => all.find((e) => e.source_bulk_export_id === daily.id));
      expect(await until(async () => (await first())?.status === 'Completed')).toBe(true);
      expect(await listKeys(client, BUCKET, `traces/export_id=${(await first())!.id}/`)).toHaveLength(1);

      const destroyed = await dir.destroy();
      expect(destroyed.code).toBe(0);
      expect(destroyed.stdout).toContain('Destroy complete! Resources: 3 destroyed.');
      expect((await lp.client.getExport(daily.id as string)).status).toBe('Cancelled');
    } finally {
      client.destroy();
    }
  });
});
