/**
 * Failure table, infrastructure interruption, the hard way: the platform process is SIGKILLed in the middle of an
 * export, right after the store accepted a part file whose checkpoint was never committed (an orphan). Restarted on
 * the same data dir, the run is requeued, resumes from its last checkpoint and rewrites the orphan's name: in the end
 * every source row is in the bucket exactly once. A run that never resumes (its export was cancelled) cannot rewrite
 * it: the restart deletes it instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { BulkExportClient } from '../../lib/api/bulk-export';
import { localBulkExport, type LocalBulkExportClient } from '../support/complete-answers';
import { DATABASE_FILE } from '../../lib/local/db';
import { INTERRUPTION_MESSAGE } from '../../lib/local/tracing/exports/failures';
import { generateRunsCommand } from '../../lib/local/tracing/generate-cli';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy';
import { getObjectBytes, listKeys, readParquetRows } from './support/parquet';
import { startTestS3, type TestS3 } from './support/s3';
import { waitFor, waitForFinalExport } from './support/wait';

const SUPPORT = resolve(__dirname, 'support');
const WRITER = { rowGroupRows: 100, maxRowsPerFile: 200 };

interface PlatformProcess {
  readonly child: ChildProcess;
  readonly client: LocalBulkExportClient;
}

function startPlatformProcess(dataDir: string, settings: object): Promise<PlatformProcess> {
  const child = spawn(process.execPath, ['-r', join(SUPPORT, 'ts-register.js'), join(SUPPORT, 'platform-process.ts')], {
    env: { ...process.env, TRACING_DATA_DIR: dataDir, TRACING_SETTINGS: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolveStart, rejectStart) => {
    let output = '';
    child.once('exit', (code) => rejectStart(new Error(`platform process exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = /READY (.*)\n/.exec(output);
      if (!line) return;
      const { url, apiKey, tenantId } = JSON.parse(line[1]) as { url: string; apiKey: string; tenantId: string };
      resolveStart({ child, client: localBulkExport(new BulkExportClient({ baseUrl: url, auth: { kind: 'api-key', apiKey, tenantId }, retry: { maxRetries: 0 } })) });
    });
  });
}

function sigkill(platform: PlatformProcess): Promise<void> {
  return new Promise((resolveExit) => {
    platform.child.removeAllListeners('exit');
    platform.child.once('exit', () => resolveExit());
    platform.child.kill('SIGKILL');
  });
}

let s3: TestS3;
let proxy: FaultProxy;
const running: PlatformProcess[] = [];

beforeAll(async () => {
  s3 = await startTestS3(['exports']);
  proxy = await startFaultProxy(s3.server.endpoint);
});

afterAll(async () => {
  for (const platform of running) {
    platform.child.kill('SIGKILL');
    await platform.client.close();
  }
  await proxy?.close();
  await s3?.close();
});

test.each([
  ['encoded in the main thread', { encodeThreads: 0, writer: WRITER }],
  ['encoded in worker threads', { encodeThreads: 2, encodeWorkerMinRows: 0, writer: WRITER }],
  ['each day cut into two segments, encoded and uploaded side by side', { encodeThreads: 2, encodeWorkerMinRows: 0, segmentMinRows: 300, writer: WRITER }],
])('SIGKILL mid-run, restart: the run resumes from its checkpoint and every row is exported exactly once (%s)', async (_label, settings) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kill-and-resume-'));
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  const generated = ['--data-dir', dataDir, '--project', 'resume', '--count', '3000', '--payload-bytes', '200'];
  expect(generateRunsCommand([...generated, '--start', '2024-02-01T00:00:00Z', '--end', '2024-02-02T23:00:00Z'], {}, quiet, quiet)).toBe(0);

  const first = await startPlatformProcess(dataDir, settings);
  running.push(first);
  const session = (await first.client.findSessionByName('resume'))!;
  const destination = await first.client.createDestination({
    display_name: 'exports',
    config: { bucket_name: 'exports', prefix: 'resume', endpoint_url: proxy.endpoint },
    credentials: s3.credentials,
  });
  // the third part of a run (or of a segment) reaches the bucket, but the platform never hears back, so it never
  // commits its checkpoint; set before the export starts, so that however fast it goes, it stops there
  proxy.setMode('hold-responses', '00002.parquet?x-id=PutObject');
  const exp = await first.client.createExport({
    bulk_export_destination_id: destination.id,
    session_id: session.id,
    start_time: '2024-02-01T00:00:00Z',
    end_time: '2024-02-03T00:00:00Z',
  });
  await waitFor('a part written but not acknowledged', () => (proxy.held > 0 ? true : undefined));
  // the two parts before it were committed
  expect((await first.client.listExportRuns(exp.id)).some((run) => run.metadata.exported_files.length >= 2)).toBe(true);
  await sigkill(first);
  proxy.dropHeld();
  proxy.setMode('pass');

  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  // each run had its decision stored before its first file: its cut into two segments, or none (in one piece)
  const cuts = (db.prepare('SELECT segments FROM bulk_export_runs').pluck().all() as (string | null)[]).map((stored) =>
    stored === null ? null : (JSON.parse(stored) as unknown[]).length,
  );
  expect(cuts).toEqual(cuts.map(() => ('segmentMinRows' in settings ? 2 : 0)));
  const checkpointed = (db.prepare('SELECT metadata FROM bulk_export_runs').all() as { metadata: string }[]).flatMap(
    (row) => (JSON.parse(row.metadata) as { exported_files: string[] }).exported_files,
  );
  const sourceIds = (db.prepare('SELECT id FROM trace_runs WHERE session_id = ? AND start_time < ?').all(session.id, Date.parse('2024-02-03T00:00:00Z') * 1000) as { id: string }[]).map((row) => row.id);
  db.close();
  const prefix = `resume/export_id=${exp.id}/`;
  const keysAtKill = await listKeys(s3.client, 'exports', prefix);
  expect(keysAtKill.length).toBeGreaterThan(checkpointed.length);

  const second = await startPlatformProcess(dataDir, settings);
  running.push(second);
  const done = await waitForFinalExport(second.client, exp.id);
  expect(done.status).toBe('Completed');
  const runs = await second.client.listExportRuns(exp.id);
  expect(runs.some((run) => run.errors.retry_0 === INTERRUPTION_MESSAGE && run.retry_number === 1)).toBe(true);

  const keys = await listKeys(s3.client, 'exports', prefix);
  expect(keys).toEqual(runs.flatMap((run) => run.metadata.exported_files).sort());
  const exportedIds: string[] = [];
  for (const key of keys) exportedIds.push(...(await readParquetRows(await getObjectBytes(s3.client, 'exports', key))).map((row) => row.id as string));
  expect(exportedIds.length).toBe(sourceIds.length);
  expect(new Set(exportedIds).size).toBe(exportedIds.length);
  expect([...exportedIds].sort()).toEqual([...sourceIds].sort());
}, 120_000);

test('SIGKILL while a cancelled export writes its last file: the run never resumes, so at restart the object is deleted', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kill-cancelled-'));
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  const generated = ['--data-dir', dataDir, '--project', 'cancelled', '--count', '150', '--payload-bytes', '200'];
  expect(generateRunsCommand([...generated, '--start', '2024-03-01T00:00:00Z', '--end', '2024-03-01T23:00:00Z'], {}, quiet, quiet)).toBe(0);
  const settings = { encodeThreads: 0, writer: WRITER };
  const first = await startPlatformProcess(dataDir, settings);
  running.push(first);
  const session = (await first.client.findSessionByName('cancelled'))!;
  const destination = await first.client.createDestination({
    display_name: 'exports',
    config: { bucket_name: 'exports', prefix: 'cancelled', endpoint_url: proxy.endpoint },
    credentials: s3.credentials,
  });
  // the store makes the first file; the platform never hears so
  proxy.setMode('hold-responses', '.parquet?x-id=PutObject');
  const exp = await first.client.createExport({
    bulk_export_destination_id: destination.id,
    session_id: session.id,
    start_time: '2024-03-01T00:00:00Z',
    end_time: '2024-03-02T00:00:00Z',
  });
  await waitFor('a part written but not acknowledged', () => (proxy.held > 0 ? true : undefined));
  expect((await first.client.cancelExport(exp.id)).status).toBe('Cancelled');
  await sigkill(first);
  proxy.dropHeld();
  proxy.setMode('pass');
  const prefix = `cancelled/export_id=${exp.id}/`;
  expect(await listKeys(s3.client, 'exports', prefix)).toHaveLength(1);

  const second = await startPlatformProcess(dataDir, settings);
  running.push(second);
  await waitFor('the unrecorded object to be deleted', async () => ((await listKeys(s3.client, 'exports', prefix)).length === 0 ? true : undefined));
  const [run] = await second.client.listExportRuns(exp.id);
  expect(run).toMatchObject({ status: 'Cancelled', errors: {}, metadata: { exported_files: [] } });
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    await waitFor('nothing uncommitted', () => (db.prepare('SELECT count(*) FROM bulk_export_uncommitted_files').pluck().get() === 0 ? true : undefined));
  } finally {
    db.close();
  }
}, 120_000);
