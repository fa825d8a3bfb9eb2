/**
 * Threads and their checkpoints. A thread's state is its newest checkpoint; every checkpoint records the run that
 * wrote it, so a rolled-back run's effects are removed by deleting its checkpoints. Thread ids are each deployment's
 * own: two deployments may hold a thread of the same id, and neither sees the other's.
 */
import { randomUUID } from 'node:crypto';
import type { Thread, ThreadCreate, ThreadSearch, ThreadState, ThreadStatus } from '../../../api/schemas/agent-server';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';
import type { GraphValues } from '../engine/events';
import { fromJson, holdsAll, isoNow } from './json';

interface ThreadRow {
  thread_id: string;
  metadata: string;
  status: ThreadStatus;
  created_at: string;
  updated_at: string;
}

/** A stored checkpoint. `run_id` is empty for one no run wrote (a state update, a copy of another thread's). */
export interface CheckpointRow {
  seq: number;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  run_id: string;
  step: number;
  state: string;
  next: string;
  created_at: string;
  /** JSON of the metadata beyond run, step and source (and over them), or null. */
  metadata: string | null;
}

/** A checkpoint to store. */
export interface CheckpointWrite {
  readonly checkpointId: string;
  readonly parentCheckpointId: string | null;
  readonly runId: string;
  readonly step: number;
  readonly values: GraphValues;
  readonly next: readonly string[];
}

/** Threads and checkpoints of all deployments. */
export class ThreadStore {
  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock) {}

  /** Creates a thread; 409 when the deployment has one of that id, unless `if_exists` is `do_nothing`. */
  create(deploymentId: string, body: ThreadCreate): Thread {
    // ids are kept in lower case, as paths are read
    const threadId = (body.thread_id ?? randomUUID()).toLowerCase();
    const existing = this.db
      .prepare('SELECT 1 FROM agent_threads WHERE deployment_id = ? AND thread_id = ?')
      .get(deploymentId, threadId);
    if (existing) {
      if (body.if_exists === 'do_nothing') return this.get(deploymentId, threadId);
      throw new HttpError(409, `Thread ${threadId} already exists`);
    }
    const now = isoNow(this.clock);
    this.db
      .prepare(
        'INSERT INTO agent_threads (thread_id, deployment_id, metadata, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(threadId, deploymentId, JSON.stringify(body.metadata ?? {}), 'idle', now, now);
    return this.get(deploymentId, threadId);
  }

  /** One thread with its current values; 404 when it is not in the deployment. */
  get(deploymentId: string, threadId: string): Thread {
    const row = this.row(deploymentId, threadId);
    const latest = this.latestCheckpoint(deploymentId, threadId);
    return {
      thread_id: row.thread_id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      metadata: fromJson(row.metadata),
      status: row.status,
      values: latest ? fromJson(latest.state) : null,
      state_updated_at: latest?.created_at ?? row.created_at,
      // the built-in graphs never interrupt
      interrupts: {},
    };
  }

  /**
   * Threads of the deployment whose metadata and current values hold every given key/value, in `status` when given;
   * sorted by `sort_by` (default `created_at`) in `sort_order` (default `desc`), then paged.
   */
  search(deploymentId: string, query: ThreadSearch): Thread[] {
    const key = query.sort_by ?? 'created_at';
    const order = query.sort_order === 'asc' ? 1 : -1;
    const offset = query.offset ?? 0;
    return this.matching(deploymentId, query)
      .sort((a, b) => order * (a.thread[key] < b.thread[key] ? -1 : a.thread[key] > b.thread[key] ? 1 : a.made - b.made))
      .slice(offset, offset + (query.limit ?? 10))
      .map(({ thread }) => thread);
  }

  /** How many threads of the deployment a search with these filters finds, whatever its page. */
  count(deploymentId: string, query: Pick<ThreadSearch, 'metadata' | 'values' | 'status'>): number {
    return this.matching(deploymentId, query).length;
  }

  /** Merges `metadata` into the thread's (a key given null keeps null, as the LangGraph server merges). */
  update(deploymentId: string, threadId: string, metadata: Readonly<Record<string, unknown>>): Thread {
    const row = this.row(deploymentId, threadId);
    this.db
      .prepare('UPDATE agent_threads SET metadata = ?, updated_at = ? WHERE deployment_id = ? AND thread_id = ?')
      .run(JSON.stringify({ ...fromJson<object>(row.metadata), ...metadata }), isoNow(this.clock), deploymentId, threadId);
    return this.get(deploymentId, threadId);
  }

  /** Threads of the deployment that pass the search's filters, each with its place in the order they were made. */
  private matching(deploymentId: string, query: Pick<ThreadSearch, 'metadata' | 'values' | 'status' | 'ids'>): { thread: Thread; made: number }[] {
    // in the order they were made, which also orders threads of the same sort value (made in the same millisecond)
    const ids = this.db
      .prepare('SELECT thread_id FROM agent_threads WHERE deployment_id = ? ORDER BY rowid')
      .pluck()
      .all(deploymentId) as string[];
    const wanted = query.ids && new Set(query.ids.map((id) => id.toLowerCase()));
    return ids
      .map((threadId, made) => ({ threadId, made }))
      .filter(({ threadId }) => !wanted || wanted.has(threadId))
      .map(({ threadId, made }) => ({ thread: this.get(deploymentId, threadId), made }))
      .filter(({ thread }) => (query.status === undefined || thread.status === query.status) && holdsAll(thread.metadata, query.metadata) && holdsAll(thread.values, query.values));
  }

  /** Whether the thread exists in the deployment. */
  exists(deploymentId: string, threadId: string): boolean {
    return this.db.prepare('SELECT 1 FROM agent_threads WHERE deployment_id = ? AND thread_id = ?').get(deploymentId, threadId) !== undefined;
  }

  /** Throws 404 unless the thread exists in the deployment. */
  assertExists(deploymentId: string, threadId: string): void {
    this.row(deploymentId, threadId);
  }

  /** Deletes a thread with its runs, checkpoints and crons. */
  delete(deploymentId: string, threadId: string): void {
    this.row(deploymentId, threadId);
    this.db.transaction(() => {
      // its crons go with it, rather than fail at every firing (its runs and checkpoints go by ON DELETE CASCADE)
      this.db.prepare('DELETE FROM agent_crons WHERE deployment_id = ? AND thread_id = ?').run(deploymentId, threadId);
      this.db.prepare('DELETE FROM agent_threads WHERE deployment_id = ? AND thread_id = ?').run(deploymentId, threadId);
    })();
  }

  /** Records the thread's status. */
  setStatus(deploymentId: string, threadId: string, status: ThreadStatus): void {
    this.db
      .prepare('UPDATE agent_threads SET status = ?, updated_at = ? WHERE deployment_id = ? AND thread_id = ?')
      .run(status, isoNow(this.clock), deploymentId, threadId);
  }

  /** The thread's state: the newest checkpoint, or empty values when no run has written one. */
  state(deploymentId: string, threadId: string): ThreadState {
    this.row(deploymentId, threadId);
    const latest = this.latestCheckpoint(deploymentId, threadId);
    if (!latest)
      return {
        values: {},
        next: [],
        tasks: [],
        checkpoint: null,
        parent_checkpoint: null,
        metadata: {},
        created_at: null,
      };
    return checkpointState(threadId, latest);
  }

  /**
   * The thread's states, newest first: at most `limit`, older than the checkpoint `beforeId` when given, and whose
   * metadata holds every key/value of `metadata`. 404 for a `beforeId` that is no checkpoint of the thread.
   */
  history(deploymentId: string, threadId: string, query: { limit: number; beforeId?: string; metadata?: Record<string, unknown> }): ThreadState[] {
    this.row(deploymentId, threadId);
    let beforeSeq = Number.MAX_SAFE_INTEGER;
    if (query.beforeId !== undefined) {
      const before = this.db
        .prepare('SELECT seq FROM agent_checkpoints WHERE deployment_id = ? AND thread_id = ? AND checkpoint_id = ?')
        .get(deploymentId, threadId, query.beforeId) as { seq: number } | undefined;
      if (!before) throw new HttpError(404, `Checkpoint ${query.beforeId} of thread ${threadId} not found`);
      beforeSeq = before.seq;
    }
    const rows = this.db
      .prepare('SELECT * FROM agent_checkpoints WHERE deployment_id = ? AND thread_id = ? AND seq < ? ORDER BY seq DESC')
      .iterate(deploymentId, threadId, beforeSeq) as IterableIterator<CheckpointRow>;
    const states: ThreadState[] = [];
    for (const row of rows) {
      const state = checkpointState(threadId, row);
      if (holdsAll(state.metadata, query.metadata)) states.push(state);
      if (states.length === query.limit) break;
    }
    return states;
  }

  /** Values and id of the newest checkpoint, the starting point of the thread's next run. */
  currentValues(deploymentId: string, threadId: string): { values: GraphValues; checkpointId: string | null } {
    const latest = this.latestCheckpoint(deploymentId, threadId);
    return latest
      ? { values: fromJson(latest.state), checkpointId: latest.checkpoint_id }
      : { values: {}, checkpointId: null };
  }

  /** Stores one checkpoint of a run. */
  saveCheckpoint(deploymentId: string, threadId: string, checkpoint: CheckpointWrite): void {
    this.db
      .prepare(
        `INSERT INTO agent_checkpoints
         (checkpoint_id, deployment_id, thread_id, parent_checkpoint_id, run_id, step, state, next, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        checkpoint.checkpointId,
        deploymentId,
        threadId,
        checkpoint.parentCheckpointId,
        checkpoint.runId,
        checkpoint.step,
        JSON.stringify(checkpoint.values),
        JSON.stringify(checkpoint.next),
        isoNow(this.clock),
      );
  }

  /** Removes every checkpoint a run wrote (its effects on the thread). */
  deleteCheckpointsOfRun(runId: string): void {
    this.db.prepare('DELETE FROM agent_checkpoints WHERE run_id = ?').run(runId);
  }

  /** The thread's newest checkpoint, if any. */
  latestCheckpoint(deploymentId: string, threadId: string): CheckpointRow | undefined {
    return this.db
      .prepare('SELECT * FROM agent_checkpoints WHERE deployment_id = ? AND thread_id = ? ORDER BY seq DESC LIMIT 1')
      .get(deploymentId, threadId) as CheckpointRow | undefined;
  }

  private row(deploymentId: string, threadId: string): ThreadRow {
    const row = this.db
      .prepare('SELECT * FROM agent_threads WHERE deployment_id = ? AND thread_id = ?')
      .get(deploymentId, threadId) as ThreadRow | undefined;
    if (!row) throw new HttpError(404, `Thread ${threadId} not found`);
    return row;
  }
}

/** A checkpoint as the thread's state at that point. */
export function checkpointState(threadId: string, row: CheckpointRow): ThreadState {
  const ref = (checkpointId: string | null) => (checkpointId ? { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId } : null);
  return {
    values: fromJson(row.state),
    next: fromJson(row.next),
    tasks: [],
    checkpoint: ref(row.checkpoint_id),
    parent_checkpoint: ref(row.parent_checkpoint_id),
    metadata: {
      ...(row.run_id ? { run_id: row.run_id } : {}),
      step: row.step,
      source: row.step < 0 ? 'input' : 'loop',
      ...(row.metadata === null ? {} : fromJson<object>(row.metadata)),
    },
    created_at: row.created_at,
  };
}
