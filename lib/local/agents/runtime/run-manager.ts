/**
 * Runs of all deployments: one queue per thread (runs execute one at a time, in the order the server received
 * them), the multitask strategies, cancellation, timeouts, stateless runs, joins, and resumption after a restart.
 *
 * A stream must attach to a new run in the same synchronous turn that created it: execution starts on a later
 * turn, so the stream sees the run from its first event.
 */
import { randomUUID } from 'node:crypto';
import type { Assistant, MultitaskStrategy, Run, RunCreate, StreamErrorChunk } from '../../../api/schemas/agent-server';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';
import type { AssistantStore } from '../store/assistants';
import { isoNow } from '../store/json';
import type { RunStore, StoredRun } from '../store/runs';
import type { ThreadStore } from '../store/threads';
import { executeRun, runMetadataOf, type RunOutcome, type RunSpec, type ServedDeployment } from './run-executor';
import { RunStopper } from './run-stop';
import { RunStream } from './run-stream';
import { RunTraceBuilder, storeTrace, type RunTraceSink } from './run-trace';

/** A run during which the process died this many times (a crash, a SIGKILL) is not started again. */
export const MAX_RUN_CRASHES = 3;

/** The error that ends the streams of a run cut by a stop of the platform. */
const SHUTDOWN_RESUMED = 'The platform stopped during the run: it runs again when the platform starts (join it then)';
const SHUTDOWN_LOST = 'The platform stopped during the run: a run without a thread is not run again';
const SHUTDOWN_QUEUED = 'The platform stopped while the run was queued: it runs when the platform starts (join it then)';

/** What the run manager uses. */
export interface RunManagerDeps {
  readonly db: PlatformDatabase;
  readonly clock: Clock;
  readonly assistants: AssistantStore;
  readonly threads: ThreadStore;
  readonly runs: RunStore;
  /** Finds a deployment that still serves (to resume its runs after a restart). */
  readonly deploymentById: (deploymentId: string) => ServedDeployment | undefined;
  /** Where traces go; runs are not traced without one. */
  readonly traceSink?: RunTraceSink;
  /** A run still going after this long ends as `timeout`. */
  readonly runTimeoutMs: number;
  /** Receives one line per unexpected problem. */
  readonly log?: (line: string) => void;
  /** Told when a caller of {@link RunManager.waitForEnd} starts to wait (the run has not ended yet). */
  readonly onWaitForEnd?: (runId: string) => void;
}

/** The stop actions of a cancel request and of the `interrupt`/`rollback` strategies. */
export type CancelAction = 'interrupt' | 'rollback';

/** How a run that is gone was removed: rolled back, or deleted with its thread. */
export type RunRemoval = 'rollback' | 'delete';

/** Owns every run's execution. */
export class RunManager {
  private readonly streams = new Map<string, RunStream>();
  private readonly stoppers = new Map<string, RunStopper>();
  private readonly executions = new Set<Promise<void>>();
  private readonly waiters = new Map<string, ((removal?: RunRemoval) => void)[]>();
  private readonly draining = new Set<string>();
  private stopping = false;

  constructor(private readonly deps: RunManagerDeps) {}

  /**
   * Puts back runs a process that died left running (failing those it died during {@link MAX_RUN_CRASHES} times),
   * and starts every thread that has pending runs.
   */
  start(): void {
    this.stopping = false;
    this.deps.db.transaction(() => {
      for (const abandoned of this.deps.runs.requeueCrashed(MAX_RUN_CRASHES)) {
        if (abandoned.run.thread_id) this.deps.threads.setStatus(abandoned.deploymentId, abandoned.run.thread_id, 'error');
      }
    })();
    for (const { deploymentId, threadId } of this.deps.runs.threadsWithPendingRuns()) this.drain(deploymentId, threadId);
  }

  /**
   * Stops every execution (their runs resume on the next start) and waits for them to wind down; the streams of runs
   * still queued end with the same error as those of the runs stopped.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const stopper of this.stoppers.values()) stopper.stop('shutdown');
    await Promise.allSettled([...this.executions]);
    for (const stream of this.streams.values()) stream.end({ error: 'PlatformShutdown', message: SHUTDOWN_QUEUED });
    this.streams.clear();
    // joiners of queued runs are answered now (the join answers that the run has not ended)
    for (const resolve of [...this.waiters.values()].flat()) resolve();
    this.waiters.clear();
    // a turn of the event loop, so the responses write the events just sent before the server drops its connections
    await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** New runs are refused while the platform stops: nothing would run them, or stop them. */
  private refuseWhileStopping(): void {
    if (this.stopping) throw new HttpError(503, 'The platform is stopping: start the run again once it has started');
  }

  /**
   * Creates a run on a thread (first the thread, with `if_not_exists: create`), applying its multitask strategy to the
   * runs already there: `enqueue` (default) queues it, `reject` refuses with 409, `interrupt` stops them as
   * `interrupted`, `rollback` stops and deletes them with their checkpoints.
   */
  createThreadRun(deployment: ServedDeployment, threadId: string, assistant: Assistant, body: RunCreate): Run {
    this.refuseWhileStopping();
    if (body.if_not_exists === 'create') this.deps.threads.create(deployment.id, { thread_id: threadId, if_exists: 'do_nothing' });
    else this.deps.threads.assertExists(deployment.id, threadId);
    const strategy: MultitaskStrategy = body.multitask_strategy ?? 'enqueue';
    const run = this.newRun(threadId, assistant, body, strategy);
    this.deps.db.transaction(() => {
      const inflight = this.deps.runs.inflight(deployment.id, threadId);
      if (inflight.length > 0 && strategy === 'reject') {
        throw new HttpError(
          409,
          `Thread ${threadId} is already running a run; wait for it to finish or use another multitask_strategy`,
        );
      }
      this.deps.runs.insert(deployment.id, run);
      if (strategy === 'interrupt' || strategy === 'rollback')
        for (const stored of inflight) this.stopRun(stored, strategy);
    })();
    this.streamOf(run.run_id, threadId);
    this.drain(deployment.id, threadId);
    return run;
  }

  /** Creates a stateless run (no thread, nothing stored) and starts it on the next turn. */
  startStatelessRun(deployment: ServedDeployment, assistant: Assistant, body: RunCreate): Run {
    this.refuseWhileStopping();
    const run = this.newRun(null, assistant, body, null);
    this.streamOf(run.run_id, null);
    // known at once, so that a stop that comes before the run starts (its client gone) stops it as it starts
    const stopper = new RunStopper();
    this.stoppers.set(run.run_id, stopper);
    const spec: RunSpec = { run, deployment, assistant, attempt: 1 };
    this.track(Promise.resolve().then(() => this.execute(spec, stopper)));
    return run;
  }

  /** The live stream of a run that has not ended, else undefined; 503 while the platform stops. */
  liveStream(runId: string): RunStream | undefined {
    if (this.stopping) throw new HttpError(503, 'The platform is stopping: join the run again once it has started');
    const stream = this.streams.get(runId);
    if (stream) return stream;
    const stored = this.deps.runs.find(runId);
    return stored && (stored.run.status === 'pending' || stored.run.status === 'running')
      ? this.streamOf(runId, stored.run.thread_id)
      : undefined;
  }

  /** Stops a run that has not ended (running or still queued) with `cause`; an ended run is left alone. */
  stopLive(runId: string, cause: CancelAction | 'disconnect'): void {
    const stopper = this.stoppers.get(runId);
    if (stopper) {
      stopper.stop(cause);
      return;
    }
    const stored = this.deps.runs.find(runId);
    if (stored?.run.status === 'pending') this.stopRun(stored, cause === 'rollback' ? 'rollback' : 'interrupt');
  }

  /**
   * Deletes a thread with its runs, checkpoints and crons; 404 when it is not there. Its runs in flight are stopped
   * first, and nothing of them is written afterwards: not to the thread, nor to one made again with the same id.
   */
  deleteThread(deploymentId: string, threadId: string): void {
    this.deps.threads.assertExists(deploymentId, threadId);
    for (const stored of this.deps.runs.inflight(deploymentId, threadId)) this.stopRun(stored, 'delete');
    this.deps.threads.delete(deploymentId, threadId);
  }

  /**
   * Cancels a pending or running run of a thread. A run that has already ended is left as it ended (its status stays):
   * the cancel does nothing, as the agent server's own does (no error: a cancel that crosses the run's end is no
   * mistake of the caller's).
   */
  cancel(deploymentId: string, threadId: string, runId: string, action: CancelAction): void {
    const stored = this.deps.runs.get(deploymentId, threadId, runId);
    if (stored.run.status !== 'pending' && stored.run.status !== 'running') return;
    this.stopRun(stored, action);
  }

  /**
   * Resolves once the run has ended (at once when it already has), with how it was removed when it ended so: rolled
   * back, or deleted with its thread.
   */
  waitForEnd(runId: string): Promise<RunRemoval | undefined> {
    if (this.stopping) return Promise.resolve(undefined);
    const stored = this.deps.runs.find(runId);
    const live =
      this.streams.has(runId) || (stored && (stored.run.status === 'pending' || stored.run.status === 'running'));
    if (!live) return Promise.resolve(undefined);
    const ended = new Promise<RunRemoval | undefined>((resolve) =>
      this.waiters.set(runId, [...(this.waiters.get(runId) ?? []), resolve]),
    );
    this.deps.onWaitForEnd?.(runId);
    return ended;
  }

  private newRun(
    threadId: string | null,
    assistant: Assistant,
    body: RunCreate,
    strategy: MultitaskStrategy | null,
  ): Run {
    const now = isoNow(this.deps.clock);
    return {
      run_id: randomUUID(),
      thread_id: threadId,
      assistant_id: assistant.assistant_id,
      created_at: now,
      updated_at: now,
      status: 'pending',
      metadata: body.metadata ?? {},
      multitask_strategy: strategy,
      kwargs: {
        input: body.input ?? null,
        config: body.config ?? {},
        stream_mode: body.stream_mode ?? 'values',
        stream_subgraphs: body.stream_subgraphs ?? false,
      },
    };
  }

  /** Stops a run: a running one when its execution winds down (see {@link settle}), a queued one at once. */
  private stopRun(stored: StoredRun, action: CancelAction | 'delete'): void {
    const stopper = this.stoppers.get(stored.run.run_id);
    if (stopper) {
      stopper.stop(action);
      return;
    }
    // a queued run of a deleted thread goes with it
    if (action === 'rollback') this.deps.runs.delete(stored.run.run_id);
    else if (action === 'interrupt') this.deps.runs.setStatus(stored.run.run_id, 'interrupted');
    this.finish(stored.run.run_id, action === 'interrupt' ? undefined : action);
  }

  private streamOf(runId: string, threadId: string | null): RunStream {
    let stream = this.streams.get(runId);
    if (!stream) {
      stream = new RunStream(threadId);
      this.streams.set(runId, stream);
    }
    return stream;
  }

  /** Executes a thread's pending runs one by one, oldest first, until none is left. */
  private drain(deploymentId: string, threadId: string): void {
    // thread ids are each deployment's own
    const key = `${deploymentId}/${threadId}`;
    if (this.draining.has(key) || this.stopping) return;
    this.draining.add(key);
    this.track(
      (async () => {
        try {
          await null; // lets the creator attach its stream first
          for (
            let next = this.deps.runs.nextPending(deploymentId, threadId);
            next && !this.stopping;
            next = this.deps.runs.nextPending(deploymentId, threadId)
          ) {
            await this.executeStored(next);
          }
        } finally {
          this.draining.delete(key);
        }
      })(),
    );
  }

  private async executeStored(stored: StoredRun): Promise<void> {
    const deployment = this.deps.deploymentById(stored.deploymentId);
    let assistant: Assistant | undefined;
    try {
      assistant = deployment && this.deps.assistants.get(deployment.id, stored.run.assistant_id);
    } catch {
      assistant = undefined;
    }
    if (!deployment || !assistant) {
      // the run fails as any failed run does: its status, its thread's, and an error event on its streams
      const error: StreamErrorChunk = { error: 'NotFound', message: "the run's deployment or assistant no longer exists" };
      this.deps.runs.setStatus(stored.run.run_id, 'error', error);
      if (stored.run.thread_id) this.deps.threads.setStatus(stored.deploymentId, stored.run.thread_id, 'error');
      this.streams.get(stored.run.run_id)?.end(error);
      this.finish(stored.run.run_id);
      return;
    }
    await this.execute({ run: stored.run, deployment, assistant, attempt: stored.attempt });
  }

  private async execute(spec: RunSpec, stopper = new RunStopper()): Promise<void> {
    const { run } = spec;
    const { clock, threads, runs } = this.deps;
    this.stoppers.set(run.run_id, stopper);
    if (run.thread_id) {
      runs.setStatus(run.run_id, 'running');
      threads.setStatus(spec.deployment.id, run.thread_id, 'busy');
    }
    const timer = clock.setTimeout(() => stopper.stop('timeout'), this.deps.runTimeoutMs);
    const trace = new RunTraceBuilder({
      runId: run.run_id,
      graphId: spec.assistant.graph_id,
      projectName: spec.deployment.name,
      input: (run.kwargs.input as Record<string, unknown> | null) ?? {},
      metadata: runMetadataOf(spec),
      startTime: clock.now(),
    });
    let outcome: RunOutcome;
    try {
      outcome = await executeRun(spec, this.streamOf(run.run_id, run.thread_id), stopper, trace, {
        clock,
        threads,
      });
    } finally {
      clock.clearTimeout(timer);
      this.stoppers.delete(run.run_id);
    }
    this.settle(spec, outcome, trace);
  }

  /**
   * Records how a run ended, writes its trace, ends its streams and wakes its joiners. A run whose thread was deleted
   * records nothing: its thread and its row are gone, and a thread of the same id may have been made since.
   */
  private settle(spec: RunSpec, outcome: RunOutcome, trace: RunTraceBuilder): void {
    const { run, deployment } = spec;
    const { runs, threads } = this.deps;
    let error: StreamErrorChunk | undefined;
    if (outcome.kind === 'error') error = outcome.error;
    if (outcome.kind === 'stopped' && outcome.cause === 'timeout') {
      error = {
        error: 'TimeoutError',
        message: `Run ${run.run_id} exceeded its timeout of ${this.deps.runTimeoutMs} ms`,
      };
    }
    const shutdown = outcome.kind === 'stopped' && outcome.cause === 'shutdown';
    const stopped = outcome.kind === 'stopped' ? outcome.cause : undefined;
    const removal = stopped === 'rollback' || stopped === 'delete' ? stopped : undefined;
    // a stream cut by a stop of the platform says so, rather than end as a finished run's does
    if (shutdown) error = { error: 'PlatformShutdown', message: run.thread_id ? SHUTDOWN_RESUMED : SHUTDOWN_LOST };
    // back in the queue now: only a process that dies leaves a run `running` (see RunStore.requeueCrashed)
    if (shutdown && run.thread_id) runs.requeue(run.run_id);
    if (run.thread_id && !shutdown && removal !== 'delete') {
      if (removal === 'rollback') {
        threads.deleteCheckpointsOfRun(run.run_id);
        runs.delete(run.run_id);
      } else {
        const status =
          outcome.kind === 'success'
            ? 'success'
            : outcome.kind === 'error'
            ? 'error'
            : outcome.cause === 'timeout'
            ? 'timeout'
            : 'interrupted';
        runs.setStatus(run.run_id, status, error);
      }
      threads.setStatus(deployment.id, run.thread_id, error ? 'error' : 'idle');
    }
    // a run on a thread runs again at the next start, and is traced then; a stateless one ends here
    if (!shutdown || !run.thread_id) this.writeTrace(deployment, trace, outcome, error);
    this.streams.get(run.run_id)?.end(error);
    this.finish(run.run_id, removal);
  }

  private writeTrace(
    deployment: ServedDeployment,
    trace: RunTraceBuilder,
    outcome: RunOutcome,
    error: StreamErrorChunk | undefined,
  ): void {
    if (!this.deps.traceSink) return;
    const stopped = outcome.kind === 'stopped' ? `run stopped (${outcome.cause})` : undefined;
    const runs = trace.finish(this.deps.clock.now(), {
      status: outcome.kind === 'success' ? 'success' : 'error',
      error: error ? `${error.error}: ${error.message}` : stopped,
      outputs: outcome.kind === 'success' ? outcome.values : undefined,
    });
    storeTrace(this.deps.traceSink, deployment.tenantId, runs, this.deps.log);
  }

  private finish(runId: string, removal?: RunRemoval): void {
    this.streams.get(runId)?.end();
    this.streams.delete(runId);
    for (const resolve of this.waiters.get(runId) ?? []) resolve(removal);
    this.waiters.delete(runId);
  }

  private track(execution: Promise<void>): void {
    const tracked = execution.catch((problem) =>
      this.deps.log?.(`agent server: run execution failed: ${(problem as Error).stack ?? problem}`),
    );
    this.executions.add(tracked);
    void tracked.finally(() => this.executions.delete(tracked));
  }
}
