/**
 * The encode worker threads of the exports (encode-worker.ts): a bounded pool over one database file. An attempt
 * that needs a worker while all are busy waits; idle workers are kept for a while for the next attempts, then
 * stopped. Each worker's heap is sized for the rows it encodes ({@link RowWidth}).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseFilter, referencedFields } from '../../../api/filter';
import type { ExportableFieldName } from '../../../api/schemas/trace-fields';
import { detachArrayBufferEarly } from './detach-early';
import type { EncodeWorkerData } from './encode-worker';

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
 * attempt on (see encode-pool.ts).
 */
const WORKER_OLD_GENERATION_MB = 1024;

/**
 * The rows a worker encodes: `wide` when they carry inputs or outputs (large text, most of each row), else
 * `narrow`. A worker's heap is sized for one kind; an idle worker of the other kind makes way for a new one.
 */
export type RowWidth = 'narrow' | 'wide';

const PAYLOAD_FIELDS: readonly string[] = ['inputs', 'outputs'] satisfies ExportableFieldName[];

/** The kind of rows an export reads: its fields, and those its filter reads (`search("…")` reads inputs and outputs). */
export function rowWidthOf(fields: readonly ExportableFieldName[], filter: string | null): RowWidth {
  const read: readonly string[] = filter ? [...fields, ...referencedFields(parseFilter(filter))] : fields;
  return read.some((field) => PAYLOAD_FIELDS.includes(field)) ? 'wide' : 'narrow';
}

/**
 * The young generation of a worker's heap (V8 takes a third of the figure per semi-space, rounded up to a power of
 * two). A page of rows and its converted values are alive while their row group is encoded, and each scavenge copies
 * what is alive: the more room, the fewer scavenges.
 * - `narrow`: two semi-spaces of 32 MB, twice V8's default: measured with bench/export, about 10% less CPU per row,
 *   for 32 MB more per worker, which the worker uses from its first run on (its memory does not grow with the export).
 * - `wide`: V8's default, two of 16 MB. With inputs and outputs the larger young generation saved about 6% of the
 *   CPU, and its 64 MB more with two workers took the peak RSS of 1,000,000 runs with all fields past 400 MB in some
 *   runs (320–339 MiB against 373–392 MiB, three interleaved pairs).
 */
export const WORKER_YOUNG_GENERATION_MB: Readonly<Record<RowWidth, number>> = { narrow: 96, wide: 48 };

function spawnEncodeWorker(dbFile: string, width: RowWidth): Worker {
  const data: EncodeWorkerData = { dbFile };
  const options = {
    // the worker loads no AWS SDK; should that change, the SDK's warning about the Node version stays off there too
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    resourceLimits: {
      maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB,
      maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB[width],
    },
  };
  const compiled = join(__dirname, 'encode-worker.js');
  if (__filename.endsWith('.js') && existsSync(compiled)) return new Worker(compiled, { ...options, workerData: data });
  return new Worker(TS_BOOTSTRAP, { ...options, eval: true, workerData: { ...data, entry: join(__dirname, 'encode-worker.ts') } });
}

/** A bounded pool of encode workers over one database file. */
export class EncodeWorkerPool {
  private readonly idle: Worker[] = [];
  private readonly widths = new Map<Worker, RowWidth>();
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

  /** A worker for one attempt on rows of `width`; waits while every worker is busy. */
  async acquire(signal: AbortSignal, width: RowWidth): Promise<Worker> {
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
    const worker = this.takeIdle(width) ?? this.spawn(width);
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

  /** The idle worker of this width used last, if any; an idle one of the other width gives its place up. */
  private takeIdle(width: RowWidth): Worker | undefined {
    const index = this.idle.map((worker) => this.widths.get(worker)).lastIndexOf(width);
    if (index >= 0) return this.idle.splice(index, 1)[0];
    // the pool holds at most `size` threads, busy or idle
    if (this.idle.length > 0 && this.active + this.idle.length >= this.size) void this.stop(this.idle[0]!);
    return undefined;
  }

  private spawn(width: RowWidth): Worker {
    const worker = spawnEncodeWorker(this.dbFile, width);
    this.widths.set(worker, width);
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
    this.widths.delete(worker);
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
  }
}

