/**
 * The failure table of export runs and the limits table, one named test per row (storage and destination errors
 * are proven against Ceph in destinations-ceph.test.ts; the SIGKILL interruption in kill-and-resume.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { DeleteBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { DESTINATION_DELETED_MESSAGE } from '../../lib/local/tracing/exports/failures';
import { runRangesOf } from '../../lib/local/tracing/exports/plan';
import { toMicros } from '../../lib/local/tracing/store/time';
import { generateSyntheticRuns } from '../../lib/local/tracing/synthetic/generate';
import { ensureCliBuilt, REPO_ROOT } from '../local/support/build';
import { listKeys } from './support/parquet';
import { BUCKET, FIRST_DAY, startScenario, isFinal, type Scenario } from './support/scenario';
import { waitFor } from './support/wait';

let scenario: Scenario | undefined;
afterEach(async () => {
  await scenario?.close();
  scenario = undefined;
});

const putsOf = (s: Scenario) => s.proxy.seen.filter((line) => line.startsWith('PUT') && line.includes('export_id')).length;

describe('failure table', () => {
  test('Run timeout: a run over its 4 h limit ends TimedOut at once, with retries left, and fails the export', async () => {
    scenario = await startScenario({ days: 2, settings: { maxRetries: 2 } });
    scenario.proxy.setMode('hold-requests', 'day=01');
    const exp = await scenario.createExport(2);
    await waitFor('a held upload of the first day', () => (scenario!.proxy.held > 0 ? true : undefined));
    scenario.proxy.dropHeld();
    scenario.clock.advance(4 * 3_600_000);
    const done = await scenario.exportStatus(exp.id, isFinal);
    expect(done.status).toBe('Failed');
    const runs = await scenario.platform.client.listExportRuns(exp.id);
    expect(runs[0]).toMatchObject({ status: 'TimedOut', retry_number: 0 });
    expect(runs[0].errors).toEqual({
      retry_0: 'Run timeout (not retried): the run exceeded its time limit of 4h; narrow the date range, add filters, or limit exported fields',
    });
    // no retry comes later either, and the other day of the export is not left running
    scenario.clock.advance(30_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await scenario.platform.client.listExportRuns(exp.id))[0]).toMatchObject({ status: 'TimedOut', retry_number: 0 });
    expect(runs[1].status).toMatch(/^(Completed|Cancelled)$/);
    scenario.proxy.setMode('pass');
  });

  test('Run timeout: a run that finishes within its limit completes, whatever time it took', async () => {
    scenario = await startScenario({ days: 1 });
    scenario.proxy.setMode('hold-requests');
    const exp = await scenario.createExport(1);
    await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
    scenario.clock.advance(4 * 3_600_000 - 1);
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run).toMatchObject({ status: 'Completed', retry_number: 0, errors: {} });
  });

  test('Run timeout: the time a run waits for an encode thread does not count against it', async () => {
    scenario = await startScenario({
      days: 2,
      runsPerDay: 400,
      settings: { encodeThreads: 1, encodeWorkerMinRows: 10, segmentMinRows: 1_000_000, runTimeoutMs: 3_600_000, maxRetries: 0 },
    });
    const { proxy, clock } = scenario;
    proxy.setMode('hold-requests', 'day=01');
    const exp = await scenario.createExport(2);
    // the first day holds the only worker; the second waits for it
    await waitFor('a held upload of the first day', () => (proxy.held > 0 ? true : undefined));
    clock.advance(59 * 60_000);
    expect(proxy.seen.some((line) => line.includes('day=02'))).toBe(false);
    proxy.setMode('hold-requests', 'day=02');
    proxy.release();
    await scenario.runsWhere(exp.id, (runs) => runs[0].status === 'Completed');
    await waitFor('a held upload of the second day', () => (proxy.held > 0 ? true : undefined));
    // an hour and a minute after its attempt started, two minutes after it got the worker
    clock.advance(2 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await scenario.platform.client.listExportRuns(exp.id))[1]).toMatchObject({ status: 'Running', errors: {} });
    proxy.setMode('pass');
    proxy.release();
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
    const runs = await scenario.platform.client.listExportRuns(exp.id);
    expect(runs.map((run) => [run.status, run.retry_number, run.errors])).toEqual([
      ['Completed', 0, {}],
      ['Completed', 0, {}],
    ]);
    expect(runs[0].metadata.rows_written + runs[1].metadata.rows_written).toBe(800);
    // while working, the limit applies as before
    proxy.setMode('hold-requests');
    const held = await scenario.createExport(1);
    await waitFor('a held upload', () => (proxy.held > 0 ? true : undefined));
    clock.advance(3_600_000);
    // the file's PUT, once sent, is let finish: here it fails
    proxy.dropHeld();
    expect((await scenario.exportStatus(held.id, isFinal)).status).toBe('Failed');
    expect((await scenario.platform.client.listExportRuns(held.id))[0]).toMatchObject({
      status: 'TimedOut',
      errors: { retry_0: expect.stringContaining('Run timeout (not retried): the run exceeded its time limit of 1h') },
    });
    proxy.setMode('pass');
    proxy.release();
  });

  test('Workflow timeout: the whole export over its limit ends TimedOut and is not retried', async () => {
    scenario = await startScenario({ days: 2, settings: { workflowTimeoutMs: 6 * 3_600_000 } });
    scenario.proxy.setMode('hold-requests', 'day=02');
    const exp = await scenario.createExport(2);
    await scenario.runsWhere(exp.id, (runs) => runs[0].status === 'Completed');
    scenario.clock.advance(6 * 3_600_000);
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('TimedOut');
    const runs = await scenario.platform.client.listExportRuns(exp.id);
    expect(runs.map((run) => run.status)).toEqual(['Completed', 'TimedOut']);
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    scenario.clock.advance(3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await scenario.platform.client.listExportRuns(exp.id))[1]).toMatchObject({ status: 'TimedOut', retry_number: 0, errors: {} });
  });

  test('Terminal processing error (a row that cannot be serialized) is retried up to the maximum, then fails the export', async () => {
    scenario = await startScenario({ days: 1, settings: { maxRetries: 3 } });
    const db = scenario.platform.db;
    db.prepare('UPDATE trace_runs SET total_tokens = 1.5 WHERE id = (SELECT id FROM trace_runs WHERE total_tokens IS NOT NULL LIMIT 1)').run();
    const exp = await scenario.createExport(1);
    for (let retry = 1; retry <= 3; retry++) {
      await scenario.runsWhere(exp.id, (runs) => runs[0].retry_number === retry);
      scenario.clock.advance(30_000);
    }
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Failed');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run).toMatchObject({ status: 'Failed', retry_number: 3 });
    expect(run.errors.retry_3).toMatch(/^Processing error: RangeError/);
  });

  test('Terminal processing error fixed between retries: the run completes', async () => {
    scenario = await startScenario({ days: 1 });
    const db = scenario.platform.db;
    const { id } = db.prepare('SELECT id FROM trace_runs WHERE total_tokens IS NOT NULL LIMIT 1').get() as { id: string };
    db.prepare('UPDATE trace_runs SET total_tokens = 1.5 WHERE id = ?').run(id);
    const exp = await scenario.createExport(1);
    await scenario.runsWhere(exp.id, (runs) => runs[0].retry_number === 1);
    db.prepare('UPDATE trace_runs SET total_tokens = 2 WHERE id = ?').run(id);
    scenario.clock.advance(30_000);
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
  });

  test('A passing store error (HTTP 500) is retried after the fixed 30 s delay, without backoff', async () => {
    scenario = await startScenario({ days: 1 });
    scenario.proxy.setMode('fail');
    const exp = await scenario.createExport(1);
    for (let retry = 1; retry <= 3; retry++) {
      await scenario.runsWhere(exp.id, (runs) => runs[0].retry_number === retry);
      const puts = putsOf(scenario);
      scenario.clock.advance(29_999);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(putsOf(scenario)).toBe(puts);
      if (retry === 3) scenario.proxy.setMode('pass');
      scenario.clock.advance(1);
    }
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run.retry_number).toBe(3);
    expect(Object.values(run.errors).every((error) => error.startsWith('Storage unavailable: InternalError'))).toBe(true);
  });

  test("A store error that writes the destination's session token back is kept, logged and shown without it", async () => {
    const token = 'session-token-marker-0123456789';
    scenario = await startScenario({ days: 1, sessionToken: token });
    scenario.proxy.setMode('fail-echoing-token', 'export_id');
    const exp = await scenario.createExport(1);
    const [run] = await scenario.runsWhere(exp.id, (runs) => runs[0].retry_number === 1);
    expect(run.errors.retry_0).toMatch(/^Storage unavailable: InternalError \(HTTP 500\): Backend rejected session \[REDACTED\]/);
    expect(scenario.platform.logs.join('\n')).toContain('Backend rejected session [REDACTED]');
    const stored = scenario.platform.db.prepare('SELECT errors FROM bulk_export_runs WHERE id = ?').get(run.id) as { errors: string };
    expect([JSON.stringify(run), scenario.platform.logs.join('\n'), stored.errors].filter((text) => text.includes(token))).toEqual([]);
  });

  test('A file the store does not show right after its upload (HEAD 404) is retried, not taken for a missing bucket', async () => {
    scenario = await startScenario({ days: 1 });
    scenario.proxy.setMode('not-found', 'part-00000.parquet', 'HEAD');
    const exp = await scenario.createExport(1);
    const [failed] = await scenario.runsWhere(exp.id, (runs) => runs[0].retry_number === 1);
    expect(failed.status).toBe('Running');
    expect(failed.errors.retry_0).toMatch(/^Processing error: Error: Parquet file .*part-00000\.parquet was not found in the bucket right after it was written$/);
    scenario.proxy.setMode('pass');
    scenario.clock.advance(30_000);
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run.metadata.exported_files).toEqual([expect.stringMatching(/part-00000\.parquet$/)]);
  });

  test('A bucket deleted during the export, after its first files: the next file fails without retry ("Bucket is not valid")', async () => {
    scenario = await startScenario({ days: 2, settings: { maxRetries: 3 } });
    const { proxy, s3 } = scenario;
    proxy.setMode('hold-requests', 'day=02');
    const exp = await scenario.createExport(2);
    await scenario.runsWhere(exp.id, (runs) => runs[0].status === 'Completed');
    await waitFor('a held upload of the second day', () => (proxy.held > 0 ? true : undefined));
    const written = await listKeys(s3.client, BUCKET, '');
    expect(written.length).toBeGreaterThan(0);
    for (const key of written) await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    await s3.client.send(new DeleteBucketCommand({ Bucket: BUCKET }));
    proxy.setMode('pass');
    proxy.release();
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Failed');
    const [first, second] = await scenario.platform.client.listExportRuns(exp.id);
    expect(first.status).toBe('Completed');
    expect(second).toMatchObject({ status: 'Failed', retry_number: 0 });
    expect(Object.values(second.errors)).toEqual([expect.stringContaining('Storage or destination error (not retried): Bucket is not valid')]);
  });

  test('A bucket deleted right after a file went up (its size check finds no file): not retried either ("Bucket is not valid")', async () => {
    scenario = await startScenario({ days: 1, settings: { maxRetries: 3 } });
    const { proxy, s3 } = scenario;
    // the file is in the bucket; the HEAD that checks its size waits until the bucket is gone
    proxy.setMode('hold-requests', 'part-00000.parquet', 'HEAD');
    const exp = await scenario.createExport(1);
    await waitFor('the held size check', () => (proxy.held > 0 ? true : undefined));
    for (const key of await listKeys(s3.client, BUCKET, '')) await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    await s3.client.send(new DeleteBucketCommand({ Bucket: BUCKET }));
    proxy.setMode('pass');
    proxy.release();
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Failed');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run).toMatchObject({ status: 'Failed', retry_number: 0 });
    expect(Object.values(run.errors)).toEqual([
      expect.stringMatching(/^Storage or destination error \(not retried\): Bucket is not valid - NoSuchBucket \(HTTP 404\): The bucket \S+ does not exist: a HEAD of the bucket answered 404, after a HEAD of \S+part-00000\.parquet answered 404/),
    ]);
    // the bucket was asked after the file's HEAD
    expect(proxy.seen.filter((line) => line.startsWith('HEAD')).map((line) => line.includes('part-00000') ? 'file' : 'bucket')).toEqual(['file', 'bucket']);
  });

  test('A deleted destination fails the run without retry; the export fails and its other runs are Cancelled', async () => {
    scenario = await startScenario({ days: 3 });
    const { platform } = scenario;
    // no route deletes a destination, and the database refuses to while exports use it: the row is taken away here
    platform.db.pragma('foreign_keys = OFF');
    const row = platform.stores.exports.create({
      tenantId: platform.tenantId,
      destinationId: randomUUID(),
      sessionId: scenario.sessionId,
      startTime: FIRST_DAY,
      endTime: '2024-01-04T00:00:00Z',
      filter: null,
      exportFields: null,
      intervalHours: null,
      formatVersion: 'v1',
      sourceExportId: null,
      runRanges: runRangesOf({ start: toMicros(FIRST_DAY), end: toMicros('2024-01-04T00:00:00Z') }),
    });
    platform.db.pragma('foreign_keys = ON');
    // any request that makes the engine take a pass (here: another export)
    await scenario.createExport(1);
    expect((await scenario.exportStatus(row.id, isFinal)).status).toBe('Failed');
    const runs = await platform.client.listExportRuns(row.id);
    expect(runs.map((run) => run.status)).toEqual(['Failed', 'Cancelled', 'Cancelled']);
    expect(runs[0].errors).toEqual({ retry_0: DESTINATION_DELETED_MESSAGE });
    expect(runs.slice(1).map((run) => run.errors)).toEqual([{}, {}]);
  });
});

describe('destinations that cannot be used', () => {
  test('A destination whose stored credentials cannot be opened fails its export, and the engine goes on with the others', async () => {
    scenario = await startScenario({ days: 1 });
    const { platform } = scenario;
    const unreadable = await platform.client.createDestination({
      display_name: 'sealed with another key',
      config: { bucket_name: 'exports', prefix: 'x', endpoint_url: scenario.proxy.endpoint },
      credentials: { access_key_id: 'S3RVER', secret_access_key: 'S3RVER' },
    });
    platform.db.prepare('UPDATE bulk_export_destinations SET credentials_ciphertext = ? WHERE id = ?').run('v1:AAAA:AAAA:AAAA', unreadable.id);
    const failing = await scenario.createExport(1, { bulk_export_destination_id: unreadable.id });
    expect((await scenario.exportStatus(failing.id, isFinal)).status).toBe('Failed');
    const [run] = await platform.client.listExportRuns(failing.id);
    expect(run.errors.retry_0).toMatch(/^Destination unreadable: its stored credentials cannot be opened with this data dir's secret key; create the destination again \(/);
    const working = await scenario.createExport(1);
    expect((await scenario.exportStatus(working.id, isFinal)).status).toBe('Completed');
  });
});

describe('limits', () => {
  test('at most 45 runs of one export are in progress; the others wait in a queue', async () => {
    scenario = await startScenario({ days: 50, runsPerDay: 8 });
    scenario.proxy.setMode('hold-requests');
    const exp = await scenario.createExport(50);
    const runs = await scenario.runsWhere(exp.id, (all) => all.filter((run) => run.status === 'Running').length === 45);
    expect(runs.filter((run) => run.status === 'Created')).toHaveLength(5);
    await waitFor('45 held uploads', () => (scenario!.proxy.held === 45 ? true : undefined));
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
    expect((await scenario.platform.client.listExportRuns(exp.id)).every((run) => run.status === 'Completed')).toBe(true);
  });

  test("45 runs finishing a file at once print no warning of a leak (each request listens to the engine's shutdown signal)", async () => {
    await ensureCliBuilt();
    const engine = JSON.stringify(join(REPO_ROOT, 'dist', 'lib', 'local', 'tracing', 'exports', 'engine.js'));
    // what the S3 client does for each request in flight; a signal of its own, for comparison, warns past 10
    const listen = (signal: string): string => `for (let i = 0; i < 45; i++) ${signal}.addEventListener('abort', () => {});`;
    const run = (script: string) => spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    const engineSignal = run(`const signal = require(${engine}).shutdownController().signal; ${listen('signal')}`);
    expect(engineSignal.status).toBe(0);
    expect(engineSignal.stderr).not.toContain('MaxListenersExceededWarning');
    expect(run(`const signal = new AbortController().signal; ${listen('signal')}`).stderr).toContain('MaxListenersExceededWarning');
  });

  test('the 15 exports per workspace limit does not hold back another workspace', async () => {
    scenario = await startScenario({ days: 1 });
    scenario.proxy.setMode('hold-requests');
    for (let i = 0; i < 15; i++) await scenario.createExport(1);
    const { platform } = scenario;
    const otherTenant = platform.auth.createWorkspace(platform.organizationId, 'second');
    const other = platform.clientFor(platform.apiKey, otherTenant);
    const session = await other.createSession({ name: 'other' });
    generateSyntheticRuns(platform.stores.runs, {
      tenantId: otherTenant,
      sessionId: session.id,
      count: 8,
      startMicros: toMicros('2024-01-01T01:00:00Z'),
      endMicros: toMicros('2024-01-01T20:00:00Z'),
    });
    const destination = await (async () => {
      scenario.proxy.setMode('pass');
      const created = await other.createDestination({
        display_name: 'other',
        config: { bucket_name: 'exports', prefix: 'other', endpoint_url: scenario!.proxy.endpoint },
        credentials: scenario!.s3.credentials,
      });
      scenario!.proxy.setMode('hold-requests');
      return created;
    })();
    const exp = await other.createExport({
      bulk_export_destination_id: destination.id,
      session_id: session.id,
      start_time: '2024-01-01T00:00:00Z',
      end_time: '2024-01-02T00:00:00Z',
    });
    expect((await other.getExport(exp.id)).status).toBe('Running');
    expect(await other.listExports()).toHaveLength(1);
    await expect(other.getExport((await platform.client.listExports())[0].id)).rejects.toMatchObject({ status: 404 });
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
  });
});
