/**
 * Zod schemas of the agent server's thread calls beyond create, get, search and history: a thread's metadata
 * updated, threads counted and pruned, a state written or its metadata patched, a state read at a checkpoint. Paths
 * and bodies are those of the LangGraph agent server API.
 */
import { z } from 'zod';
import { Checkpoint, ThreadCreate, ThreadSearch } from './agent-server';

const JsonObject = z.record(z.string(), z.unknown());

/**
 * Body of `POST /threads` with the state to start from: each superstep's updates (values written as a node) make
 * one checkpoint. A `command` is not taken by the local server (its graphs have no interrupts to resume).
 */
export const ThreadCreateWithState = ThreadCreate.extend({
  supersteps: z
    .array(
      z.object({
        updates: z.array(
          z.object({
            values: JsonObject.nullish(),
            command: z.null().optional(),
            as_node: z.string().min(1),
          }),
        ),
      }),
    )
    .nullish(),
});
export type ThreadCreateWithState = z.infer<typeof ThreadCreateWithState>;

/** Body of `PATCH /threads/{id}`: metadata merged into the thread's. */
export const ThreadUpdate = z.object({ metadata: JsonObject.nullish() });
export type ThreadUpdate = z.infer<typeof ThreadUpdate>;

/** Body of `POST /threads/count`: the filters of a search. */
export const ThreadCount = ThreadSearch.pick({ metadata: true, values: true, status: true });
export type ThreadCount = z.infer<typeof ThreadCount>;

/** The fields a thread search may select. */
export const THREAD_FIELDS = ['thread_id', 'created_at', 'updated_at', 'metadata', 'status', 'values'] as const;

/** The fields a state read may select, besides `values.<key>`. */
export const THREAD_STATE_FIELDS = ['values', 'next', 'tasks', 'checkpoint', 'parent_checkpoint', 'metadata', 'created_at'] as const;

/** A checkpoint named in a request: its id is what the local server reads (the namespace of a root graph is ''). */
export const CheckpointRef = z.looseObject({
  checkpoint_id: z.string().nullish(),
  checkpoint_ns: z.string().nullish(),
  thread_id: z.string().nullish(),
});
export type CheckpointRef = z.infer<typeof CheckpointRef>;

/**
 * Body of `POST /threads/{id}/state`: values written as if the node `as_node` had written them (through the
 * graph's reducers), on top of the checkpoint named (`checkpoint` or `checkpoint_id`) or the newest one. A list
 * of values is applied in order.
 */
export const ThreadStateUpdate = z.object({
  values: z.union([JsonObject, z.array(JsonObject)]).nullish(),
  checkpoint: CheckpointRef.nullish(),
  checkpoint_id: z.string().nullish(),
  as_node: z.string().min(1).nullish(),
});
export type ThreadStateUpdate = z.infer<typeof ThreadStateUpdate>;

/** What `POST /threads/{id}/state` answers: the new checkpoint (also under the older names `configurable`, `checkpoint_id`). */
export const ThreadStateUpdateResponse = z.object({
  checkpoint: Checkpoint,
  configurable: Checkpoint.optional(),
  checkpoint_id: z.string().optional(),
});
export type ThreadStateUpdateResponse = z.infer<typeof ThreadStateUpdateResponse>;

/** Body of `PATCH /threads/{id}/state`: metadata merged into that of the thread's newest checkpoint. */
export const ThreadStatePatch = z.object({ metadata: JsonObject });
export type ThreadStatePatch = z.infer<typeof ThreadStatePatch>;

/** Body of `POST /threads/{id}/state/checkpoint`: the state at a checkpoint. */
export const ThreadStateCheckpointRequest = z.object({
  checkpoint: CheckpointRef,
  subgraphs: z.boolean().nullish(),
  select: z.array(z.string()).nullish(),
});
export type ThreadStateCheckpointRequest = z.infer<typeof ThreadStateCheckpointRequest>;

/**
 * Body of `POST /threads/prune`: `delete` removes the threads with their runs; `keep_latest` keeps each thread and
 * its newest checkpoint, removing the older ones.
 */
export const ThreadPrune = z.object({
  thread_ids: z.array(z.guid()),
  strategy: z.enum(['delete', 'keep_latest']).default('delete'),
});
export type ThreadPrune = z.infer<typeof ThreadPrune>;

export const ThreadPruneResponse = z.object({ pruned_count: z.number().int() });
