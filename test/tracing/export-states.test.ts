/**
 * The state table of exports and export runs, one test per row, driven through the API with a manual clock and an
 * S3 server behind a fault proxy (to hold a run in the middle of a file).
 */
import { ConflictError } from '../../lib/api/errors';
import { INTERRUPTION_MESSAGE } from '../../lib/local/tracing/exports/failures';
import { startTracingPlatform } from './support/platform';
import { isFinal, startScenario, type Scenario } from './support/scenario';
import { listKeys } from './support/parquet';
import { waitFor } from './support/wait';

let scenario: Scenario | undefined;
afterEach(async () => {
  await scenario?.close();
  scenario = undefined;
});

describe('state table', () => {
  test('CREATED → RUNNING at the start of processing (an export waits as Created while its workspace is full)', async () => {
    scenario = await startScenario({ days: 1 });
    scenario.proxy.setMode('hold-requests');
    const exports = [];
    for (let i = 0; i < 16; i++) exports.push(await scenario.createExport(1));
    const statuses = await Promise.all(exports.map((exp) => scenario!.platform.client.getExport(exp.id).then((e) => e.status)));
    expect(statuses.slice(0, 15)).toEqual(new Array(15).fill('Running'));
    expect(statuses[15]).toBe('Created');
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    const last = await scenario.exportStatus(exports[15].id, isFinal);
    expect(last.status).toBe('Completed');
  });

  test('RUNNING → COMPLETED when every run succeeded', async () => {
    scenario = await startScenario({ days: 3 });
    const exp = await scenario.createExport(3);
    const done = await scenario.exportStatus(exp.id, isFinal);
    expect(done).toMatchObject({ status: 'Completed' });
    expect(done.finished_at).not.toBeNull();
    const runs = await scenario.platform.client.listExportRuns(exp.id);
    expect(runs.map((run) => run.status)).toEqual(['Completed', 'Completed', 'Completed']);
    expect(runs.every((run) => run.finished_at !== null && run.metadata.rows_written > 0)).toBe(true);
  });

  test('RUNNING → FAILED when one run fails after all 20 retries, even though the other run completed', async () => {
    scenario = await startScenario({ days: 2 });
    scenario.proxy.setMode('fail', 'day=02');
    const exp = await scenario.createExport(2);
    for (let retry = 0; retry < 20; retry++) {
      await scenario.runsWhere(exp.id, (runs) => runs[1].retry_number === retry + 1);
      scenario.clock.advance(30_000);
    }
    const done = await scenario.exportStatus(exp.id, isFinal);
    expect(done.status).toBe('Failed');
    const [first, second] = await scenario.platform.client.listExportRuns(exp.id);
    expect(first.status).toBe('Completed');
    expect(second).toMatchObject({ status: 'Failed', retry_number: 20 });
    expect(Object.keys(second.errors)).toEqual(Array.from({ length: 21 }, (_, i) => `retry_${i}`));
    expect(second.errors.retry_20).toContain('InternalError');
  });

  test('any non-final state → CANCELLED by PATCH; runs stop at their next checkpoint; no restart', async () => {
    scenario = await startScenario({ days: 2, runsPerDay: 400 });
    const exp = await scenario.createExport(2);
    await scenario.runsWhere(exp.id, (runs) => runs.every((run) => run.metadata.exported_files.length >= 1));
    scenario.proxy.setMode('hold-requests');
    await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
    const cancelled = await scenario.platform.client.cancelExport(exp.id);
    expect(cancelled.status).toBe('Cancelled');
    expect((await scenario.platform.client.listExportRuns(exp.id)).map((run) => run.status)).toEqual(['Cancelled', 'Cancelled']);
    const filesAtCancel = (await scenario.platform.client.listExportRuns(exp.id)).map((run) => run.metadata.exported_files.length);
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    // the part in flight finishes (its checkpoint is kept), and nothing after it is written
    await waitFor('the attempts to stop', () => (scenario!.proxy.held === 0 ? true : undefined));
    // every file in the bucket is committed once the attempts have stopped (however long the last commit takes)
    const runs = await waitFor('the files in the bucket to be those committed', async () => {
      const now = await scenario!.platform.client.listExportRuns(exp.id);
      const keys = await listKeys(scenario!.s3.client, 'exports', `exports/export_id=${exp.id}/`);
      return keys.length === now.reduce((sum, run) => sum + run.metadata.exported_files.length, 0) ? now : undefined;
    });
    runs.forEach((run, i) => expect(run.metadata.exported_files.length).toBeLessThanOrEqual(filesAtCancel[i] + 1));
    // and nothing is written after the files that were in flight
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await listKeys(scenario.s3.client, 'exports', `exports/export_id=${exp.id}/`)).length).toBe(
      runs.reduce((sum, run) => sum + run.metadata.exported_files.length, 0),
    );
    expect(runs.reduce((sum, run) => sum + run.metadata.rows_written, 0)).toBeLessThan(800);
    expect((await scenario.platform.client.getExport(exp.id)).status).toBe('Cancelled');
    await expect(scenario.platform.client.cancelExport(exp.id)).rejects.toBeInstanceOf(ConflictError);
  });

  test('a queued (Created) export can be cancelled too and never runs', async () => {
    scenario = await startScenario({ days: 1, settings: { maxConcurrentExportsPerWorkspace: 1 } });
    scenario.proxy.setMode('hold-requests');
    const running = await scenario.createExport(1);
    const queued = await scenario.createExport(1);
    expect((await scenario.platform.client.getExport(queued.id)).status).toBe('Created');
    expect((await scenario.platform.client.cancelExport(queued.id)).status).toBe('Cancelled');
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    expect((await scenario.exportStatus(running.id, isFinal)).status).toBe('Completed');
    const [run] = await scenario.platform.client.listExportRuns(queued.id);
    expect(run).toMatchObject({ status: 'Cancelled', metadata: { exported_files: [] } });
  });

  describe('a slot freed by an export that ends goes to the next export in the queue at once', () => {
    /** With one slot: `first` runs, `queued` waits; `end` makes `first` end; then `queued` must start. */
    async function queueAfter(end: (first: string) => Promise<void>, settings = {}): Promise<string> {
      scenario = await startScenario({ days: 1, settings: { maxConcurrentExportsPerWorkspace: 1, ...settings } });
      const { client } = scenario.platform;
      const other = await client.createDestination({
        display_name: 'the queued export',
        config: { bucket_name: 'exports', prefix: 'queued', endpoint_url: scenario.proxy.endpoint },
        credentials: scenario.s3.credentials,
      });
      scenario.proxy.setMode('hold-requests');
      const first = await scenario.createExport(1);
      const queued = await scenario.createExport(1, { bulk_export_destination_id: other.id });
      expect((await client.getExport(queued.id)).status).toBe('Created');
      // from here on only the queued export's requests wait, so that it is seen Running
      scenario.proxy.setMode('hold-requests', `export_id=${queued.id}`);
      await end(first.id);
      const outcome = (await scenario.exportStatus(first.id, isFinal)).status;
      expect((await scenario.exportStatus(queued.id, (status) => status !== 'Created')).status).toBe('Running');
      scenario.proxy.setMode('pass');
      scenario.proxy.release();
      expect((await scenario.exportStatus(queued.id, isFinal)).status).toBe('Completed');
      return outcome;
    }

    test('Completed', async () => {
      expect(await queueAfter(async () => scenario!.proxy.release())).toBe('Completed');
    });

    test('TimedOut (while its run waits for a retry)', async () => {
      const outcome = await queueAfter(
        async (first) => {
          await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
          scenario!.proxy.dropHeld();
          await scenario!.runsWhere(first, (runs) => runs[0].retry_number === 1);
          scenario!.clock.advance(20_000);
        },
        { workflowTimeoutMs: 20_000 },
      );
      expect(outcome).toBe('TimedOut');
    });

    test('Failed as its retry starts (its destination became unreadable meanwhile)', async () => {
      const outcome = await queueAfter(async (first) => {
        const { platform } = scenario!;
        await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
        scenario!.proxy.dropHeld();
        await scenario!.runsWhere(first, (runs) => runs[0].retry_number === 1);
        platform.db
          .prepare('UPDATE bulk_export_destinations SET credentials_ciphertext = ? WHERE id = ?')
          .run('v1:AAAA:AAAA:AAAA', scenario!.destinationId);
        scenario!.clock.advance(30_000);
      });
      expect(outcome).toBe('Failed');
    });
  });

  test('RUNNING → TIMEDOUT when the export exceeds the 72 h workflow timeout; no automatic retry', async () => {
    scenario = await startScenario({ days: 1 });
    scenario.proxy.setMode('hold-requests');
    const exp = await scenario.createExport(1);
    await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
    scenario.clock.advance(72 * 3_600_000);
    const done = await scenario.exportStatus(exp.id, isFinal);
    expect(done.status).toBe('TimedOut');
    const [run] = await scenario.platform.client.listExportRuns(exp.id);
    expect(run.status).toBe('TimedOut');
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    scenario.clock.advance(3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await scenario.platform.client.listExportRuns(exp.id);
    expect(after[0].status).toBe('TimedOut');
    expect((await scenario.platform.client.getExport(exp.id)).status).toBe('TimedOut');
  });

  test('RUNNING → RUNNING on an infrastructure interruption: the run is requeued and resumes from its checkpoint', async () => {
    scenario = await startScenario({ days: 1, runsPerDay: 400 });
    const { platform } = scenario;
    const exp = await scenario.createExport(1);
    await scenario.runsWhere(exp.id, (runs) => runs[0].metadata.exported_files.length >= 1);
    scenario.proxy.setMode('hold-requests');
    await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
    const before = (await platform.client.listExportRuns(exp.id))[0];
    await platform.close();
    scenario.proxy.dropHeld();
    scenario.proxy.setMode('pass');
    const seenBeforeRestart = scenario.proxy.seen.length;
    const restarted = await startTracingPlatform({ dataDir: platform.dataDir, clock: scenario.clock, settings: { writer: { rowGroupRows: 50, maxRowsPerFile: 100 } } });
    try {
      const [requeued] = await restarted.client.listExportRuns(exp.id);
      expect(requeued).toMatchObject({ status: 'Running', retry_number: 1, errors: { retry_0: INTERRUPTION_MESSAGE } });
      const done = await waitFor('completion after restart', async () => {
        const current = await restarted.client.getExport(exp.id);
        return isFinal(current.status) ? current : undefined;
      });
      expect(done.status).toBe('Completed');
      const [run] = await restarted.client.listExportRuns(exp.id);
      expect(run.metadata.exported_files.slice(0, before.metadata.exported_files.length)).toEqual(before.metadata.exported_files);
      expect(run.metadata.rows_written).toBe(400);
      // the files committed before the restart are not written again: only the ones after them are
      const putAfterRestart = (key: string): boolean =>
        scenario!.proxy.seen.slice(seenBeforeRestart).some((line) => line.startsWith('PUT') && line.includes(key.split('/').pop()!));
      expect(before.metadata.exported_files.filter(putAfterRestart)).toEqual([]);
      expect(run.metadata.exported_files.slice(before.metadata.exported_files.length).every(putAfterRestart)).toBe(true);
    } finally {
      await restarted.close();
    }
  });

  test('an interruption with no retries left fails the export', async () => {
    scenario = await startScenario({ days: 1, settings: { maxRetries: 0 } });
    const { platform } = scenario;
    scenario.proxy.setMode('hold-requests');
    const exp = await scenario.createExport(1);
    await waitFor('a held upload', () => (scenario!.proxy.held > 0 ? true : undefined));
    await platform.close();
    scenario.proxy.dropHeld();
    const restarted = await startTracingPlatform({ dataDir: platform.dataDir, clock: scenario.clock, settings: { maxRetries: 0 } });
    try {
      expect((await restarted.client.getExport(exp.id)).status).toBe('Failed');
      const [run] = await restarted.client.listExportRuns(exp.id);
      expect(run).toMatchObject({ status: 'Failed', retry_number: 0, errors: { retry_0: INTERRUPTION_MESSAGE } });
    } finally {
      await restarted.close();
    }
  });

  test('interrupted runs with no retries left: the first fails the export, the others stay Cancelled', async () => {
    scenario = await startScenario({ days: 2, settings: { maxRetries: 0 } });
    const { platform } = scenario;
    scenario.proxy.setMode('hold-requests');
    const exp = await scenario.createExport(2);
    await waitFor('both runs to hold an upload', () => (scenario!.proxy.held === 2 ? true : undefined));
    await platform.close();
    scenario.proxy.dropHeld();
    const restarted = await startTracingPlatform({ dataDir: platform.dataDir, clock: scenario.clock, settings: { maxRetries: 0 } });
    try {
      expect((await restarted.client.getExport(exp.id)).status).toBe('Failed');
      const runs = await restarted.client.listExportRuns(exp.id);
      expect(runs.map((run) => [run.status, run.errors])).toEqual([
        ['Failed', { retry_0: INTERRUPTION_MESSAGE }],
        ['Cancelled', {}],
      ]);
    } finally {
      await restarted.close();
    }
  });

  test('a restart after the workflow timeout has passed ends the export TimedOut, not as an interruption', async () => {
    scenario = await startScenario({ days: 2, settings: { maxRetries: 0 } });
    const { platform } = scenario;
    scenario.proxy.setMode('hold-requests');
    const exp = await scenario.createExport(2);
    await waitFor('both runs to hold an upload', () => (scenario!.proxy.held === 2 ? true : undefined));
    await platform.close();
    scenario.proxy.dropHeld();
    // the platform was down for longer than the export's 72 h
    scenario.clock.advance(73 * 3_600_000);
    const restarted = await startTracingPlatform({ dataDir: platform.dataDir, clock: scenario.clock, settings: { maxRetries: 0 } });
    try {
      expect((await restarted.client.getExport(exp.id)).status).toBe('TimedOut');
      const runs = await restarted.client.listExportRuns(exp.id);
      expect(runs.map((run) => [run.status, run.retry_number, run.errors])).toEqual([
        ['TimedOut', 0, {}],
        ['TimedOut', 0, {}],
      ]);
    } finally {
      await restarted.close();
    }
  });
});
