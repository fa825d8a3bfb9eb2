/**
 * Encoding export runs in worker threads: a worker yields exactly the events (and bytes) the main thread yields for
 * the same run, small runs stay in the main thread, a worker's errors keep their name, an abort stops a worker at
 * once, the pool never runs more workers than allowed, and a worker keeps its buffers through cut-off uploads.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORTABLE_FIELD_NAMES, type ExportableFieldName } from '../../lib/api/schemas/trace';
import { AUTH_MIGRATIONS } from '../../lib/local/auth';
import { systemClock } from '../../lib/local/clock';
import { migrate, openDatabase, type PlatformDatabase } from '../../lib/local/db';
import { EncodeScheduler, type EncodedSource, type EncodeThreadSettings } from '../../lib/local/tracing/exports/encode-pool';
import { WORKER_YOUNG_GENERATION_MB } from '../../lib/local/tracing/exports/encode-worker-pool';
import type { EncodedEvent, EncodeJob } from '../../lib/local/tracing/exports/run-encoder';
import { encoderBufferBytes } from '../../lib/local/tracing/parquet/part-encoder';
import { TRACING_MIGRATIONS } from '../../lib/local/tracing/store/migrations';
import { RunStore } from '../../lib/local/tracing/store/runs';
import { SessionStore } from '../../lib/local/tracing/store/sessions';
import { MICROS_PER_DAY, toMicros } from '../../lib/local/tracing/store/time';
import { generateSyntheticRuns } from '../../lib/local/tracing/synthetic/generate';
import { readParquetRows } from './support/parquet';

// the module object itself (not an import's copy of it), so a spy on its Worker is what the pool calls
const workerThreads = require('node:worker_threads') as typeof import('node:worker_threads');

const TENANT = '00000000-0000-4000-8000-000000000001';
const DAY = toMicros('2024-04-01T00:00:00Z');
const ROWS = 1_500;

let db: PlatformDatabase;
let runs: RunStore;
let sessionId: string;
const schedulers: EncodeScheduler[] = [];

beforeAll(() => {
  db = openDatabase(mkdtempSync(join(tmpdir(), 'encode-workers-')));
  migrate(db, [AUTH_MIGRATIONS, TRACING_MIGRATIONS]);
  const sessions = new SessionStore(db, systemClock);
  sessionId = sessions.getOrCreateByName(TENANT, 'workers').id;
  runs = new RunStore(db, sessions);
  // about 20 KB of inputs and outputs per run: a file of 1,000 rows is larger than one 5 MiB chunk
  generateSyntheticRuns(runs, {
    tenantId: TENANT,
    sessionId,
    count: ROWS,
    startMicros: DAY + 1,
    endMicros: DAY + MICROS_PER_DAY - 1,
    payloadBytes: 20_000,
    seed: 3,
  });
});

afterAll(async () => {
  await Promise.all(schedulers.map((scheduler) => scheduler.close()));
  db.close();
});

function scheduler(settings: EncodeThreadSettings): EncodeScheduler {
  const created = new EncodeScheduler(settings, runs);
  schedulers.push(created);
  return created;
}

function job(overrides: Partial<EncodeJob> = {}): EncodeJob {
  return {
    tenantId: TENANT,
    sessionId,
    fromMicros: DAY,
    toMicros: DAY + MICROS_PER_DAY,
    cursor: null,
    until: null,
    fields: [...EXPORTABLE_FIELD_NAMES],
    formatVersion: 'v1',
    filter: null,
    limits: { rowGroupRows: 200, maxRowsPerFile: 1_000, maxFileBytes: 256 * 1024 * 1024, multipartChunkBytes: 5 * 1024 * 1024 },
    ...overrides,
  };
}

/** Every event of a source, with copies of its bytes (a main-thread source reuses its buffer). */
async function drain(source: EncodedSource): Promise<EncodedEvent[]> {
  const events: EncodedEvent[] = [];
  try {
    for (;;) {
      const event = await source.next();
      events.push(event.kind === 'end' ? event : { ...event, bytes: Buffer.from(event.bytes) });
      if (event.kind === 'end') return events;
    }
  } finally {
    source.close();
  }
}

const WORKERS: EncodeThreadSettings = { encodeThreads: 2, encodeWorkerMinRows: 0, segmentMinRows: 50_000 };
const MAIN_THREAD: EncodeThreadSettings = { encodeThreads: 0, encodeWorkerMinRows: 0, segmentMinRows: 50_000 };

/** An event with a digest in place of its bytes (comparing megabytes value by value is slow). */
const summary = (event: EncodedEvent): unknown =>
  event.kind === 'end' ? event : { ...event, bytes: createHash('sha256').update(event.bytes).digest('hex'), length: event.bytes.length };

/** The files of an attempt's events: chunks and the part that ends them, joined. */
function files(events: readonly EncodedEvent[]): { bytes: Buffer; rows: number }[] {
  const result: { bytes: Buffer; rows: number }[] = [];
  let pending: Uint8Array[] = [];
  for (const event of events) {
    if (event.kind === 'end') continue;
    pending.push(event.bytes);
    if (event.kind === 'part') {
      result.push({ bytes: Buffer.concat(pending), rows: event.rows });
      pending = [];
    }
  }
  return result;
}

test.each([
  ['v1, every field', {}, ROWS],
  [
    'v2_beta, some fields, a filter',
    {
      formatVersion: 'v2_beta' as const,
      fields: ['id', 'name', 'start_time', 'parent_run_ids', 'extra', 'total_tokens', 'is_root'] as ExportableFieldName[],
      filter: 'eq(run_type, "llm")',
    },
    undefined,
  ],
])('a worker yields the same events and bytes as the main thread (%s), also from a checkpoint', async (_label, overrides, expectedRows) => {
  const base = job(overrides);
  const all = await drain(await scheduler(MAIN_THREAD).open(base, new AbortController().signal));
  const written = files(all);
  for (const file of written) expect(await readParquetRows(file.bytes)).toHaveLength(file.rows);
  const llmRuns = (db.prepare(`SELECT count(*) AS n FROM trace_runs WHERE run_type = 'llm'`).get() as { n: number }).n;
  expect(written.reduce((sum, file) => sum + file.rows, 0)).toBe(expectedRows ?? llmRuns);
  if (base.filter === null) {
    // files of 1,000 and 500 rows; the first is larger than a chunk and goes up as multipart chunks
    expect(written.map((file) => file.rows)).toEqual([1_000, 500]);
    expect(all[0].kind).toBe('chunk');
  }
  // a retry resumes from the checkpoint after the first file
  const firstPart = all.find((event) => event.kind === 'part');
  const resumed = { ...base, cursor: firstPart?.kind === 'part' ? firstPart.cursor : null };
  for (const encodeJob of [base, resumed]) {
    const inMain = await scheduler(MAIN_THREAD).open(encodeJob, new AbortController().signal);
    const inWorker = await scheduler(WORKERS).open(encodeJob, new AbortController().signal);
    expect([inMain.thread, inWorker.thread]).toEqual(['main', 'worker']);
    const [mainEvents, workerEvents] = await Promise.all([drain(inMain), drain(inWorker)]);
    expect(workerEvents.map(summary)).toEqual(mainEvents.map(summary));
  }
}, 60_000);

test('small runs stay in the main thread; so does everything with encodeThreads 0', async () => {
  const small = await scheduler({ encodeThreads: 2, encodeWorkerMinRows: ROWS + 1, segmentMinRows: 50_000 }).open(job(), new AbortController().signal);
  const none = await scheduler(MAIN_THREAD).open(job(), new AbortController().signal);
  const large = await scheduler({ encodeThreads: 2, encodeWorkerMinRows: ROWS, segmentMinRows: 50_000 }).open(job(), new AbortController().signal);
  expect([small.thread, none.thread, large.thread]).toEqual(['main', 'main', 'worker']);
  for (const source of [small, none, large]) source.close();
});

test("a worker's processing error keeps its name and message, and the next attempt gets a working worker", async () => {
  const pool = scheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 });
  const { id } = db.prepare('SELECT id FROM trace_runs WHERE total_tokens IS NOT NULL LIMIT 1').get() as { id: string };
  db.prepare('UPDATE trace_runs SET total_tokens = 1.5 WHERE id = ?').run(id);
  try {
    const failing = await pool.open(job(), new AbortController().signal);
    expect(failing.thread).toBe('worker');
    await expect(drain(failing)).rejects.toMatchObject({ name: 'RangeError', message: expect.stringContaining('1.5') });
  } finally {
    db.prepare('UPDATE trace_runs SET total_tokens = 2 WHERE id = ?').run(id);
  }
  const events = await drain(await pool.open(job(), new AbortController().signal));
  expect(files(events).map((file) => file.rows)).toEqual([1_000, 500]);
}, 60_000);

test('a worker has the young generation of the rows it encodes; an idle worker of the other kind makes way', async () => {
  const RealWorker = workerThreads.Worker;
  const youngGenerations: (number | undefined)[] = [];
  const exits: Promise<unknown>[] = [];
  const spawn = jest.spyOn(workerThreads, 'Worker').mockImplementation((...args) => {
    const [entry, options] = args as ConstructorParameters<typeof RealWorker>;
    youngGenerations.push(options?.resourceLimits?.maxYoungGenerationSizeMb);
    const worker = new RealWorker(entry, options);
    exits.push(new Promise((resolve) => worker.once('exit', resolve)));
    return worker;
  });
  try {
    const pool = scheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 });
    const narrow = job({ fields: EXPORTABLE_FIELD_NAMES.filter((name) => name !== 'inputs' && name !== 'outputs') });
    await drain(await pool.open(job(), new AbortController().signal));
    // the idle worker sized for inputs and outputs is stopped: the pool holds one thread
    await drain(await pool.open(narrow, new AbortController().signal));
    await exits[0];
    // the narrow one is reused
    await drain(await pool.open(narrow, new AbortController().signal));
    // a filter that reads inputs and outputs (a search of the whole run) makes the rows wide again
    await drain(await pool.open({ ...narrow, filter: 'search("chain")' }, new AbortController().signal));
    expect(youngGenerations).toEqual([
      WORKER_YOUNG_GENERATION_MB.wide,
      WORKER_YOUNG_GENERATION_MB.narrow,
      WORKER_YOUNG_GENERATION_MB.wide,
    ]);
  } finally {
    spawn.mockRestore();
  }
}, 60_000);

test('a worker that cannot be started fails its attempt, and leaves its place in the pool to the next', async () => {
  const pool = scheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 });
  const start = jest.spyOn(workerThreads, 'Worker').mockImplementationOnce(() => {
    throw new Error('no thread could be started');
  });
  try {
    await expect(pool.open(job(), new AbortController().signal)).rejects.toThrow('no thread could be started');
  } finally {
    start.mockRestore();
  }
  const events = await drain(await pool.open(job(), new AbortController().signal));
  expect(files(events).map((file) => file.rows)).toEqual([1_000, 500]);
}, 60_000);

test('the pool runs at most encodeThreads workers; waiting and running attempts stop at once when aborted', async () => {
  const pool = scheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 });
  const first = await pool.open(job(), new AbortController().signal);
  // the only worker is taken: the next attempts wait, and an abort while waiting rejects with the abort's reason
  const waiting = new AbortController();
  const queued = pool.open(job(), waiting.signal);
  const third = new AbortController();
  let thirdOpened = false;
  const later = pool.open(job(), third.signal).then((source) => {
    thirdOpened = true;
    return source;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  waiting.abort({ kind: 'shutdown' });
  await expect(queued).rejects.toEqual({ kind: 'shutdown' });
  expect(thirdOpened).toBe(false);
  // closing an attempt before its end stops its worker; the attempt that waited gets a new one
  first.close();
  const second = await later;
  expect(second.thread).toBe('worker');
  const pending = second.next();
  third.abort({ kind: 'run-timeout', afterMs: 1 });
  await expect(pending).rejects.toThrow('Encoding aborted');
  second.close();
  const after = await drain(await pool.open(job(), new AbortController().signal));
  expect(files(after).map((file) => file.rows)).toEqual([1_000, 500]);
}, 60_000);

test('a buffer whose upload was cut off is written off: the worker, reused, makes another and keeps encoding', async () => {
  const pool = scheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 });
  // twice, an attempt stops after its worker's last event, holding the last file's bytes: both of the worker's
  // buffers are lost to it (without the write-off it would wait for them for ever)
  for (let attempt = 0; attempt < 2; attempt++) {
    const source = await pool.open(job({ fields: ['id', 'name', 'inputs'] }), new AbortController().signal);
    let event = await source.next();
    let parts = 0;
    while (parts < 2) {
      if (event.kind === 'part') parts += 1;
      if (parts < 2) event = await source.next();
    }
    // the worker posted `end` right after the last part, and is back in the pool
    await new Promise((resolve) => setTimeout(resolve, 50));
    source.close();
  }
  const events = await drain(await pool.open(job(), new AbortController().signal));
  expect(files(events).map((file) => file.rows)).toEqual([1_000, 500]);
  expect(events.filter((event) => event.kind === 'chunk').length).toBeGreaterThan(0);
}, 60_000);

test('a row group larger than a chunk buffer grows it; the grown buffer is handed out, and the worker goes on', async () => {
  const pool = scheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 });
  // 1,000 runs of about 40 KB of inputs and outputs, in one row group of about 12 MB (compressed), more
  // than a buffer's room for a chunk plus a row group
  // (in a project of their own, so the other tests' counts stay as they are)
  const project = new SessionStore(db, systemClock).getOrCreateByName(TENANT, 'large-rows').id;
  generateSyntheticRuns(runs, {
    tenantId: TENANT,
    sessionId: project,
    count: 1_000,
    startMicros: DAY + 1,
    endMicros: DAY + MICROS_PER_DAY - 1,
    payloadBytes: 40_000,
    seed: 4,
  });
  const large = job({ sessionId: project, limits: { ...job().limits, rowGroupRows: 1_000, maxRowsPerFile: 1_000 } });
  const [inMain, inWorker] = await Promise.all([
    scheduler(MAIN_THREAD).open(large, new AbortController().signal),
    pool.open(large, new AbortController().signal),
  ]);
  const [mainEvents, workerEvents] = await Promise.all([drain(inMain), drain(inWorker)]);
  expect(workerEvents.map(summary)).toEqual(mainEvents.map(summary));
  expect(Math.max(...workerEvents.map((event) => (event.kind === 'end' ? 0 : event.bytes.length)))).toBeGreaterThan(
    encoderBufferBytes(large.limits.multipartChunkBytes),
  );
  const next = await drain(await pool.open(job(), new AbortController().signal));
  expect(files(next).map((file) => file.rows)).toEqual([1_000, 500]);
}, 60_000);
