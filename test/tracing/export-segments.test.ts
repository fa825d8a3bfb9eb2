/**
 * Segments: a large run's day is cut into one segment per encode thread, each encoded by its own worker and written
 * as its own part files. With real workers, SQLite and an S3 server: every row is in the bucket exactly once, in
 * cursor order across the files in their listed order, and the cut is stored with each segment's progress. (The
 * crash-and-resume case of a cut run is in kill-and-resume.test.ts.)
 */
import type { BulkExportRecord as BulkExport, BulkExportRunRecord as BulkExportRun } from '../../lib/api/schemas/bulk-export';
import { ManualClock } from '../../lib/local/clock';
import { AttemptTimeLimit } from '../../lib/local/tracing/exports/attempt-time-limit';
import { cutSegments, runMetadata, segmentEnds, type RunSegment } from '../../lib/local/tracing/exports/segments';
import { toMicros } from '../../lib/local/tracing/store/time';
import { generateSyntheticRuns } from '../../lib/local/tracing/synthetic/generate';
import { startFaultProxy } from './support/fault-proxy';
import { getObjectBytes, listKeys, readParquetRows } from './support/parquet';
import { startTracingPlatform, type TracingPlatform } from './support/platform';
import { startTestS3, type TestS3 } from './support/s3';
import { waitFor, waitForFinalExport } from './support/wait';

const BUCKET = 'exports';
const SEGMENT_MIN_ROWS = 300;

let s3: TestS3;
let platform: TracingPlatform;
let sessionId: string;
let destinationId: string;

/** The ids of the project's runs in [from, to), in cursor order. */
function sourceIds(from: string, to: string, where = 'TRUE'): string[] {
  const db = platform.db;
  return db
    .prepare(`SELECT id FROM trace_runs WHERE session_id = ? AND start_time >= ? AND start_time < ? AND ${where} ORDER BY start_time, id`)
    .pluck()
    .all(sessionId, toMicros(from), toMicros(to)) as string[];
}

async function exportRange(start: string, end: string, filter?: string): Promise<{ exp: BulkExport; runs: BulkExportRun[] }> {
  const created = await platform.client.createExport({
    bulk_export_destination_id: destinationId,
    session_id: sessionId,
    start_time: start,
    end_time: end,
    ...(filter ? { filter } : {}),
  });
  const exp = await waitForFinalExport(platform.client, created.id);
  return { exp, runs: await platform.client.listExportRuns(exp.id) };
}

const storedSegments = (runId: string): RunSegment[] | null => {
  const stored = platform.stores.exports.runRow(runId)!.segments;
  return stored === null ? null : (JSON.parse(stored) as RunSegment[]);
};

async function idsInFiles(keys: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const key of keys) ids.push(...(await readParquetRows(await getObjectBytes(s3.client, BUCKET, key))).map((row) => row.id as string));
  return ids;
}

beforeAll(async () => {
  s3 = await startTestS3([BUCKET]);
  platform = await startTracingPlatform({
    settings: {
      encodeThreads: 2,
      encodeWorkerMinRows: 0,
      segmentMinRows: SEGMENT_MIN_ROWS,
      writer: { rowGroupRows: 100, maxRowsPerFile: 250 },
    },
  });
  sessionId = (await platform.client.createSession({ name: 'segments' })).id;
  const generate = (count: number, start: string, end: string) =>
    generateSyntheticRuns(platform.stores.runs, { tenantId: platform.tenantId, sessionId, count, startMicros: toMicros(start), endMicros: toMicros(end), payloadBytes: 100 });
  // two large days, and a small one that stays in one piece
  generate(1_500, '2024-06-01T00:00:00Z', '2024-06-02T23:59:00Z');
  generate(2 * SEGMENT_MIN_ROWS - 50, '2024-06-03T00:00:00Z', '2024-06-03T23:59:00Z');
  destinationId = (
    await platform.client.createDestination({
      display_name: 'segments',
      config: { bucket_name: BUCKET, prefix: 'seg', endpoint_url: s3.server.endpoint },
      credentials: s3.credentials,
    })
  ).id;
}, 60_000);

afterAll(async () => {
  await platform?.close();
  await s3?.close();
});

test('a large day is cut into one segment per encode thread; every row is exported once, in cursor order', async () => {
  const { exp, runs } = await exportRange('2024-06-01T00:00:00Z', '2024-06-04T00:00:00Z');
  expect(exp.status).toBe('Completed');
  expect(runs).toHaveLength(3);
  const [first, second, small] = runs;
  for (const run of [first, second]) {
    const segments = storedSegments(run.id)!;
    expect(segments).toHaveLength(2);
    expect(segments.every((segment) => segment.done)).toBe(true);
    // the cut is in the middle of the day's rows, and the second segment starts where the first ends
    const rows = sourceIds(run.start_time, run.end_time);
    expect(Math.abs(segments[0].rows - segments[1].rows)).toBeLessThanOrEqual(1);
    expect(segments[0].until!.endsWith(`:${rows[segments[0].rows - 1]}`)).toBe(true);
    expect(segments[1].after).toBe(segments[0].until);
    // each segment's files are named by segment, then file; the run lists them in cursor order
    const day = run.start_time.slice(8, 10);
    expect(run.metadata.exported_files.every((key) => new RegExp(`/day=${day}/part-0000[01]-\\d{5}\\.parquet$`).test(key))).toBe(true);
    expect(run.metadata.exported_files).toEqual([...segments[0].files, ...segments[1].files]);
    expect(run.metadata.exported_files).toEqual([...run.metadata.exported_files].sort());
    expect(run.metadata.rows_written).toBe(rows.length);
    expect(run.metadata.latest_cursor!.endsWith(`:${rows[rows.length - 1]}`)).toBe(true);
    expect(await idsInFiles(run.metadata.exported_files)).toEqual(rows);
  }
  // a day with fewer than two segments' worth of rows stays in one piece, with the plain names, and that is stored
  expect(storedSegments(small.id)).toEqual([]);
  expect(small.metadata.exported_files.every((key) => /\/part-\d{5}\.parquet$/.test(key))).toBe(true);
  expect(await idsInFiles(small.metadata.exported_files)).toEqual(sourceIds(small.start_time, small.end_time));
  // nothing else is in the bucket
  const listed = await listKeys(s3.client, BUCKET, `seg/export_id=${exp.id}/`);
  expect(listed).toEqual(runs.flatMap((run) => run.metadata.exported_files).sort());
}, 60_000);

test('segments are cut by rows read, so a filter keeps every matching row exactly once', async () => {
  const { exp, runs } = await exportRange('2024-06-01T00:00:00Z', '2024-06-02T00:00:00Z', 'eq(run_type, "llm")');
  expect(exp.status).toBe('Completed');
  expect(storedSegments(runs[0].id)).toHaveLength(2);
  const expected = sourceIds(runs[0].start_time, runs[0].end_time, "run_type = 'llm'");
  expect(expected.length).toBeGreaterThan(50);
  expect(await idsInFiles(runs[0].metadata.exported_files)).toEqual(expected);
}, 60_000);

test('a cut among runs of the same start time splits them by id, without losing or repeating one', async () => {
  const startTime = '2024-06-05T12:00:00.000001Z';
  const count = 2 * SEGMENT_MIN_ROWS + 100;
  await platform.client.ingestRuns({
    post: Array.from({ length: count }, (_, i) => ({ name: `same-time-${i}`, run_type: 'tool', start_time: startTime, session_id: sessionId, inputs: { i } })),
  });
  const { exp, runs } = await exportRange('2024-06-05T00:00:00Z', '2024-06-06T00:00:00Z');
  expect(exp.status).toBe('Completed');
  const segments = storedSegments(runs[0].id)!;
  expect(segments).toHaveLength(2);
  expect(segments[0].until!.startsWith(`${toMicros(startTime)}:`)).toBe(true);
  expect(segments.map((segment) => segment.rows)).toEqual([count / 2, count / 2]);
  const ids = await idsInFiles(runs[0].metadata.exported_files);
  expect(ids).toHaveLength(count);
  expect(ids).toEqual(sourceIds(runs[0].start_time, runs[0].end_time));
}, 60_000);

/**
 * A platform of its own whose destination (at `prefix`) writes through a fault proxy, with one S3 attempt per request
 * and retries after `retryDelayMs`, and a project of its own.
 */
async function throughProxy(name: string, prefix: string, retryDelayMs: number) {
  const proxy = await startFaultProxy(s3.server.endpoint);
  const retrying = await startTracingPlatform({
    settings: {
      encodeThreads: 2,
      encodeWorkerMinRows: 0,
      segmentMinRows: SEGMENT_MIN_ROWS,
      retryDelayMs,
      writer: { rowGroupRows: 100, maxRowsPerFile: 250, s3: { maxAttempts: 1 } },
    },
  });
  const session = await retrying.client.createSession({ name });
  const destination = await retrying.client.createDestination({
    display_name: 'through a proxy',
    config: { bucket_name: BUCKET, prefix, endpoint_url: proxy.endpoint },
    credentials: s3.credentials,
  });
  /** `count` more runs on 2024-06-01 in the project. */
  const generate = (count: number) =>
    generateSyntheticRuns(retrying.stores.runs, {
      tenantId: retrying.tenantId,
      sessionId: session.id,
      count,
      startMicros: toMicros('2024-06-01T00:00:00Z'),
      endMicros: toMicros('2024-06-01T23:59:00Z'),
      payloadBytes: 100,
    });
  /** An export of 2024-06-01 to the destination. */
  const exportDay = () =>
    retrying.client.createExport({
      bulk_export_destination_id: destination.id,
      session_id: session.id,
      start_time: '2024-06-01T00:00:00Z',
      end_time: '2024-06-02T00:00:00Z',
    });
  /** The export's runs once its first attempt has failed. */
  const firstFailure = (exportId: string) =>
    waitFor('the first attempt to fail', async () => {
      const runs = await retrying.client.listExportRuns(exportId);
      return runs[0].errors.retry_0 ? runs : undefined;
    });
  const close = async () => {
    await retrying.close();
    await proxy.close();
  };
  return { proxy, retrying, session, generate, exportDay, firstFailure, close };
}

test('a segment that fails fails the attempt; the retry resumes each segment from its own checkpoint', async () => {
  const { proxy, retrying, session, generate, exportDay, firstFailure, close } = await throughProxy('retrying', 'retry', 500);
  try {
    generate(800);
    // the second file of the second segment fails; the first segment and the first file of the second go through
    proxy.setMode('fail', 'part-00001-00001.parquet');
    const created = await exportDay();
    const [failed] = await firstFailure(created.id);
    expect(failed).toMatchObject({ status: 'Running', retry_number: 1 });
    const cut = JSON.parse(retrying.stores.exports.runRow(failed.id)!.segments!) as RunSegment[];
    expect(cut[1].files).toEqual([expect.stringMatching(/part-00001-00000\.parquet$/)]);
    proxy.setMode('pass');
    const exp = await waitForFinalExport(retrying.client, created.id);
    expect(exp.status).toBe('Completed');
    const [run] = await retrying.client.listExportRuns(exp.id);
    const after = JSON.parse(retrying.stores.exports.runRow(run.id)!.segments!) as RunSegment[];
    // the retry kept the cut and each segment's committed files, and added the rest after them
    expect(after.map((segment) => [segment.after, segment.until])).toEqual(cut.map((segment) => [segment.after, segment.until]));
    expect(after[1].files.slice(0, 1)).toEqual(cut[1].files);
    expect(run.metadata.exported_files).toEqual(await listKeys(s3.client, BUCKET, `retry/export_id=${exp.id}/`));
    const db = retrying.db;
    const expected = db.prepare('SELECT id FROM trace_runs WHERE session_id = ? ORDER BY start_time, id').pluck().all(session.id);
    expect(await idsInFiles(run.metadata.exported_files)).toEqual(expected);
  } finally {
    await close();
  }
}, 60_000);

test('a day kept in one piece stays so on its retry, even when it has grown past the cut since', async () => {
  const { proxy, retrying, session, generate, exportDay, firstFailure, close } = await throughProxy('growing', 'growing', 1_000);
  try {
    generate(SEGMENT_MIN_ROWS);
    // the first file reaches the bucket, but the platform never hears so: the attempt fails before its checkpoint
    proxy.setMode('hold-responses', 'part-00000.parquet');
    const created = await exportDay();
    await waitFor('the first file to be written', () => (proxy.held > 0 ? true : undefined));
    proxy.setMode('pass');
    proxy.dropHeld();
    const [failed] = await firstFailure(created.id);
    expect(failed.metadata.exported_files).toEqual([]);
    expect(JSON.parse(retrying.stores.exports.runRow(failed.id)!.segments!)).toEqual([]);
    const orphan = await listKeys(s3.client, BUCKET, `growing/export_id=${created.id}/`);
    expect(orphan).toEqual([expect.stringMatching(/\/part-00000\.parquet$/)]);
    // before the retry, the day grows to more than two segments' worth
    generate(2 * SEGMENT_MIN_ROWS);
    const exp = await waitForFinalExport(retrying.client, created.id);
    expect(exp.status).toBe('Completed');
    const [run] = await retrying.client.listExportRuns(exp.id);
    // the retry kept the day in one piece: it wrote the orphan's name again, and nothing else is in the bucket
    expect(run.metadata.exported_files[0]).toBe(orphan[0]);
    expect(run.metadata.exported_files.every((key) => /\/part-\d{5}\.parquet$/.test(key))).toBe(true);
    expect(await listKeys(s3.client, BUCKET, `growing/export_id=${exp.id}/`)).toEqual(run.metadata.exported_files);
    const expected = retrying.db.prepare('SELECT id FROM trace_runs WHERE session_id = ? ORDER BY start_time, id').pluck().all(session.id);
    expect(expected).toHaveLength(3 * SEGMENT_MIN_ROWS);
    expect(await idsInFiles(run.metadata.exported_files)).toEqual(expected);
  } finally {
    await close();
  }
}, 60_000);

test('where a run is cut: one segment per thread while each holds the minimum', () => {
  expect(segmentEnds(1_000, 2, 300)).toEqual([499]);
  expect(segmentEnds(1_000, 4, 300)).toEqual([332, 666]);
  expect(segmentEnds(599, 2, 300)).toEqual([]);
  expect(segmentEnds(10_000, 1, 300)).toEqual([]);
  expect(segmentEnds(9, 4, 1)).toEqual([1, 4, 6]);
});

test("a run's progress is the progress of its first segment not done", () => {
  const segments = cutSegments([
    { startTime: 10, id: 'a' },
    { startTime: 20, id: 'b' },
  ]);
  expect(segments.map((segment) => [segment.after, segment.until])).toEqual([
    [null, '10:a'],
    ['10:a', '20:b'],
    ['20:b', null],
  ]);
  expect(runMetadata(segments)).toEqual({ latest_cursor: null, rows_written: 0, exported_files: [] });
  Object.assign(segments[1], { cursor: '15:x', rows: 5, files: ['s1-f0'] });
  Object.assign(segments[2], { cursor: '30:z', rows: 7, files: ['s2-f0'], done: true });
  // the first segment has exported nothing: nothing is exported up to a point yet
  expect(runMetadata(segments)).toEqual({ latest_cursor: null, rows_written: 12, exported_files: ['s1-f0', 's2-f0'] });
  Object.assign(segments[0], { cursor: '10:a', rows: 4, files: ['s0-f0'], done: true });
  expect(runMetadata(segments).latest_cursor).toBe('15:x');
  Object.assign(segments[1], { cursor: '20:b', done: true });
  expect(runMetadata(segments)).toEqual({ latest_cursor: '30:z', rows_written: 16, exported_files: ['s0-f0', 's1-f0', 's2-f0'] });
});

test("a run's time limit runs while any of its segments has its encoder, and is paused while all wait for one", () => {
  const clock = new ManualClock(0);
  let expiredAt: number | undefined;
  const limit = new AttemptTimeLimit(clock, 100, () => (expiredAt = clock.now()));
  clock.advance(1_000); // waiting for a worker
  limit.resume(); // segment 0 at t=1000
  clock.advance(30);
  limit.resume(); // segment 1 at t=1030
  clock.advance(30);
  limit.pause(); // segment 0 done at t=1060: segment 1 works on
  clock.advance(20);
  limit.pause(); // segment 1 done at t=1080: 80 of the 100 used
  clock.advance(1_000);
  limit.resume(); // segment 2 got a worker at t=2080
  clock.advance(19);
  expect(expiredAt).toBeUndefined();
  clock.advance(1);
  expect(expiredAt).toBe(2_100);
  limit.pause();
  limit.stop();
});
