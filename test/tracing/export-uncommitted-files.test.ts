/**
 * Nothing is left in the bucket that no run records. An export ended from outside (workflow timeout, a sibling run
 * failing for good) or a run timing out for good stops its attempts, but a file whose last request (the PUT, or the
 * completion of its multipart upload) is under way may already be made by the store: that request is let finish and
 * the file committed. When its answer is lost, or the platform stops or crashes meanwhile, and the run is never to
 * write that name again, the object is deleted (its name was recorded as uncommitted before its first request).
 */
import { toMicros } from '../../lib/local/tracing/store/time';
import { syntheticRunBatches } from '../../lib/local/tracing/synthetic/generate';
import { listKeys } from './support/parquet';
import { startTracingPlatform, type TracingPlatform } from './support/platform';
import { BUCKET, isFinal, startScenario, type Scenario } from './support/scenario';
import { waitFor } from './support/wait';

let scenario: Scenario | undefined;
afterEach(async () => {
  await scenario?.close();
  scenario = undefined;
});

const held = (s: Scenario) => waitFor('a held answer', () => (s.proxy.held > 0 ? true : undefined));

/** Waits until the bucket holds exactly the files the export's runs record, and returns them. */
async function onlyRecordedFiles(s: Scenario, exportId: string, platform: TracingPlatform = s.platform): Promise<string[]> {
  let last = '';
  return waitFor(
    'the bucket to hold only recorded files',
    async () => {
      const recorded = (await platform.client.listExportRuns(exportId)).flatMap((run) => run.metadata.exported_files).sort();
      const inBucket = (await listKeys(s.s3.client, BUCKET, `exports/export_id=${exportId}/`)).sort();
      last = JSON.stringify({ recorded, inBucket });
      return JSON.stringify(recorded) === JSON.stringify(inBucket) ? recorded : undefined;
    },
    10_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${last}`);
  });
}

/** An export of one day whose single PUT the store has answered and the proxy holds, ended by the workflow timeout. */
async function timedOutWhileStoring(s: Scenario): Promise<{ id: string }> {
  s.proxy.setMode('hold-responses', 'x-id=PutObject');
  const exp = await s.createExport(1);
  await held(s);
  s.clock.advance(72 * 3_600_000);
  expect((await s.exportStatus(exp.id, isFinal)).status).toBe('TimedOut');
  return exp;
}

const uncommitted = (platform: TracingPlatform) => platform.db.prepare('SELECT key FROM bulk_export_uncommitted_files').pluck().all();

describe('an attempt stopped while the store makes a file: the file is committed', () => {
  test('by the workflow timeout (a single PUT)', async () => {
    scenario = await startScenario({ days: 1 });
    const exp = await timedOutWhileStoring(scenario);
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    const files = await onlyRecordedFiles(scenario, exp.id);
    expect(files).toHaveLength(1);
    await waitFor('nothing uncommitted', () => (uncommitted(scenario!.platform).length === 0 ? true : undefined));
    expect((await scenario.platform.client.listExportRuns(exp.id))[0]).toMatchObject({ status: 'TimedOut', errors: {} });
  });

  test('by a sibling run failing for good', async () => {
    scenario = await startScenario({ days: 2, settings: { maxRetries: 1 } });
    // a row of the second day that cannot be serialized
    scenario.platform.db
      .prepare(
        `UPDATE trace_runs SET total_tokens = 1.5 WHERE id = (SELECT id FROM trace_runs WHERE total_tokens IS NOT NULL
           AND start_time >= ? ORDER BY start_time LIMIT 1)`,
      )
      .run(toMicros('2024-01-02T00:00:00Z'));
    scenario.proxy.setMode('hold-responses', 'day=01');
    const exp = await scenario.createExport(2);
    await scenario.runsWhere(exp.id, (runs) => runs[1].retry_number === 1);
    await held(scenario);
    scenario.clock.advance(30_000);
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Failed');
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    expect(await onlyRecordedFiles(scenario, exp.id)).toHaveLength(1);
    const runs = await scenario.platform.client.listExportRuns(exp.id);
    expect(runs.map((run) => [run.status, run.metadata.exported_files.length])).toEqual([
      ['Cancelled', 1],
      ['Failed', 0],
    ]);
  });

  test('by the run timeout with no retries left', async () => {
    // two files: the attempt stops after it has committed the first
    scenario = await startScenario({ days: 1, runsPerDay: 150, settings: { maxRetries: 0 } });
    scenario.proxy.setMode('hold-responses', 'x-id=PutObject');
    const exp = await scenario.createExport(1);
    await held(scenario);
    scenario.clock.advance(4 * 3_600_000);
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Failed');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run).toMatchObject({ status: 'TimedOut', errors: { retry_0: expect.stringContaining('Run timeout') } });
    expect(run.metadata.rows_written).toBe(100);
    expect(await onlyRecordedFiles(scenario, exp.id)).toHaveLength(1);
  });

  test('by the workflow timeout (the completion of a multipart upload)', async () => {
    scenario = await startScenario({ days: 1, runsPerDay: 4, settings: { writer: { rowGroupRows: 200, maxRowsPerFile: 100_000 } } });
    for (const batch of syntheticRunBatches({
      tenantId: scenario.platform.tenantId,
      sessionId: scenario.sessionId,
      count: 4_000,
      startMicros: toMicros('2024-01-01T01:00:00Z'),
      endMicros: toMicros('2024-01-01T23:00:00Z'),
      payloadBytes: 8_000,
      seed: 7,
      batchSize: 200,
    })) {
      scenario.platform.stores.runs.insertStored(batch);
      await new Promise((resolve) => setImmediate(resolve));
    }
    scenario.proxy.setMode('hold-responses', 'uploadId=', 'POST');
    const exp = await scenario.createExport(1);
    await held(scenario);
    scenario.clock.advance(72 * 3_600_000);
    expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('TimedOut');
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    expect(await onlyRecordedFiles(scenario, exp.id)).toHaveLength(1);
  });
});

describe('a file made but never committed by a run that ended for good is deleted', () => {
  test('the answer to its PUT is lost after the workflow timeout', async () => {
    scenario = await startScenario({ days: 1 });
    const exp = await timedOutWhileStoring(scenario);
    // the store made the object; the platform never hears so
    scenario.proxy.setMode('pass');
    scenario.proxy.dropHeld();
    expect(await onlyRecordedFiles(scenario, exp.id)).toEqual([]);
    expect(scenario.proxy.seen.some((line) => /^DELETE .*part-00000\.parquet/.test(line))).toBe(true);
    await waitFor('nothing uncommitted', () => (uncommitted(scenario!.platform).length === 0 ? true : undefined));
  });

  test('a delete the store cannot take (HTTP 500) is tried again at the next start', async () => {
    scenario = await startScenario({ days: 1 });
    const { platform } = scenario;
    const exp = await timedOutWhileStoring(scenario);
    scenario.proxy.setMode('fail', 'x-id=DeleteObject');
    scenario.proxy.dropHeld();
    await waitFor('the failed delete to be logged', () => platform.logs.find((line) => line.includes('tried again at the next start')));
    expect(await listKeys(scenario.s3.client, BUCKET, `exports/export_id=${exp.id}/`)).toHaveLength(1);
    // not tried again by this process
    const deletes = () => scenario!.proxy.seen.filter((line) => line.startsWith('DELETE') && line.includes('part-00000')).length;
    expect(deletes()).toBe(1);
    await scenario.createExport(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(deletes()).toBe(1);
    await platform.close();
    scenario.proxy.setMode('pass');
    const restarted = await startTracingPlatform({ dataDir: platform.dataDir, clock: scenario.clock });
    try {
      expect(await onlyRecordedFiles(scenario, exp.id, restarted)).toEqual([]);
      await waitFor('nothing uncommitted', () => (uncommitted(restarted).length === 0 ? true : undefined));
    } finally {
      await restarted.close();
    }
  });

  test('the platform stops while a cancelled export writes its last file: deleted at the next start', async () => {
    scenario = await startScenario({ days: 1 });
    const { platform } = scenario;
    scenario.proxy.setMode('hold-responses', 'x-id=PutObject');
    const exp = await scenario.createExport(1);
    await held(scenario);
    expect((await platform.client.cancelExport(exp.id)).status).toBe('Cancelled');
    // the stop cuts the PUT off: the run is Cancelled and will not write that name again
    await platform.close();
    scenario.proxy.dropHeld();
    scenario.proxy.setMode('pass');
    expect(await listKeys(scenario.s3.client, BUCKET, `exports/export_id=${exp.id}/`)).toHaveLength(1);
    const restarted = await startTracingPlatform({ dataDir: platform.dataDir, clock: scenario.clock, settings: { writer: { rowGroupRows: 50, maxRowsPerFile: 100 } } });
    try {
      expect(await onlyRecordedFiles(scenario, exp.id, restarted)).toEqual([]);
      await waitFor('nothing uncommitted', () => (uncommitted(restarted).length === 0 ? true : undefined));
      expect((await restarted.client.listExportRuns(exp.id))[0]).toMatchObject({ status: 'Cancelled', errors: {} });
    } finally {
      await restarted.close();
    }
  });
});
