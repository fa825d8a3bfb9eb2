/**
 * Where an export run attempt is encoded: in an encode worker thread (encode-worker.ts) when the run's day is large
 * enough to pay for one, else in the main thread. Either way the attempt sees an {@link EncodedSource}: the events
 * of {@link RunEncoder}, pulled one at a time, while the main thread uploads and checkpoints.
 *
 * Workers are kept in a pool of at most `encodeThreads` threads (encode-worker-pool.ts), each with its own read-only
 * connection; an attempt that needs one while all are busy waits (still Running). A worker encodes at most one chunk
 * ahead of its upload and gets each uploaded buffer back, so its two chunk buffers circulate, whatever the size of
 * the export.
 */
import type { Worker } from 'node:worker_threads';
import type { RunCursor, RunStore } from '../store/runs';
import type { FromEncodeWorker, ToEncodeWorker } from './encode-worker';
import { EncodeWorkerPool, rowWidthOf } from './encode-worker-pool';
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
    const worker = await pool.acquire(signal, rowWidthOf(job.fields, job.filter));
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
