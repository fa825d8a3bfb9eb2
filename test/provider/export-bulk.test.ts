/**
 * `agentplatform_bulk_export` and `agentplatform_bulk_export_runs` through the real terraform against the local
 * platform (on a manual clock) with Ceph RADOS Gateway as the bucket: a one-off export waited for until Completed,
 * its Parquet files in the bucket and listed by the data source; a failing one that shows its run errors; scheduled
 * exports that spawn on the clock, a cancel outside Terraform seen as drift, and destroy that cancels the schedule
 * and, with `cancel_spawned_on_destroy`, its spawned exports.
 */
import type { BulkExportRecord as BulkExport } from '../../lib/api/schemas/bulk-export';
import { ManualClock } from '../../lib/local/clock';
import { CEPH_START_TIMEOUT_MS, startCeph, type CephCluster, type S3Credentials } from '../support/ceph';
import { getObjectBytes, readParquetRows } from '../tracing/support/parquet';
import type { DeploymentDir } from './support/deployment-platform';
import { until } from './support/deployment-platform';
import { ExportTestPlatform, bulkExport, diagnostic, flat, startProxy, type Hcl } from './support/export-platform';
import { collect, type TerraformResult } from './support/terraform';

const BUCKET = 'exports';
const CLOCK_START = Date.parse('2025-03-10T00:00:00Z');
const MINUTE = 60_000;
const FINAL = ['Completed', 'Failed', 'Cancelled', 'TimedOut'];

let ceph: CephCluster;
let lp: ExportTestPlatform;
let clock: ManualClock;
let writer: S3Credentials;
let revocable: S3Credentials;

const allow = (actions: string[]) => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: actions, Resource: [`arn:aws:s3:::${BUCKET}/*`] }],
});
const EXPORT_ACTIONS = ['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload'];

function destination(label: string, keys: S3Credentials, prefix: string): string {
  return `resource "agentplatform_export_destination" "${label}" {
  display_name = "${label}"
  bucket_name  = "${BUCKET}"
  prefix       = "${prefix}"
  endpoint_url = "${ceph.endpoint}"
  credentials = {
    access_key_id     = "${keys.accessKeyId}"
    secret_access_key = "${keys.secretAccessKey}"
  }
  credentials_version = 1
}
`;
}

async function childrenOf(parentId: string): Promise<BulkExport[]> {
  return (await lp.client.listExports()).filter((e) => e.source_bulk_export_id === parentId);
}

beforeAll(async () => {
  ceph = await startCeph();
  await ceph.createBucket(BUCKET);
  writer = await ceph.createUser('writer');
  revocable = await ceph.createUser('revocable');
  await ceph.putUserPolicy('writer', allow(EXPORT_ACTIONS));
  await ceph.putUserPolicy('revocable', allow(EXPORT_ACTIONS));
  clock = new ManualClock(CLOCK_START);
  lp = await ExportTestPlatform.start(clock);
}, CEPH_START_TIMEOUT_MS);

afterAll(async () => {
  await lp?.close();
  await ceph?.stop();
});

describe('one-off bulk exports', () => {
  let dir: DeploymentDir;
  let sessionId: string;
  const dayOne = ['2025-03-01T08:00:00Z', '2025-03-01T09:30:00Z', '2025-03-01T23:59:00Z'];
  const dayTwo = ['2025-03-02T00:00:00Z', '2025-03-02T12:00:00Z'];
  const destinations = () => [destination('archive', writer, 'archive'), destination('revoked', revocable, 'revoked')].join('\n');
  const march = () =>
    [
      bulkExport('march', {
        destination_id: 'agentplatform_export_destination.archive.id',
        session_id: sessionId,
        start_time: '2025-03-01T00:00:00Z',
        end_time: '2025-03-03T00:00:00Z',
        export_fields: ['id', 'name', 'run_type', 'start_time', 'total_tokens'],
        wait_for_completion: true,
      }),
      'data "agentplatform_bulk_export_runs" "march" {\n  export_id = agentplatform_bulk_export.march.id\n}\n',
      'output "runs" {\n  value = data.agentplatform_bulk_export_runs.march.runs\n}\n',
    ].join('\n');

  /** An export to the destination whose key loses its policy: it fails (and, tainted, fails again at each apply). */
  const revokedExport = () =>
    bulkExport('revoked', {
      destination_id: 'agentplatform_export_destination.revoked.id',
      session_id: sessionId,
      start_time: '2025-03-02T00:00:00Z',
      end_time: '2025-03-03T00:00:00Z',
      wait_for_completion: true,
    });

  beforeAll(async () => {
    sessionId = await lp.seedRuns('support-agent', [...dayOne, ...dayTwo, '2025-03-03T01:00:00Z']);
    dir = lp.terraform();
    dir.configure(destinations());
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
  });

  it('waits until Completed; the Parquet files are in the bucket and the runs data source lists them', async () => {
    dir.configure([destinations(), march()].join('\n'));

    const applied = await dir.apply();

    expect(applied.stderr).toBe('');
    const state = dir.instance('agentplatform_bulk_export.march').attributes;
    expect(state).toMatchObject({ status: 'Completed', start_time: '2025-03-01T00:00:00Z', end_time: '2025-03-03T00:00:00Z', format_version: 'v1', interval_hours: null });
    expect(state.finished_at).toEqual(expect.any(String));
    const id = state.id as string;
    expect((await lp.client.getExport(id)).status).toBe('Completed');

    const keys = await ceph.listObjects(BUCKET, `archive/export_id=${id}/`);
    const tenant = (await lp.client.getExport(id)).tenant_id;
    expect(keys).toEqual([
      `archive/export_id=${id}/tenant_id=${tenant}/session_id=${sessionId}/runs/year=2025/month=03/day=01/part-00000.parquet`,
      `archive/export_id=${id}/tenant_id=${tenant}/session_id=${sessionId}/runs/year=2025/month=03/day=02/part-00000.parquet`,
    ]);
    const s3 = ceph.s3Client(writer);
    const rows = await readParquetRows(await getObjectBytes(s3, BUCKET, keys[0]!));
    expect(rows.map((r) => r.name).sort()).toEqual(['step-0', 'step-1', 'step-2']);
    expect(Object.keys(rows[0]!).sort()).toEqual(['id', 'name', 'run_type', 'start_time', 'total_tokens']);

    const output = JSON.parse((await dir.tf.run(['output', '-json', 'runs'])).stdout) as { status: string; rows_exported: number; files: string[]; errors: object; start_time: string }[];
    expect(output.map((r) => [r.start_time.slice(0, 10), r.status, r.rows_exported, r.errors])).toEqual([
      ['2025-03-01', 'Completed', dayOne.length, {}],
      ['2025-03-02', 'Completed', dayTwo.length, {}],
    ]);
    expect(output.flatMap((r) => r.files)).toEqual(keys);

    expect((await dir.plan()).code).toBe(0);
  });

  it('imports an export by id: a matching configuration plans no changes, and Terraform\'s own settings change in place', async () => {
    const id = dir.instance('agentplatform_bulk_export.march').attributes.id as string;
    const fresh = lp.terraform();
    const imported = (extra: Record<string, Hcl>) =>
      bulkExport('march', {
        destination_id: dir.instance('agentplatform_export_destination.archive').attributes.id as string,
        session_id: sessionId,
        start_time: '2025-03-01T00:00:00Z',
        end_time: '2025-03-03T00:00:00Z',
        export_fields: ['id', 'name', 'run_type', 'start_time', 'total_tokens'],
        ...extra,
      });
    fresh.configure(imported({}));
    expect((await fresh.init()).code).toBe(0);
    expect((await fresh.tf.run(['import', '-input=false', '-no-color', 'agentplatform_bulk_export.march', id])).code).toBe(0);
    expect(fresh.instance('agentplatform_bulk_export.march').attributes).toMatchObject({ id, status: 'Completed', wait_for_completion: false });
    expect((await fresh.plan()).code).toBe(0);

    // Terraform's own settings change in place; the export stays.
    fresh.configure(imported({ cancel_spawned_on_destroy: true }));
    const settings = await fresh.plan();
    expect(settings.stdout).toContain('# agentplatform_bulk_export.march will be updated in-place');
    expect(settings.stdout).toMatch(/cancel_spawned_on_destroy\s+= false -> true/);
    // an update of Terraform's own settings calls no API: the export's status and times stay as they are
    expect(settings.stdout).not.toContain('(known after apply)');
    expect((await fresh.apply()).code).toBe(0);
    expect(fresh.instance('agentplatform_bulk_export.march').attributes).toMatchObject({ id, status: 'Completed', cancel_spawned_on_destroy: true });

    // the same instant in another notation (as a platform that normalizes timestamps writes them back) is no change
    // that replaces the export: it is taken in place
    fresh.configure(imported({ cancel_spawned_on_destroy: true, start_time: '2025-03-01T00:00:00+00:00' }));
    const notation = await fresh.plan();
    expect(notation.stdout).toContain('# agentplatform_bulk_export.march will be updated in-place');
    expect(notation.stdout).not.toContain('must be replaced');
    expect((await fresh.apply()).code).toBe(0);
    expect(fresh.instance('agentplatform_bulk_export.march').attributes).toMatchObject({ id, start_time: '2025-03-01T00:00:00+00:00' });
    expect((await fresh.plan()).code).toBe(0);
  });

  // the spec types session_id as a UUID, which is the same in any case; a destination id is a plain string
  it('a tracing project id in upper case and a filter spaced otherwise are the same arguments: created as written, then changed in place', async () => {
    const archiveId = dir.instance('agentplatform_export_destination.archive').attributes.id as string;
    const other = lp.terraform();
    const written = (ids: (id: string) => string, filter: string) =>
      bulkExport('cased', {
        destination_id: archiveId,
        session_id: ids(sessionId),
        start_time: '2025-03-01T00:00:00Z',
        end_time: '2025-03-02T00:00:00Z',
        filter,
        export_fields: ['id', 'name'],
      });
    other.configure(written((id) => id.toUpperCase(), 'eq( run_type , "chain" )'));
    expect((await other.init()).code).toBe(0);
    const created = await other.apply();
    expect(created.stderr).toBe('');
    const state = other.instance('agentplatform_bulk_export.cased').attributes;
    expect(state).toMatchObject({ destination_id: archiveId, session_id: sessionId.toUpperCase(), filter: 'eq( run_type , "chain" )' });
    expect((await lp.client.getExport(state.id as string)).session_id).toBe(sessionId);
    expect((await other.plan()).code).toBe(0);

    other.configure(written((id) => id, "eq(run_type, 'chain')"));
    const respelled = await other.plan();
    expect(respelled.stdout).toContain('# agentplatform_bulk_export.cased will be updated in-place');
    expect(respelled.stdout).not.toContain('must be replaced');
    expect((await other.apply()).code).toBe(0);
    expect(other.instance('agentplatform_bulk_export.cased').attributes).toMatchObject({ id: state.id, session_id: sessionId, filter: "eq(run_type, 'chain')" });
    expect((await other.plan()).code).toBe(0);

    // a filter that reads otherwise is another export, and so is a destination id written otherwise
    other.configure(written((id) => id, "eq(run_type, 'llm')"));
    expect((await other.plan()).stdout).toContain('must be replaced');
    other.configure(bulkExport('cased', {
      destination_id: archiveId.toUpperCase(),
      session_id: sessionId,
      start_time: '2025-03-01T00:00:00Z',
      end_time: '2025-03-02T00:00:00Z',
      filter: "eq(run_type, 'chain')",
      export_fields: ['id', 'name'],
    }));
    expect((await other.plan()).stdout).toMatch(/destination_id\s+=\s+"[0-9a-f-]+"\s+->\s+"[0-9A-F-]+"\s+# forces replacement/);
    expect((await other.destroy()).code).toBe(0);
  });

  it('fails with each failed run and its errors when the destination lost its permission, and keeps the export in state', async () => {
    await ceph.deleteUserPolicy('revocable');
    dir.configure([destinations(), march(), revokedExport()].join('\n'));

    const applied = await dir.apply();

    expect(applied.code).toBe(1);
    const instance = dir.instance('agentplatform_bulk_export.revoked');
    expect(instance.status).toBe('tainted');
    const id = instance.attributes.id as string;
    expect(instance.attributes.status).toBe('Failed');
    const [run] = await lp.client.listExportRuns(id);
    const failure = diagnostic(applied.stderr, `Bulk export ${id} failed`);
    expect(flat(failure)).toContain('1 of 1 export run(s) failed');
    expect(flat(failure)).toContain(`Run ${run!.id} (${run!.start_time} to ${run!.end_time}), Failed: retry_0:`);
    // storage errors are not retried: one attempt, one error
    expect(Object.keys(run!.errors)).toEqual(['retry_0']);
    expect(flat(failure)).toContain(`retry_0: ${flat(run!.errors.retry_0)}`);
    expect(run!.errors.retry_0).toMatch(/^Storage or destination error \(not retried\): Access denied/);
    expect(flat(failure)).toContain('the next apply replaces it with a new export');
  });

  it('warns when an export created without waiting has failed since, with its run errors, until the state records it', async () => {
    const unwatched = bulkExport('unwatched', {
      destination_id: 'agentplatform_export_destination.revoked.id',
      session_id: sessionId,
      start_time: '2025-03-01T00:00:00Z',
      end_time: '2025-03-02T00:00:00Z',
      wait_for_completion: false,
    });
    dir.configure([destinations(), march(), revokedExport(), unwatched].join('\n'));
    expect((await dir.apply()).code).toBe(1);
    const id = dir.instance('agentplatform_bulk_export.unwatched').attributes.id as string;
    expect(dir.instance('agentplatform_bulk_export.unwatched').attributes.status).not.toBe('Failed');
    await until(async () => (await lp.client.getExport(id)).status === 'Failed');

    const seen = await dir.plan();

    const warning = flat(diagnostic(seen.stdout + seen.stderr, `Bulk export ${id} failed`));
    expect(warning).toMatch(/The state last saw the export (Created|Running); it has ended Failed since\./);
    const [run] = await lp.client.listExportRuns(id);
    expect(warning).toContain(`Run ${run!.id} (${run!.start_time} to ${run!.end_time}), Failed: retry_0: ${flat(run!.errors.retry_0)}`);
    expect(warning).toContain('terraform apply -replace=');
    // the export is not replaced by itself; once the state has seen it Failed, the warning is not repeated
    expect(seen.stdout).not.toContain('agentplatform_bulk_export.unwatched must be replaced');
    expect((await dir.apply('-refresh-only')).code).toBe(0);
    expect(dir.instance('agentplatform_bulk_export.unwatched').attributes.status).toBe('Failed');
    const again = await dir.plan();
    expect(again.stdout + again.stderr).not.toContain(`Bulk export ${id} failed`);
  });

  it('destroy of finished exports only removes them from state', async () => {
    const ids = ['march', 'revoked', 'unwatched'].map((label) => dir.instance(`agentplatform_bulk_export.${label}`).attributes.id as string);

    const destroyed = await dir.destroy();

    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 5 destroyed.');
    expect((await Promise.all(ids.map((id) => lp.client.getExport(id)))).map((e) => e.status)).toEqual(['Completed', 'Failed', 'Failed']);
  });
});

describe('exports whose store went away (their runs wait for retries)', () => {
  let flakyId: string;
  let sessionId: string;

  beforeAll(async () => {
    // runs of the schedule's first hours, and of the day before for the one-off exports (which may not end in the
    // platform's future)
    const hours = ['00:10:00Z', '01:10:00Z', '02:10:00Z'];
    sessionId = await lp.seedRuns('scheduled-agent', [...hours.map((h) => `2025-03-10T${h}`), ...hours.map((h) => `2025-03-09T${h}`)]);
    // The platform validates the destination through a proxy to Ceph, then the proxy goes: every run of an export to
    // it fails to connect and waits 30 s of platform time for its retry, so the export stays in progress.
    const proxy = await startProxy(new URL(ceph.endpoint));
    const keys = { access_key_id: writer.accessKeyId, secret_access_key: writer.secretAccessKey };
    const config = { bucket_name: BUCKET, prefix: 'flaky', endpoint_url: proxy.url };
    flakyId = (await lp.client.createDestination({ destination_type: 's3', display_name: 'flaky', config, credentials: keys })).id;
    await proxy.stop();
  });

  /** Until every run of the export has failed its first attempt (it is then waiting for a retry). */
  const attempted = (id: string) => until(async () => (await lp.client.listExportRuns(id)).every((run) => 'retry_0' in run.errors), 20_000);

  it('scheduled: spawn children on the clock; a cancel outside Terraform is drift; destroy cancels the schedule and, when asked, its children', async () => {
    const dir = lp.terraform();
    const schedule = (label: string, cancelSpawned: boolean) =>
      bulkExport(label, {
        destination_id: flakyId,
        session_id: sessionId,
        start_time: '2025-03-10T00:00:00Z',
        interval_hours: 1,
        cancel_spawned_on_destroy: cancelSpawned,
        // two exports of the very same request would be told apart by the order of their creates only (docs/convergence.md)
        export_fields: cancelSpawned ? ['id', 'name'] : ['id', 'run_type'],
      });
    dir.configure([schedule('keep_children', false), schedule('cancel_children', true)].join('\n'));
    expect((await dir.init()).code).toBe(0);

    const applied = await dir.apply();

    expect(applied.stderr).toBe('');
    const ids = { keep: '', cancel: '' };
    for (const [key, label] of [['keep', 'keep_children'], ['cancel', 'cancel_children']] as const) {
      const attributes = dir.instance(`agentplatform_bulk_export.${label}`).attributes;
      expect(attributes).toMatchObject({ status: 'Running', interval_hours: 1, end_time: null, finished_at: null });
      ids[key] = attributes.id as string;
      expect(await childrenOf(ids[key])).toEqual([]);
    }

    // the first child is due at the end of its hour + 10 minutes, the second an hour later
    clock.advance(69 * MINUTE);
    expect((await childrenOf(ids.keep)).length).toBe(0);
    clock.advance(1 * MINUTE);
    expect((await childrenOf(ids.keep)).length).toBe(1);
    clock.advance(60 * MINUTE);
    for (const id of [ids.keep, ids.cancel]) {
      const children = await childrenOf(id);
      expect(children.map((c) => [Date.parse(c.start_time), Date.parse(c.end_time!)])).toEqual([
        [CLOCK_START, CLOCK_START + 60 * MINUTE],
        [CLOCK_START + 60 * MINUTE, CLOCK_START + 120 * MINUTE],
      ]);
      for (const child of children) expect(await attempted(child.id)).toBe(true);
      expect((await childrenOf(id)).map((c) => c.status)).toEqual(['Running', 'Running']);
    }

    await lp.client.cancelExport(ids.keep);
    const drift = await dir.plan();
    expect(drift.code).toBe(2);
    expect(flat(diagnostic(drift.stdout + drift.stderr, `Bulk export ${ids.keep} was cancelled outside Terraform`))).toContain('plans a new export in its place');
    expect(drift.stdout).toContain('# agentplatform_bulk_export.keep_children must be replaced');
    expect(flat(drift.stdout)).toContain('~ status = "Cancelled" -> (known after apply) # forces replacement');
    expect(drift.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    // the new schedule starts at the same start_time: the intervals since then (by this machine's clock, not the
    // platform's manual one) are exported again, and the plan says so
    expect(flat(diagnostic(drift.stdout + drift.stderr, 'Scheduled export starts in the past'))).toMatch(/is \d+ interval\(s\) of 1h in the past: .* This replaces an export that exported them already/);
    expect((await dir.apply()).code).toBe(0);
    const recreated = dir.instance('agentplatform_bulk_export.keep_children').attributes.id as string;
    expect(recreated).not.toBe(ids.keep);

    // a schedule cancelled outside Terraform stays in state, so its destroy still cancels what it spawned
    await lp.client.cancelExport(ids.cancel);
    expect((await childrenOf(ids.cancel)).map((c) => c.status)).toEqual(['Running', 'Running']);
    const destroyed = await dir.destroy();

    expect(destroyed.code).toBe(0);
    const statuses = async (exportIds: string[]) => (await Promise.all(exportIds.map((id) => lp.client.getExport(id)))).map((e) => e.status);
    expect(await statuses([recreated, ids.cancel])).toEqual(['Cancelled', 'Cancelled']);
    expect((await childrenOf(ids.cancel)).map((c) => c.status)).toEqual(['Cancelled', 'Cancelled']);
    // without the flag, the spawned exports are left alone, as the platform does
    const left = [...(await childrenOf(ids.keep)), ...(await childrenOf(recreated))];
    expect(left.length).toBeGreaterThanOrEqual(2);
    expect(left.filter((c) => FINAL.includes(c.status))).toEqual([]);
  });

  it('one-off: a wait longer than timeouts.create fails naming the last status, keeps the export, and destroy cancels it', async () => {
    const dir = lp.terraform();
    dir.configure(
      bulkExport('slow', {
        destination_id: flakyId,
        session_id: sessionId,
        start_time: '2025-03-09T00:00:00Z',
        end_time: '2025-03-09T03:00:00Z',
        wait_for_completion: true,
        timeouts: { create: '2s' },
      }),
    );
    expect((await dir.init()).code).toBe(0);

    const applied = await dir.apply();

    expect(applied.code).toBe(1);
    const instance = dir.instance('agentplatform_bulk_export.slow');
    expect(instance).toMatchObject({ status: 'tainted', attributes: { status: 'Running' } });
    const id = instance.attributes.id as string;
    const timedOut = diagnostic(applied.stderr, `Bulk export ${id}: create timed out`);
    expect(timedOut).toMatch(/\d+:\s+timeouts = \{ create = "2s" \}/);
    expect(flat(timedOut)).toContain('Timed out after 2s waiting for the export to complete; last status Running.');

    expect((await dir.destroy()).code).toBe(0);
    expect((await lp.client.getExport(id)).status).toBe('Cancelled');
  });

  it('one-off: an export that exceeds the platform\'s workflow timeout fails with the remedy', async () => {
    const END = '2025-03-09T02:30:00Z';
    const dir = lp.terraform();
    dir.configure(
      bulkExport('endless', { destination_id: flakyId, session_id: sessionId, start_time: '2025-03-09T00:00:00Z', end_time: END, wait_for_completion: true }),
    );
    expect((await dir.init()).code).toBe(0);
    const terraform = dir.tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
    const apply = collect(terraform);
    let id: string | undefined;
    const inProgress = async () => {
      id ??= (await lp.client.listExports()).find((e) => e.source_bulk_export_id === null && e.end_time !== null && Date.parse(e.end_time) === Date.parse(END))?.id;
      return id !== undefined && (await lp.client.listExportRuns(id)).every((run) => 'retry_0' in run.errors);
    };
    let applied: TerraformResult;
    try {
      expect(await until(inProgress, 20_000)).toBe(true);
      clock.advance(72 * 60 * MINUTE);
      applied = await apply;
    } finally {
      if (terraform.exitCode === null) process.kill(-terraform.pid!, 'SIGKILL');
    }

    expect(applied.code).toBe(1);
    expect((await lp.client.getExport(id!)).status).toBe('TimedOut');
    expect(dir.instance('agentplatform_bulk_export.endless')).toMatchObject({ status: 'tainted', attributes: { id, status: 'TimedOut' } });
    const failure = diagnostic(applied.stderr, `Bulk export ${id} timed out`);
    expect(flat(failure)).toContain('narrow the date range (`start_time`, `end_time`), add a `filter`, or export fewer fields (`export_fields`');
    expect((await dir.destroy()).code).toBe(0);
  });
});
