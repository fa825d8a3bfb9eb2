/**
 * An encode worker (a `node:worker_threads` thread): reads export runs through its own read-only connection to the
 * platform database and encodes them with {@link RunEncoder}, posting each event to the main thread, which uploads
 * the bytes and commits the checkpoints. It reads committed data only and writes nothing, so the main thread stays
 * the database's only writer.
 *
 * Protocol (see encode-pool.ts): the main thread posts `{type: 'job', job}`; the worker answers with `{type:
 * 'event', event}` messages (chunk bytes transferred, not copied) up to `{kind: 'end'}`, or one `{type: 'error'}`.
 * It posts at most one event with bytes that the main thread has not taken yet (`{type: 'credit'}` takes one), so it
 * encodes one chunk ahead of the upload and no further; the `end` event needs no credit, so the worker is free for
 * the next job while the main thread still uploads the last file.
 *
 * Buffers: a worker owns exactly {@link WORKER_BUFFERS} chunk buffers for its whole life. Each one handed out comes
 * back with `{type: 'recycle'}` once uploaded (or is written off with `{type: 'forfeit'}` when its upload was cut
 * off); before each step the worker waits until one of its buffers is home. So its memory is the same for a small
 * export and for a large one. Buffers allocated and freed as needed did not stay that way: freeing a buffer of
 * several MiB makes glibc raise its mmap threshold, after which such buffers live in the per-thread malloc arenas,
 * which kept growing over a long export (about 45 MB more peak RSS at 1M rows than at 100k).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { readRunPage } from '../store/runs';
import type { BufferSupply } from '../parquet/part-encoder';
import { detachArrayBufferEarly } from './detach-early';
import { RunEncoder, type EncodedEvent, type EncodeJob } from './run-encoder';

/** What the main thread starts a worker with. */
export interface EncodeWorkerData {
  /** The platform database file. */
  readonly dbFile: string;
}

/** Messages to a worker. */
export type ToEncodeWorker =
  | { readonly type: 'job'; readonly job: EncodeJob }
  /** The main thread took the last event: the worker may post one more. */
  | { readonly type: 'credit' }
  /** A buffer the main thread is done with, back for reuse (transferred). */
  | { readonly type: 'recycle'; readonly buffer: ArrayBuffer }
  /** A buffer that will not come back (its upload was cut off and may still hold it): the worker may make another. */
  | { readonly type: 'forfeit' };

/** Messages from a worker. */
export type FromEncodeWorker =
  | { readonly type: 'event'; readonly event: EncodedEvent }
  | { readonly type: 'error'; readonly name: string; readonly message: string };

/** Events posted ahead of the main thread's uploads. */
const EVENTS_AHEAD = 1;
/** Chunk buffers of a worker: the one being filled, and the one being uploaded. */
const WORKER_BUFFERS = 2;
/**
 * SQLite's page cache of a worker's connection, in KiB (a negative `cache_size`). A worker reads each page of the
 * table once, in order, so a cache for the index's inner pages is enough; the connection default (16 MB per worker)
 * only added to the process's memory (about 40 MB less peak RSS with two workers, at the same speed).
 */
const WORKER_CACHE_KIB = 2048;

/**
 * The chunk buffers of a worker: a fixed number, made on first use and then reused. A buffer that grew far beyond
 * the usual size (a row group of very large runs) is not kept: a smaller one is made when needed.
 */
class BufferRing implements BufferSupply {
  private readonly home: ArrayBuffer[] = [];
  private owned = 0;
  private usualBytes = 0;
  private wake: (() => void) | undefined;

  /** Resolves once a buffer can be taken. */
  async ready(): Promise<void> {
    while (this.home.length === 0 && this.owned >= WORKER_BUFFERS) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  take(bytes: number): ArrayBuffer {
    this.usualBytes = bytes;
    const index = this.home.findIndex((buffer) => buffer.byteLength >= bytes);
    if (index >= 0) return this.home.splice(index, 1)[0];
    // a smaller buffer (from a job with smaller chunks) is replaced
    if (this.home.length > 0 && this.owned >= WORKER_BUFFERS) {
      this.home.pop();
      this.owned -= 1;
    }
    this.owned += 1;
    return new ArrayBuffer(bytes);
  }

  give(buffer: ArrayBuffer): void {
    if (this.usualBytes > 0 && buffer.byteLength > 2 * this.usualBytes) this.owned -= 1;
    else this.home.push(buffer);
    this.signal();
  }

  forfeit(): void {
    this.owned -= 1;
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function serve(): void {
  detachArrayBufferEarly();
  const port = parentPort!;
  const { dbFile } = workerData as EncodeWorkerData;
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${WORKER_CACHE_KIB}`);
  let credits = 0;
  let wake: (() => void) | undefined;
  const buffers = new BufferRing();

  const post = (message: FromEncodeWorker): void => {
    const bytes = message.type === 'event' && message.event.kind !== 'end' ? message.event.bytes : undefined;
    port.postMessage(message, bytes ? [bytes.buffer as ArrayBuffer] : []);
  };

  const run = async (job: EncodeJob): Promise<void> => {
    credits = EVENTS_AHEAD;
    try {
      const encoder = new RunEncoder(job, (query) => readRunPage(db, query), buffers);
      for (;;) {
        // a step takes at most one buffer; the `end` step none, so the worker is free while its last file uploads
        if (encoder.needsBuffer) await buffers.ready();
        const event = encoder.next();
        if (event.kind === 'end') return post({ type: 'event', event });
        while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
        credits -= 1;
        post({ type: 'event', event });
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      post({ type: 'error', name: error.name, message: error.message });
    }
  };

  port.on('message', (message: ToEncodeWorker) => {
    if (message.type === 'job') {
      void run(message.job);
    } else if (message.type === 'credit') {
      credits += 1;
      wake?.();
      wake = undefined;
    } else if (message.type === 'recycle') {
      buffers.give(message.buffer);
    } else {
      buffers.forfeit();
    }
  });
}

serve();
