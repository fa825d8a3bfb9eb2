/**
 * What the thread calls do to a thread's checkpoints beyond what runs write: the state at a given checkpoint, a state
 * written by hand (a new checkpoint whose metadata says `source: update`), a checkpoint's metadata patched, a thread
 * copied with its checkpoints, and old checkpoints pruned.
 */
import { randomUUID } from 'node:crypto';
import type { Thread, ThreadCreate, ThreadState } from '../../../api/schemas/agent-server';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';
import type { GraphValues } from '../engine/events';
import { fromJson, isoNow } from './json';
import { checkpointState, type CheckpointRow, type ThreadStore } from './threads';

/** One update of a state written by hand: values, written as the node `asNode` when given. */
export interface StateUpdate {
  readonly values: GraphValues;
  readonly asNode?: string;
}

/** Applies one update to values (the graph's reducers). */
export type ApplyUpdate = (state: GraphValues, update: GraphValues) => GraphValues;

/** A state written by hand. */
export interface StateWrite {
  /** The checkpoint it builds on; the newest when undefined. */
  readonly checkpointId?: string;
  /** The updates, applied in order. */
  readonly updates: readonly StateUpdate[];
  readonly apply: ApplyUpdate;
}

/** Checkpoint-level operations on the threads of all deployments. */
export class ThreadCheckpoints {
  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock, private readonly threads: ThreadStore) {}

  /** The thread's state at a checkpoint; 404 for a checkpoint that is not the thread's. */
  stateAt(deploymentId: string, threadId: string, checkpointId: string): ThreadState {
    return checkpointState(threadId, this.checkpoint(deploymentId, threadId, checkpointId));
  }

  /**
   * Writes a new checkpoint: the base checkpoint's values with the updates applied, one step after it, its metadata
   * saying it came from an update (and what was written as which node). Returns the new checkpoint's id.
   */
  writeState(deploymentId: string, threadId: string, write: StateWrite): string {
    this.threads.assertExists(deploymentId, threadId);
    const base =
      write.checkpointId === undefined
        ? this.threads.latestCheckpoint(deploymentId, threadId)
        : this.checkpoint(deploymentId, threadId, write.checkpointId);
    const values = write.updates.reduce((state, update) => write.apply(state, update.values), base ? fromJson<GraphValues>(base.state) : {});
    const checkpointId = randomUUID();
    const metadata = { source: 'update', writes: writesOf(write.updates), parents: {} };
    this.insert(deploymentId, threadId, {
      checkpoint_id: checkpointId,
      parent_checkpoint_id: base?.checkpoint_id ?? null,
      run_id: '',
      step: base ? base.step + 1 : 0,
      state: JSON.stringify(values),
      // a run on the thread starts the graph from its start, with these values
      next: '[]',
      created_at: isoNow(this.clock),
      metadata: JSON.stringify(metadata),
    });
    this.touch(deploymentId, threadId);
    return checkpointId;
  }

  /**
   * Creates a thread whose state is written by hand, one checkpoint per superstep, all or nothing. A thread that
   * exists already (with `if_exists: do_nothing`) is answered as it is, its state left alone.
   */
  createWithState(deploymentId: string, body: ThreadCreate, supersteps: readonly (readonly StateUpdate[])[], apply: ApplyUpdate): Thread {
    return this.db.transaction(() => {
      const existed = body.thread_id !== undefined && this.threads.exists(deploymentId, body.thread_id.toLowerCase());
      const thread = this.threads.create(deploymentId, body);
      if (existed) return thread;
      for (const updates of supersteps) this.writeState(deploymentId, thread.thread_id, { updates, apply });
      return this.threads.get(deploymentId, thread.thread_id);
    })();
  }

  /** Merges metadata into that of the thread's newest checkpoint; 404 when the thread has none. */
  patchMetadata(deploymentId: string, threadId: string, metadata: Readonly<Record<string, unknown>>): void {
    this.threads.assertExists(deploymentId, threadId);
    const latest = this.threads.latestCheckpoint(deploymentId, threadId);
    if (!latest) throw new HttpError(404, `Thread ${threadId} has no checkpoint to patch`);
    const merged = { ...fromJson<object>(latest.metadata ?? '{}'), ...metadata };
    this.db.prepare('UPDATE agent_checkpoints SET metadata = ? WHERE seq = ?').run(JSON.stringify(merged), latest.seq);
  }

  /**
   * A new thread with the thread's metadata and its checkpoints (given new ids, since a checkpoint id names one
   * checkpoint of the platform; each keeps its parent, its values and its metadata, `run_id` included). Idle, with
   * no runs.
   */
  copy(deploymentId: string, threadId: string): Thread {
    const original = this.threads.get(deploymentId, threadId);
    return this.db.transaction(() => {
      const copy = this.threads.create(deploymentId, { metadata: original.metadata });
      const rows = this.db
        .prepare('SELECT * FROM agent_checkpoints WHERE deployment_id = ? AND thread_id = ? ORDER BY seq')
        .all(deploymentId, threadId) as CheckpointRow[];
      const newIds = new Map(rows.map((row) => [row.checkpoint_id, randomUUID()]));
      for (const row of rows) {
        const { seq: _seq, ...rest } = row;
        // the copy's checkpoints are no run's: rolling back or retrying the original's run leaves them be
        const metadata = { ...(row.run_id ? { run_id: row.run_id } : {}), ...fromJson<object>(row.metadata ?? '{}') };
        this.insert(deploymentId, copy.thread_id, {
          ...rest,
          checkpoint_id: newIds.get(row.checkpoint_id) as string,
          parent_checkpoint_id: row.parent_checkpoint_id === null ? null : (newIds.get(row.parent_checkpoint_id) ?? null),
          run_id: '',
          metadata: JSON.stringify(metadata),
        });
      }
      return this.threads.get(deploymentId, copy.thread_id);
    })();
  }

  /** Removes every checkpoint of the thread but its newest. */
  keepLatest(deploymentId: string, threadId: string): void {
    const latest = this.threads.latestCheckpoint(deploymentId, threadId);
    if (!latest) return;
    this.db
      .prepare('DELETE FROM agent_checkpoints WHERE deployment_id = ? AND thread_id = ? AND seq < ?')
      .run(deploymentId, threadId, latest.seq);
    this.db.prepare('UPDATE agent_checkpoints SET parent_checkpoint_id = NULL WHERE seq = ?').run(latest.seq);
  }

  private checkpoint(deploymentId: string, threadId: string, checkpointId: string): CheckpointRow {
    this.threads.assertExists(deploymentId, threadId);
    const row = this.db
      .prepare('SELECT * FROM agent_checkpoints WHERE deployment_id = ? AND thread_id = ? AND checkpoint_id = ?')
      .get(deploymentId, threadId, checkpointId) as CheckpointRow | undefined;
    if (!row) throw new HttpError(404, `Checkpoint ${checkpointId} of thread ${threadId} not found`);
    return row;
  }

  private insert(deploymentId: string, threadId: string, row: Omit<CheckpointRow, 'seq'>): void {
    this.db
      .prepare(
        `INSERT INTO agent_checkpoints
         (checkpoint_id, deployment_id, thread_id, parent_checkpoint_id, run_id, step, state, next, created_at, metadata)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.checkpoint_id,
        deploymentId,
        threadId,
        row.parent_checkpoint_id,
        row.run_id,
        row.step,
        row.state,
        row.next,
        row.created_at,
        row.metadata,
      );
  }

  /** A state written by hand leaves the thread idle (no run is going: the update waits for none), as the LangGraph server's. */
  private touch(deploymentId: string, threadId: string): void {
    this.db
      .prepare("UPDATE agent_threads SET status = 'idle', updated_at = ? WHERE deployment_id = ? AND thread_id = ?")
      .run(isoNow(this.clock), deploymentId, threadId);
  }
}

/** What an update checkpoint's metadata says was written, by node: the values, or a list when a node wrote more than once. */
function writesOf(updates: readonly StateUpdate[]): Record<string, unknown> | null {
  const byNode = new Map<string, GraphValues[]>();
  for (const { asNode, values } of updates) if (asNode) byNode.set(asNode, [...(byNode.get(asNode) ?? []), values]);
  if (byNode.size === 0) return null;
  return Object.fromEntries([...byNode].map(([node, written]) => [node, written.length === 1 ? written[0] : written]));
}
