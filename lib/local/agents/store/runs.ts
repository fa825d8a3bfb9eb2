/**
 * Runs of threads, in the order the server received them (`seq`). Stateless runs are never stored: they live in
 * the run manager's memory only.
 */
import type { MultitaskStrategy, Run, RunStatus } from '../../../api/schemas/agent-server';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';
import { fromJson, isoNow } from './json';

interface RunRow {
  run_id: string;
  deployment_id: string;
  thread_id: string;
  assistant_id: string;
  status: RunStatus;
  multitask_strategy: MultitaskStrategy | null;
  metadata: string;
  kwargs: string;
  attempt: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** A stored run with what the executor needs beyond the API record. */
export interface StoredRun {
  /** The API record. */
  readonly run: Run;
  /** Deployment the run belongs to. */
  readonly deploymentId: string;
  /** 1 for the first execution, incremented when a run is resumed after the process stopped. */
  readonly attempt: number;
}

const toStoredRun = (row: RunRow): StoredRun => ({
  deploymentId: row.deployment_id,
  attempt: row.attempt,
  run: {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: row.status,
    metadata: fromJson(row.metadata),
    multitask_strategy: row.multitask_strategy,
    kwargs: fromJson(row.kwargs),
  },
});

/** Thread-bound runs of all deployments. */
export class RunStore {
  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock) {}

  /** Stores a new pending run. */
  insert(deploymentId: string, run: Run): void {
    this.db
      .prepare(
        `INSERT INTO agent_runs (run_id, deployment_id, thread_id, assistant_id, status, multitask_strategy, metadata, kwargs,
         attempt, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
      )
      .run(
        run.run_id,
        deploymentId,
        run.thread_id,
        run.assistant_id,
        run.status,
        run.multitask_strategy,
        JSON.stringify(run.metadata),
        JSON.stringify(run.kwargs),
        run.created_at,
        run.updated_at,
      );
  }

  /** One run of a thread; 404 when it is not there. */
  get(deploymentId: string, threadId: string, runId: string): StoredRun {
    const row = this.db
      .prepare('SELECT * FROM agent_runs WHERE run_id = ? AND deployment_id = ? AND thread_id = ?')
      .get(runId, deploymentId, threadId) as RunRow | undefined;
    if (!row) throw new HttpError(404, `Run ${runId} not found`);
    return toStoredRun(row);
  }

  /** One run by id, wherever it is; undefined when deleted. */
  find(runId: string): StoredRun | undefined {
    const row = this.db.prepare('SELECT * FROM agent_runs WHERE run_id = ?').get(runId) as RunRow | undefined;
    return row && toStoredRun(row);
  }

  /** Runs of a thread, newest first; with `statuses`, only the runs in one of them. */
  list(deploymentId: string, threadId: string, limit: number, offset: number, statuses?: readonly RunStatus[]): Run[] {
    const byStatus = statuses ? ` AND status IN (${statuses.map(() => '?').join(', ')})` : '';
    const rows = this.db
      .prepare(`SELECT * FROM agent_runs WHERE deployment_id = ? AND thread_id = ?${byStatus} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(deploymentId, threadId, ...(statuses ?? []), limit, offset) as RunRow[];
    return rows.map((row) => toStoredRun(row).run);
  }

  /** The runs of a deployment in one of `statuses`, oldest first. */
  ofDeployment(deploymentId: string, statuses: readonly RunStatus[]): StoredRun[] {
    const rows = this.db
      .prepare(`SELECT * FROM agent_runs WHERE deployment_id = ? AND status IN (${statuses.map(() => '?').join(', ')}) ORDER BY seq`)
      .all(deploymentId, ...statuses) as RunRow[];
    return rows.map(toStoredRun);
  }

  /** The threads an assistant has run on. */
  threadsOfAssistant(deploymentId: string, assistantId: string): string[] {
    return this.db
      .prepare('SELECT DISTINCT thread_id FROM agent_runs WHERE deployment_id = ? AND assistant_id = ? AND thread_id IS NOT NULL')
      .pluck()
      .all(deploymentId, assistantId) as string[];
  }

  /** Pending and running runs of a thread, oldest first. */
  inflight(deploymentId: string, threadId: string): StoredRun[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM agent_runs WHERE deployment_id = ? AND thread_id = ? AND status IN ('pending', 'running') ORDER BY seq`,
      )
      .all(deploymentId, threadId) as RunRow[];
    return rows.map(toStoredRun);
  }

  /** The oldest pending run of a thread: the next to execute. */
  nextPending(deploymentId: string, threadId: string): StoredRun | undefined {
    const row = this.db
      .prepare(`SELECT * FROM agent_runs WHERE deployment_id = ? AND thread_id = ? AND status = 'pending' ORDER BY seq LIMIT 1`)
      .get(deploymentId, threadId) as RunRow | undefined;
    return row && toStoredRun(row);
  }

  /** Threads that have pending runs (to resume after a restart). */
  threadsWithPendingRuns(): { deploymentId: string; threadId: string }[] {
    return (
      this.db.prepare(`SELECT DISTINCT deployment_id, thread_id FROM agent_runs WHERE status = 'pending'`).all() as {
        deployment_id: string;
        thread_id: string;
      }[]
    ).map((row) => ({ deploymentId: row.deployment_id, threadId: row.thread_id }));
  }

  /** A run a stop of the platform cut off goes back to the queue with the next attempt number. */
  requeue(runId: string): void {
    this.db
      .prepare(`UPDATE agent_runs SET status = 'pending', attempt = attempt + 1, updated_at = ? WHERE run_id = ? AND status = 'running'`)
      .run(isoNow(this.clock), runId);
  }

  /**
   * Runs left `running` by a process that died (a stop puts its runs back itself, see {@link requeue}) go back to
   * `pending` with the next attempt number, but those during which a process died `maxCrashes` times, which fail
   * (`error`): a run that kills the process each time it runs would otherwise be started at every start, and kill it
   * again. Returns the runs that failed.
   */
  requeueCrashed(maxCrashes: number): StoredRun[] {
    const now = isoNow(this.clock);
    this.db.prepare(`UPDATE agent_runs SET crashes = crashes + 1 WHERE status = 'running'`).run();
    const abandoned = (this.db.prepare(`SELECT * FROM agent_runs WHERE status = 'running' AND crashes >= ?`).all(maxCrashes) as RunRow[]).map(toStoredRun);
    const error = {
      error: 'RunInterrupted',
      message: `The platform stopped unexpectedly while this run was running, ${maxCrashes} times: it is not started again`,
    };
    this.db
      .prepare(`UPDATE agent_runs SET status = 'error', error = ?, updated_at = ? WHERE status = 'running' AND crashes >= ?`)
      .run(JSON.stringify(error), now, maxCrashes);
    this.db.prepare(`UPDATE agent_runs SET status = 'pending', attempt = attempt + 1, updated_at = ? WHERE status = 'running'`).run(now);
    return abandoned;
  }

  /** Records a status (and the error of a failed run). */
  setStatus(runId: string, status: RunStatus, error?: { error: string; message: string }): void {
    this.db
      .prepare('UPDATE agent_runs SET status = ?, error = ?, updated_at = ? WHERE run_id = ?')
      .run(status, error ? JSON.stringify(error) : null, isoNow(this.clock), runId);
  }

  /** The error a failed run recorded. */
  errorOf(runId: string): { error: string; message: string } | null {
    const row = this.db.prepare('SELECT error FROM agent_runs WHERE run_id = ?').get(runId) as
      | { error: string | null }
      | undefined;
    return row?.error ? fromJson(row.error) : null;
  }

  /** Deletes a run (rollback). */
  delete(runId: string): void {
    this.db.prepare('DELETE FROM agent_runs WHERE run_id = ?').run(runId);
  }
}
