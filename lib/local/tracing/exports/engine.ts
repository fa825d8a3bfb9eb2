/**
 * The export engine: moves exports and their runs through Created → Running → Completed | Failed | Cancelled |
 * TimedOut, with the platform's limits. Everything it decides is in SQLite, so a restart picks up where it was;
 * time comes from the injectable clock, so retries, timeouts and schedules can be driven by tests.
 *
 * One `pump()` looks at the stored state and does what is due: spawn the children of scheduled exports (a batch at a
 * time: a schedule that starts long ago has thousands due, and the request that created it must not wait for them;
 * the next batch follows on the event loop's next turn), start queued exports (at most N per workspace), start queued runs (at most M per export), relaunch runs whose retry
 * delay is over, time out exports past their workflow timeout, and complete exports whose runs all completed; then
 * it has the files that runs which ended for good left uncommitted deleted, in the background (uncommitted-files.ts).
 * It is synchronous and runs after every change; timers only wake it.
 *
 * An export ended from outside (workflow timeout, a run failing for good) stops its attempts in flight as a cancel
 * does, but at once: a file whose last request is under way is let finish and committed (run-executor.ts); only a
 * shutdown cuts that request off.
 */
import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { isFinalBulkExportStatus, type BulkExportStatus } from '../../../api/schemas/bulk-export';
import { SCHEDULE_DELAY_MS } from '../../../api/schemas/bulk-export-constants';
import type { Clock, TimerHandle } from '../../clock';
import { HttpError } from '../../errors';
import { credentialRedactor } from '../destinations/s3';
import type { DestinationStore } from '../destinations/store';
import type { RunStore } from '../store/runs';
import { formatInstant, toMicros } from '../store/time';
import { AttemptTimeLimit } from './attempt-time-limit';
import { EncodeScheduler, type EncodeThreadSettings } from './encode-pool';
import { DESTINATION_DELETED_MESSAGE, DESTINATION_UNREADABLE_MESSAGE, INTERRUPTION_MESSAGE, decideFailure, type AbortCause } from './failures';
import { childRange, runRangesOf } from './plan';
import { executeRunAttempt, type ExportWriterLimits } from './run-executor';
import { UncommittedFileSweeper } from './uncommitted-files';
import type { ExportRow, ExportStore, RunRow } from './store';

/** Limits and delays of the engine; the defaults are the platform's documented values. */
export interface ExportEngineSettings extends EncodeThreadSettings {
  /** Retries per export run after its first attempt. */
  readonly maxRetries: number;
  /** Fixed delay before each retry (no backoff). */
  readonly retryDelayMs: number;
  /** Time limit of one attempt of a run, counting the time it works, not the time it waits for an encode thread. */
  readonly runTimeoutMs: number;
  /** Time limit of a whole export, from its start. */
  readonly workflowTimeoutMs: number;
  /** Runs of one export in progress at once; the others wait in a queue. */
  readonly maxConcurrentRunsPerExport: number;
  /** Exports of one workspace in progress at once; the others wait in a queue. */
  readonly maxConcurrentExportsPerWorkspace: number;
  /** A scheduled export's child starts this long after the end of its range. */
  readonly scheduleDelayMs: number;
  /** Parquet and upload sizes. */
  readonly writer: ExportWriterLimits;
}

const HOUR_MS = 3_600_000;

/** Children of schedules spawned in one pump; more due ones are spawned on the next turn of the event loop. */
export const SPAWN_BATCH = 50;

export const DEFAULT_EXPORT_ENGINE_SETTINGS: ExportEngineSettings = {
  maxRetries: 20,
  retryDelayMs: 30_000,
  runTimeoutMs: 4 * HOUR_MS,
  workflowTimeoutMs: 72 * HOUR_MS,
  maxConcurrentRunsPerExport: 45,
  maxConcurrentExportsPerWorkspace: 15,
  scheduleDelayMs: SCHEDULE_DELAY_MS,
  encodeThreads: availableParallelism(),
  encodeWorkerMinRows: 10_000,
  segmentMinRows: 100_000,
  writer: {
    rowGroupRows: 2_000,
    maxRowsPerFile: 250_000,
    maxFileBytes: 256 * 1024 * 1024,
    multipartChunkBytes: 5 * 1024 * 1024,
    s3: {},
  },
};

interface ActiveAttempt {
  readonly exportId: string;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/** The running engine of one platform process. */
export class ExportEngine {
  private readonly attempts = new Map<string, ActiveAttempt>();
  private readonly wakeups = new Map<string, { atMs: number; handle: TimerHandle }>();
  private running = false;
  private pumping = false;
  private pumpAgain = false;
  /** The next batch of due children, when a pump left some. */
  private spawnMore: NodeJS.Immediate | undefined;
  private readonly encoders: EncodeScheduler;
  private readonly uncommitted: UncommittedFileSweeper;
  /** Aborted by `stop()`: cuts off everything, even the request that makes a file appear, and the deletes. */
  private shutdown = shutdownController();

  constructor(
    private readonly store: ExportStore,
    runs: RunStore,
    private readonly destinations: DestinationStore,
    private readonly clock: Clock,
    private readonly settings: ExportEngineSettings,
    private readonly log: (line: string) => void,
  ) {
    this.encoders = new EncodeScheduler(settings, runs);
    this.uncommitted = new UncommittedFileSweeper(store, destinations, settings.writer.s3, log);
  }

  /** Requeues attempts a previous process left unfinished, then starts working. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.shutdown = shutdownController();
    this.uncommitted.restart();
    const now = this.clock.now();
    // the deadline first: an export whose time ran out while the platform was down ends TimedOut, whatever its runs
    // were doing when it stopped
    for (const row of this.store.exportsWithStatus('Running')) {
      if (row.interval_hours === null && now >= this.deadlineOf(row, now)) this.finishExport(row.id, 'TimedOut', 'TimedOut');
    }
    // an interrupted run is requeued at once: the fixed delay is for runs that failed, not for ones that were cut off
    for (const interrupted of this.store.interruptedRuns()) {
      // read again: an interrupted run before it may have failed the export, and ended this one with it
      const run = this.store.runRow(interrupted.id)!;
      if (run.status === 'Running') this.recordFailure(run, INTERRUPTION_MESSAGE, true, 'Failed', now, 0);
    }
    this.pump();
  }

  /** Stops every attempt (they resume from their checkpoints on the next start) and every timer. */
  async stop(): Promise<void> {
    this.running = false;
    this.shutdown.abort({ kind: 'shutdown' } satisfies AbortCause);
    for (const { handle } of this.wakeups.values()) this.clock.clearTimeout(handle);
    this.wakeups.clear();
    if (this.spawnMore) clearImmediate(this.spawnMore);
    this.spawnMore = undefined;
    const attempts = [...this.attempts.values()];
    for (const attempt of attempts) attempt.controller.abort({ kind: 'shutdown' } satisfies AbortCause);
    await Promise.allSettled(attempts.map((attempt) => attempt.done));
    await this.uncommitted.settled();
    await this.encoders.close();
  }

  /** Cancels a non-final export (PATCH status Cancelled); 409 when it already finished. */
  cancel(exportId: string): void {
    const row = this.store.exportRow(exportId)!;
    if (isFinalBulkExportStatus(row.status)) {
      throw new HttpError(409, `Bulk export ${exportId} is ${row.status} and cannot be cancelled; create a new export instead`);
    }
    this.store.setExportStatus(exportId, 'Cancelled');
    // runs in flight see this at their next checkpoint and stop there
    this.store.finishOpenRuns(exportId, 'Cancelled');
    this.pump();
  }

  /** Does everything that is due now. Safe to call at any time, also from inside itself. */
  pump(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const now = this.clock.now();
        this.spawnScheduledChildren(now);
        this.startQueuedExports(now);
        for (const row of this.store.exportsWithStatus('Running')) {
          if (row.interval_hours === null) this.advanceExport(row, now);
        }
      } while (this.pumpAgain && this.running);
      // what runs that ended for good left uncommitted (their attempts in flight may still commit it)
      this.uncommitted.sweep((runId) => this.attempts.has(runId), this.shutdown.signal);
    } finally {
      this.pumping = false;
    }
  }

  private spawnScheduledChildren(now: number): void {
    let budget = SPAWN_BATCH;
    for (const parent of this.store.exportsWithStatus('Running')) {
      if (parent.interval_hours === null) continue;
      const startMicros = toMicros(parent.start_time);
      let index = parent.spawned_count;
      for (;;) {
        if (budget === 0) return this.spawnNextBatch();
        const range = childRange(startMicros, parent.interval_hours, index);
        const dueMs = range.end / 1000 + this.settings.scheduleDelayMs;
        if (dueMs > now) {
          this.wakeAt(`schedule:${parent.id}`, dueMs);
          break;
        }
        this.store.spawnChild(parent.id, index + 1, {
          tenantId: parent.tenant_id,
          destinationId: parent.bulk_export_destination_id,
          sessionId: parent.session_id,
          startTime: formatInstant(range.start),
          endTime: formatInstant(range.end),
          filter: parent.filter,
          exportFields: parent.export_fields === null ? null : (JSON.parse(parent.export_fields) as string[]),
          intervalHours: null,
          formatVersion: parent.format_version,
          sourceExportId: parent.id,
          runRanges: runRangesOf(range),
        });
        index += 1;
        budget -= 1;
      }
    }
  }

  /** Pumps again on the event loop's next turn, so that requests are answered between two batches of children. */
  private spawnNextBatch(): void {
    if (this.spawnMore) return;
    this.spawnMore = setImmediate(() => {
      this.spawnMore = undefined;
      this.pump();
    });
  }

  private startQueuedExports(now: number): void {
    // a scheduled export is a schedule, not work: it is accepted at once and never takes a slot
    for (const schedule of this.store.newSchedules()) {
      this.store.setExportStatus(schedule.id, 'Running', now);
      this.pumpAgain = true;
    }
    const inProgress = this.store.runningExportsPerTenant();
    for (const tenantId of this.store.tenantsWithQueuedExports()) {
      const free = this.settings.maxConcurrentExportsPerWorkspace - (inProgress.get(tenantId) ?? 0);
      if (free <= 0) continue;
      for (const row of this.store.queuedExports(tenantId, free)) this.store.setExportStatus(row.id, 'Running', now);
    }
  }

  /** When a one-off export times out: its workflow timeout after it started. */
  private deadlineOf(row: ExportRow, now: number): number {
    return (row.started_at_ms ?? now) + this.settings.workflowTimeoutMs;
  }

  private advanceExport(row: ExportRow, now: number): void {
    const deadline = this.deadlineOf(row, now);
    if (now >= deadline) {
      this.finishExport(row.id, 'TimedOut', 'TimedOut');
      return;
    }
    this.wakeAt(`workflow:${row.id}`, deadline);
    const runs = this.store.runsOf(row.id);
    if (runs.every((run) => run.status === 'Completed')) {
      this.endExport(row.id, 'Completed');
      return;
    }
    let inProgress = runs.filter((run) => run.status === 'Running').length;
    // the runs as read above: once a launch ends the export, the others are no longer what was read
    for (const run of runs) {
      if (run.status === 'Running' && !this.attempts.has(run.id)) {
        if (run.next_attempt_at_ms !== null && run.next_attempt_at_ms > now) this.wakeAt(`retry:${run.id}`, run.next_attempt_at_ms);
        else if (!this.launch(row, run, now)) return;
      } else if (run.status === 'Created' && inProgress < this.settings.maxConcurrentRunsPerExport) {
        inProgress += 1;
        if (!this.launch(row, run, now)) return;
      }
    }
  }

  /** Starts an attempt of the run; false when the export ended instead (its destination is gone or unreadable). */
  private launch(exportRow: ExportRow, run: RunRow, now: number): boolean {
    let destination: ReturnType<DestinationStore['resolve']>;
    let unusable = DESTINATION_DELETED_MESSAGE;
    try {
      destination = this.destinations.resolve(exportRow.bulk_export_destination_id);
    } catch (err) {
      // credentials that cannot be opened fail this export, not the engine (and with it every other export)
      unusable = `${DESTINATION_UNREADABLE_MESSAGE} (${(err as Error).message})`;
    }
    if (!destination) {
      this.store.startAttempt(run.id, now);
      this.recordFailure(this.store.runRow(run.id)!, unusable, false, 'Failed', now);
      return false;
    }
    this.store.startAttempt(run.id, now);
    const controller = new AbortController();
    const timeLimit = new AttemptTimeLimit(this.clock, this.settings.runTimeoutMs, () =>
      controller.abort({ kind: 'run-timeout', afterMs: this.settings.runTimeoutMs } satisfies AbortCause),
    );
    const attempt = async (): Promise<void> => {
      try {
        const outcome = await executeRunAttempt({
          exportRow,
          run: this.store.runRow(run.id)!,
          destination,
          encoders: this.encoders,
          store: this.store,
          limits: this.settings.writer,
          signal: controller.signal,
          shutdown: this.shutdown.signal,
          shouldContinue: () => this.isStillRunning(exportRow.id, run.id),
          work: timeLimit,
        });
        if (!this.running) return;
        if (outcome === 'completed' && this.isStillRunning(exportRow.id, run.id)) this.store.finishRun(run.id, 'Completed');
        else this.store.clearAttempt(run.id);
      } catch (err) {
        if (!this.running) return;
        const decision = decideFailure(err, controller.signal.reason as AbortCause | undefined, credentialRedactor(destination.credentials));
        const current = this.store.runRow(run.id)!;
        if (decision.action === 'ignore' || current.status !== 'Running') {
          this.store.clearAttempt(run.id);
          return;
        }
        this.log(`bulk export ${exportRow.id} run ${run.id}: ${decision.message}`);
        this.recordFailure(current, decision.message, decision.retryable, decision.finalStatus, this.clock.now());
      } finally {
        timeLimit.stop();
        this.attempts.delete(run.id);
        this.pump();
      }
    };
    this.attempts.set(run.id, { exportId: exportRow.id, controller, done: attempt() });
    return true;
  }

  private isStillRunning(exportId: string, runId: string): boolean {
    return this.running && this.store.runRow(runId)?.status === 'Running' && this.store.exportRow(exportId)?.status === 'Running';
  }

  /** Keeps the error as `retry_N`; retries after the fixed delay while retries remain, else fails the export. */
  private recordFailure(
    run: RunRow,
    message: string,
    retryable: boolean,
    finalStatus: BulkExportStatus,
    now: number,
    delayMs = this.settings.retryDelayMs,
  ): void {
    if (retryable && run.retry_number < this.settings.maxRetries) {
      const retryAtMs = now + delayMs;
      this.store.recordAttemptError(run.id, message, { retryAtMs });
      this.wakeAt(`retry:${run.id}`, retryAtMs);
      return;
    }
    this.store.recordAttemptError(run.id, message, { finalStatus });
    // one run failing for good fails the whole export; its other runs stop
    this.finishExport(run.bulk_export_id, 'Failed', 'Cancelled');
  }

  private finishExport(exportId: string, status: BulkExportStatus, openRunStatus: BulkExportStatus): void {
    this.endExport(exportId, status);
    this.store.finishOpenRuns(exportId, openRunStatus);
    const cause: AbortCause = status === 'TimedOut' ? { kind: 'workflow-timeout' } : { kind: 'export-finished' };
    for (const attempt of this.attempts.values()) {
      if (attempt.exportId === exportId) attempt.controller.abort(cause);
    }
  }

  /** Gives an export its final status. Its slot is free: the pump looks at the queue again (also from inside itself). */
  private endExport(exportId: string, status: BulkExportStatus): void {
    this.store.setExportStatus(exportId, status);
    this.clearWakeup(`workflow:${exportId}`);
    this.pumpAgain = true;
  }

  /** Wakes the pump at `atMs` (one timer per key; an earlier or equal one already armed is kept). */
  private wakeAt(key: string, atMs: number): void {
    const existing = this.wakeups.get(key);
    if (existing && existing.atMs <= atMs) return;
    if (existing) this.clock.clearTimeout(existing.handle);
    const handle = this.clock.setTimeout(() => {
      this.wakeups.delete(key);
      this.pump();
    }, atMs - this.clock.now());
    this.wakeups.set(key, { atMs, handle });
  }

  private clearWakeup(key: string): void {
    const existing = this.wakeups.get(key);
    if (!existing) return;
    this.clock.clearTimeout(existing.handle);
    this.wakeups.delete(key);
  }
}

/**
 * The engine's shutdown signal. The S3 client listens to it for each request that makes a file appear, for as long as
 * the request is in flight: with more than 10 runs finishing a file at once (up to 45 per export), Node's default
 * limit of listeners would print a warning of a leak that is none.
 */
export function shutdownController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
