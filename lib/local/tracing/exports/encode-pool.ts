/**
 * Where an export run attempt is encoded: in an encode worker thread (encode-worker.ts) when the run's day is large
 * enough to pay for one, else in the main thread. Either way the attempt sees an {@link EncodedSource}: the events
 * of {@link RunEncoder}, pulled one at a time, while the main thread uploads and checkpoints.
 *
 * Workers are kept in a pool of at most `encodeThreads` threads, each with its own read-only connection; an attempt
 * that needs one while all are busy waits (still Running). A worker encodes at most one chunk ahead of its upload
 * and gets each uploaded buffer back, so its two chunk buffers circulate, whatever the size of the export.
 * Idle workers are kept for a while for the next attempts, then stopped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RunCursor, RunStore } from '../store/runs';
import { detachArrayBufferEarly } from './detach-early';
import type { EncodeWorkerData, FromEncodeWorker, ToEncodeWorker } from './encode-worker';
import { RunEncoder, type EncodedEvent, type EncodeJob } from './run-encoder';
import { segmentEnds } from './segments';

/** Settings of encoding in threads. */
export interface EncodeThreadSettings {
  /** Encode worker threads at most; 0 encodes every run in the main thread. */
  readonly encodeThreads: number;
  /** A run whose day holds fewer rows than this is encoded in the main thread (a worker would not pay off). */
  readonly encodeWorkerMinRows: number;
  /**
   * A run is cut into segments, one per encode thread, each encoded by its own worker, when each would hold at
   * least this many rows (segments.ts).
   */
  readonly segmentMinRows: number;
}

/** The encoded output of one attempt. */
export interface EncodedSource {
  /** Where the attempt is encoded. */
  readonly thread: 'main' | 'worker';
  /** The next event; the bytes of the previous one must no longer be needed. */
  next(): Promise<EncodedEvent>;
  /** Ends the source (early or after its `end` event). */
  close(): void;
}

/** An idle worker is stopped after this long. */
const IDLE_WORKER_MS = 30_000;

/**
 * Runs the compiled worker, or, when this module runs from its TypeScript source (the tests), the source itself,
 * transpiled on load by the TypeScript compiler the project is developed with.
 */
const TS_BOOTSTRAP = `
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { workerData } = require('node:worker_threads');
const load = createRequire(workerData.entry);
const ts = load('typescript');
load.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};
load(workerData.entry);
`;

/**
 * The old generation of a worker's heap. Below the process default (up to 4 GiB) V8 collects sooner: a busy worker
 * stays well smaller, and encodes no slower. A run whose rows do not fit is encoded in the main thread from its next
 * attempt on (see {@link EncodeScheduler}).
 */
const WORKER_OLD_GENERATION_MB = 1024;

/**
 * The young generation of a worker's heap: two semi-spaces of 32 MB (V8 takes a third of this figure per
 * semi-space, rounded up to a power of two), twice the default. A page of rows and its converted values are alive
 * while their row group is encoded, and each scavenge copies what is alive: with twice the room there are half as
 * many scavenges. Measured with bench/export: about 10% less CPU per row, for 32 MB more per worker, which the
 * worker then uses from its first run on, so its memory does not grow with the export.
 */
const WORKER_YOUNG_GENERATION_MB = 96;

function spawnEncodeWorker(dbFile: string): Worker {
  const data: EncodeWorkerData = { dbFile };
  const options = {
    // the worker loads no AWS SDK; should that change, the SDK's warning about the Node version stays off there too
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  };
  const compiled = join(__dirname, 'encode-worker.js');
  if (__filename.endsWith('.js') && existsSync(compiled)) return new Worker(compiled, { ...options, workerData: data });
  return new Worker(TS_BOOTSTRAP, { ...options, eval: true, workerData: { ...data, entry: join(__dirname, 'encode-worker.ts') } });
}

/** A bounded pool of encode workers over one database file. */
class EncodeWorkerPool {
  private readonly idle: Worker[] = [];
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private readonly waiters: (() => void)[] = [];
  private active = 0;

  constructor(
    private readonly dbFile: string,
    private readonly size: number,
  ) {
    // the main thread transfers each uploaded buffer back to its worker (see detach-early.ts)
    detachArrayBufferEarly();
  }

  /** A worker for one attempt; waits while every worker is busy. */
  async acquire(signal: AbortSignal): Promise<Worker> {
    while (this.active >= this.size) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          this.waiters.splice(this.waiters.indexOf(wake), 1);
          reject(signal.reason);
        };
        const wake = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        this.waiters.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    signal.throwIfAborted();
    // a worker that cannot be started takes no place in the pool
    const worker = this.idle.pop() ?? this.spawn();
    this.active += 1;
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    worker.ref();
    return worker;
  }

  /** Gives a worker back: kept for reuse when it finished its job cleanly, else stopped. */
  release(worker: Worker, reusable: boolean): void {
    this.active -= 1;
    if (reusable) {
      worker.unref();
      this.idle.push(worker);
      this.idleTimers.set(worker, setTimeout(() => void this.stop(worker), IDLE_WORKER_MS).unref());
    } else {
      void worker.terminate();
    }
    this.waiters.shift()?.();
  }

  /** Stops the idle workers (busy ones are stopped by their attempts, which are aborted first). */
  async close(): Promise<void> {
    await Promise.all([...this.idle].map((worker) => this.stop(worker)));
  }

  private spawn(): Worker {
    const worker = spawnEncodeWorker(this.dbFile);
    // an idle worker that fails is dropped; a busy one's failure is reported to its attempt by its source
    worker.on('error', () => undefined);
    worker.on('exit', () => this.forget(worker));
    return worker;
  }

  private async stop(worker: Worker): Promise<void> {
    this.forget(worker);
    await worker.terminate();
  }

  private forget(worker: Worker): void {
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
  }
}

/** Encodes in the main thread: each event is encoded when it is asked for. */
class InThreadSource implements EncodedSource {
  readonly thread = 'main';
  private readonly encoder: RunEncoder;

  constructor(job: EncodeJob, runs: RunStore, signal: AbortSignal) {
    this.encoder = new RunEncoder(job, (query) => runs.readPage(query), 'view', () => signal.throwIfAborted());
  }

  next(): Promise<EncodedEvent> {
    return new Promise((resolve) => resolve(this.encoder.next()));
  }

  close(): void {}
}

/** Encodes in a worker: events arrive as messages, at most one ahead of the consumer. */
class WorkerSource implements EncodedSource {
  readonly thread = 'worker';
  private readonly queue: EncodedEvent[] = [];
  private waiting: { resolve: (event: EncodedEvent) => void; reject: (err: unknown) => void } | undefined;
  private failure: unknown;
  private handedOut = false;
  private released = false;
  /** Released back to the pool (after its `end` event): the worker lives on, with the buffers it owns. */
  private reusable = false;
  private lastBuffer: ArrayBuffer | undefined;

  constructor(
    private readonly worker: Worker,
    job: EncodeJob,
    private readonly signal: AbortSignal,
    private readonly release: (reusable: boolean) => void,
    private readonly onOutOfMemory: () => void,
  ) {
    worker.on('message', this.onMessage);
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    signal.addEventListener('abort', this.onAbort, { once: true });
    worker.postMessage({ type: 'job', job } satisfies ToEncodeWorker);
    if (signal.aborted) this.onAbort();
  }

  next(): Promise<EncodedEvent> {
    // the consumer is done with the previous event: its buffer goes back, and the worker may post the next event
    this.recycle();
    if (this.handedOut && !this.released && this.failure === undefined) {
      this.worker.postMessage({ type: 'credit' } satisfies ToEncodeWorker);
    }
    this.handedOut = false;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.deliver();
    });
  }

  close(): void {
    // the buffer of an event whose upload did not complete is not recycled (a cut-off request may still hold it) but
    // written off, so the worker, back in the pool, makes another one
    const lost = (this.lastBuffer ? 1 : 0) + this.queue.filter((event) => event.kind !== 'end').length;
    this.lastBuffer = undefined;
    this.queue.length = 0;
    if (this.reusable) for (let i = 0; i < lost; i++) this.worker.postMessage({ type: 'forfeit' } satisfies ToEncodeWorker);
    // a worker stopped halfway may still be encoding: it is not reused
    this.detach(false);
  }

  /** Sends the buffer of the last event handed out back to the worker, which may be on its next job by now. */
  private recycle(): void {
    const buffer = this.lastBuffer;
    this.lastBuffer = undefined;
    if (buffer === undefined) return;
    if (buffer.byteLength > 0) this.worker.postMessage({ type: 'recycle', buffer } satisfies ToEncodeWorker, [buffer]);
    else this.worker.postMessage({ type: 'forfeit' } satisfies ToEncodeWorker);
  }

  /** Gives the worker back to the pool, once. */
  private detach(reusable: boolean): void {
    if (this.released) return;
    this.released = true;
    this.reusable = reusable;
    this.worker.off('message', this.onMessage);
    this.worker.off('error', this.onError);
    this.worker.off('exit', this.onExit);
    this.signal.removeEventListener('abort', this.onAbort);
    this.release(reusable);
  }

  private deliver(): void {
    if (!this.waiting) return;
    const { resolve, reject } = this.waiting;
    const event = this.queue.shift();
    if (event) {
      this.waiting = undefined;
      this.handedOut = event.kind !== 'end';
      if (event.kind !== 'end') this.lastBuffer = event.bytes.buffer as ArrayBuffer;
      resolve(event);
    } else if (this.failure !== undefined) {
      this.waiting = undefined;
      reject(this.failure);
    }
  }

  private fail(err: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.deliver();
  }

  private readonly onMessage = (message: FromEncodeWorker): void => {
    if (message.type === 'event') {
      this.queue.push(message.event);
      // the worker is done with this job: it can take the next one while the last file is still uploading
      if (message.event.kind === 'end') this.detach(true);
      this.deliver();
    } else {
      // the worker's error, with the name and message it had there (for example a RangeError of a bad value)
      const error = new Error(message.message);
      error.name = message.name;
      this.fail(error);
    }
  };

  private readonly onError = (err: Error): void => {
    if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') this.onOutOfMemory();
    this.fail(err);
  };

  private readonly onExit = (code: number): void => this.fail(new Error(`Encode worker stopped unexpectedly (exit code ${code})`));

  private readonly onAbort = (): void => {
    // nothing encoded ahead is wanted any more
    this.queue.length = 0;
    this.fail(new Error('Encoding aborted'));
  };
}

/** Runs remembered as too large for a worker's heap (a bound on a list that only a pathological store fills). */
const MAX_REMEMBERED_RUNS = 1000;

const runKey = (job: EncodeJob): string => `${job.sessionId}/${job.fromMicros}/${job.toMicros}`;

/** Decides where each attempt is encoded and keeps the workers. */
export class EncodeScheduler {
  private readonly pool: EncodeWorkerPool | undefined;
  /** Runs whose worker ran out of memory: they are encoded in the main thread, whose heap is larger. */
  private readonly tooLargeForWorkers = new Set<string>();

  constructor(
    private readonly settings: EncodeThreadSettings,
    private readonly runs: RunStore,
  ) {
    const dbFile = runs.databaseFile();
    const threads = Math.floor(settings.encodeThreads);
    this.pool = dbFile !== undefined && threads > 0 ? new EncodeWorkerPool(dbFile, threads) : undefined;
  }

  /** The source of one attempt; waits for a worker when the run needs one and all are busy. */
  async open(job: EncodeJob, signal: AbortSignal): Promise<EncodedSource> {
    const key = runKey(job);
    const useWorker =
      this.pool !== undefined &&
      !this.tooLargeForWorkers.has(key) &&
      this.runs.count(job.sessionId, job.fromMicros, job.toMicros, this.settings.encodeWorkerMinRows) >= this.settings.encodeWorkerMinRows;
    if (!useWorker) return new InThreadSource(job, this.runs, signal);
    const pool = this.pool!;
    const worker = await pool.acquire(signal);
    const rememberTooLarge = (): void => {
      if (this.tooLargeForWorkers.size >= MAX_REMEMBERED_RUNS) this.tooLargeForWorkers.clear();
      this.tooLargeForWorkers.add(key);
    };
    return new WorkerSource(worker, job, signal, (reusable) => pool.release(worker, reusable), rememberTooLarge);
  }

  /**
   * Where to cut a run that has not started into segments (the last run of each segment but the last); empty when
   * it stays in one piece: too few rows, or no workers.
   */
  segmentCuts(sessionId: string, fromMicros: number, toMicros: number): RunCursor[] {
    if (this.pool === undefined) return [];
    const threads = Math.floor(this.settings.encodeThreads);
    const minRows = Math.max(1, this.settings.segmentMinRows, this.settings.encodeWorkerMinRows);
    if (threads < 2) return [];
    const rows = this.runs.count(sessionId, fromMicros, toMicros);
    const offsets = segmentEnds(rows, threads, minRows);
    return offsets.length === 0 ? [] : this.runs.cursorsAt(sessionId, fromMicros, toMicros, offsets);
  }

  /** Stops the idle workers; call after every attempt has ended. */
  close(): Promise<void> {
    return this.pool?.close() ?? Promise.resolve();
  }
}
