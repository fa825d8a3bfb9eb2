/**
 * Zod schemas of the agent server (area C of the platform API): assistants, threads, runs, and the chunks of a run's
 * event stream (crons, the threads' own calls and the Store have files of their own). The client parses responses
 * with them; the local platform validates requests with them and answers what they accept.
 */
import { z } from 'zod';
import { openEnum } from './tolerant';

const JsonObject = z.record(z.string(), z.unknown());

/** Stream modes a run can be asked for. */
export const STREAM_MODES = [
  'values',
  'updates',
  'messages-tuple',
  'debug',
  'custom',
  'events',
  'checkpoints',
  'tasks',
  'messages',
  'tools',
  'lifecycle',
] as const;
export const StreamMode = z.enum(STREAM_MODES);
export type StreamMode = z.infer<typeof StreamMode>;

/** What happens to the runs already on a thread when a new run arrives. */
export const MULTITASK_STRATEGIES = ['enqueue', 'reject', 'interrupt', 'rollback'] as const;
export const MultitaskStrategy = z.enum(MULTITASK_STRATEGIES);
export type MultitaskStrategy = z.infer<typeof MultitaskStrategy>;

/** Run statuses. `pending` waits in the thread's queue; the last four are final. */
export const RUN_STATUSES = ['pending', 'running', 'success', 'error', 'timeout', 'interrupted'] as const;
export const RunStatus = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatus>;
/** Statuses after which a run never changes again. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['success', 'error', 'timeout', 'interrupted'];

export const THREAD_STATUSES = ['idle', 'busy', 'interrupted', 'error'] as const;
export const ThreadStatus = z.enum(THREAD_STATUSES);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

/** Run settings: `configurable` is read by the graph (the built-in model reads `reply_tokens`, `token_delay_ms`). */
export const RunnableConfig = z
  .object({
    configurable: JsonObject.optional(),
    tags: z.array(z.string()).optional(),
    recursion_limit: z.number().int().min(1).optional(),
  })
  // the agent server keeps an assistant's config as given (`run_name`, `metadata`, ...): nothing is dropped on reading
  .passthrough();
export type RunnableConfig = z.infer<typeof RunnableConfig>;

export const Assistant = z.object({
  assistant_id: z.string(),
  /** The deployment that serves the assistant (the local platform gives it on every assistant). */
  deployment_id: z.string().optional(),
  graph_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  config: RunnableConfig,
  context: JsonObject,
  metadata: JsonObject,
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Assistant = z.infer<typeof Assistant>;

/**
 * An assistant as a client reads it: the spec shows none of an assistant's fields but `assistant_id`, so every other
 * field may be missing or null in an answer (the local platform gives all of them, as {@link Assistant}).
 */
export const AssistantAnswer = z.object({
  assistant_id: z.string(),
  deployment_id: z.string().nullish(),
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  description: z.string().nullish(),
  config: RunnableConfig.nullish(),
  context: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
  version: z.number().int().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type AssistantAnswer = z.infer<typeof AssistantAnswer>;

export const AssistantCreate = z.object({
  graph_id: z.string().min(1),
  assistant_id: z.guid().optional(),
  name: z.string().min(1).optional(),
  description: z.string().nullable().optional(),
  config: RunnableConfig.optional(),
  context: JsonObject.optional(),
  metadata: JsonObject.optional(),
  if_exists: z.enum(['raise', 'do_nothing']).optional(),
});
export type AssistantCreate = z.infer<typeof AssistantCreate>;

export const AssistantUpdate = AssistantCreate.omit({ assistant_id: true, if_exists: true }).partial();
export type AssistantUpdate = z.infer<typeof AssistantUpdate>;

/** Body of `POST /assistants/count`: assistants of a graph, whose name contains `name`, whose metadata holds the given. */
export const AssistantCount = z.object({
  metadata: JsonObject.optional(),
  graph_id: z.string().optional(),
  name: z.string().optional(),
});
export type AssistantCount = z.infer<typeof AssistantCount>;

export const ASSISTANT_FIELDS = [
  'assistant_id',
  'graph_id',
  'name',
  'description',
  'config',
  'context',
  'created_at',
  'updated_at',
  'metadata',
  'version',
] as const;

/** Body of `POST /assistants/search`: as a count, a page of them, sorted, with only the `select`ed fields. */
export const AssistantSearch = AssistantCount.extend({
  limit: z.number().int().min(1).max(1000).optional(),
  offset: z.number().int().min(0).optional(),
  sort_by: z.enum(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at']).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  select: z.array(z.enum(ASSISTANT_FIELDS)).optional(),
});
export type AssistantSearch = z.infer<typeof AssistantSearch>;

/** Body of `POST /assistants/{id}/versions`: versions whose metadata holds the given, newest first. */
export const AssistantVersionsRequest = z.object({
  metadata: JsonObject.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  offset: z.number().int().min(0).optional(),
});
export type AssistantVersionsRequest = z.infer<typeof AssistantVersionsRequest>;

/** Body of `POST /assistants/{id}/latest`: the version to make current. */
export const AssistantLatest = z.object({ version: z.number().int().min(1) });

/** A message of thread state. */
export const Message = z
  .object({ type: z.string(), content: z.union([z.string(), z.array(z.unknown())]), id: z.string().optional() })
  .passthrough();
export type Message = z.infer<typeof Message>;

/** Thread values: free-form channels, with `messages` typed when present. */
export const ThreadValues = z.object({ messages: z.array(Message).optional() }).passthrough();
export type ThreadValues = z.infer<typeof ThreadValues>;

export const Thread = z.object({
  thread_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  metadata: JsonObject,
  /** A status the server added since is kept as it is. */
  status: openEnum(THREAD_STATUSES),
  values: ThreadValues.nullable(),
  /** When its state last changed (a checkpoint written); the local server gives it on every thread. */
  state_updated_at: z.string().optional(),
  /** The interrupts pending on the thread, by task id; the local server gives it (empty) on every thread. */
  interrupts: z.record(z.string(), z.array(z.unknown())).optional(),
});
export type Thread = z.infer<typeof Thread>;

export const ThreadCreate = z.object({
  thread_id: z.guid().optional(),
  metadata: JsonObject.optional(),
  if_exists: z.enum(['raise', 'do_nothing']).optional(),
});
export type ThreadCreate = z.infer<typeof ThreadCreate>;

/** Body of `POST /threads/search`: threads whose metadata and values hold the given key/values, in a status. */
export const ThreadSearch = z.object({
  /** Only the threads of these ids. */
  ids: z.array(z.guid()).optional(),
  metadata: JsonObject.optional(),
  values: JsonObject.optional(),
  status: ThreadStatus.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  offset: z.number().int().min(0).optional(),
  sort_by: z.enum(['thread_id', 'status', 'created_at', 'updated_at']).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  /** The fields of each thread to answer; all when absent. */
  select: z.array(z.string()).nullish(),
});
export type ThreadSearch = z.infer<typeof ThreadSearch>;

export const Checkpoint = z.object({ thread_id: z.string(), checkpoint_ns: z.string(), checkpoint_id: z.string() });

export const ThreadState = z.object({
  values: ThreadValues,
  next: z.array(z.string()),
  tasks: z.array(z.unknown()),
  checkpoint: Checkpoint.nullable(),
  parent_checkpoint: Checkpoint.nullable(),
  metadata: JsonObject,
  created_at: z.string().nullable(),
});
export type ThreadState = z.infer<typeof ThreadState>;

/**
 * Body of `POST /threads/{id}/history`: at most `limit` states, newest first; with `before`, those older than that
 * checkpoint (a config naming it, as the SDK sends it, or its id); with `metadata`, those whose metadata holds it.
 */
export const ThreadHistoryRequest = z.object({
  limit: z.number().int().min(1).max(1000).optional(),
  before: z
    .union([z.string(), z.object({ configurable: z.object({ checkpoint_id: z.string() }).passthrough() }).passthrough()])
    .nullish(),
  metadata: JsonObject.nullish(),
  /** The fields of each state to answer (`values.<key>` for one key of the values); all when absent. */
  select: z.array(z.string()).nullish(),
});
export type ThreadHistoryRequest = z.infer<typeof ThreadHistoryRequest>;

export const Run = z.object({
  run_id: z.string(),
  thread_id: z.string().nullable(),
  assistant_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** A status the server added since is kept as it is (and is not final). */
  status: openEnum(RUN_STATUSES),
  metadata: JsonObject,
  multitask_strategy: MultitaskStrategy.nullable(),
  kwargs: JsonObject,
});
export type Run = z.infer<typeof Run>;

/** Body of every run creation (background or streaming, thread-bound or stateless). */
export const RunCreate = z.object({
  assistant_id: z.string().min(1),
  input: JsonObject.nullable().optional(),
  config: RunnableConfig.optional(),
  metadata: JsonObject.optional(),
  stream_mode: z.union([StreamMode, z.array(StreamMode).min(1)]).optional(),
  stream_subgraphs: z.boolean().optional(),
  multitask_strategy: MultitaskStrategy.optional(),
  on_disconnect: z.enum(['cancel', 'continue']).optional(),
  /** A run on a thread that does not exist: `reject` (default) answers 404, `create` makes the thread first. */
  if_not_exists: z.enum(['create', 'reject']).optional(),
});
export type RunCreate = z.infer<typeof RunCreate>;

/** Body of `POST /runs/batch`: one run body per stateless background run. */
export const RunBatch = z.array(RunCreate).min(1);

/**
 * Body of `POST /runs/cancel`: the runs named by `run_ids` on `thread_id`, or every run of the deployment in `status`
 * (`all`: pending and running).
 */
export const RunCancelMany = z.object({
  thread_id: z.guid().optional(),
  run_ids: z.array(z.guid()).min(1).optional(),
  status: z.enum(['pending', 'running', 'all']).optional(),
});
export type RunCancelMany = z.infer<typeof RunCancelMany>;

export const Health = z.object({ ok: z.literal(true) });

/** Data of the first event of every stream. */
export const RunMetadataChunk = z.object({ run_id: z.string(), attempt: z.number().int().min(1) });
export type RunMetadataChunk = z.infer<typeof RunMetadataChunk>;

/** Data of an `error` event. */
export const StreamErrorChunk = z.object({ error: z.string(), message: z.string() });
export type StreamErrorChunk = z.infer<typeof StreamErrorChunk>;

/** The token chunk of a `messages` event. */
export interface MessageChunkData {
  /** The token text (or content blocks). */
  readonly content: string | unknown[];
  /** `AIMessageChunk` for streamed tokens. */
  readonly type: string;
  /** The id of the message the token belongs to. */
  readonly id?: string | null;
  readonly [key: string]: unknown;
}

/** The metadata of a `messages` event; `langgraph_node` names the node that called the model. */
export interface MessageMetadataData {
  readonly langgraph_node: string;
  readonly [key: string]: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Data of a `messages` event: the token chunk and its metadata. One arrives per token, so the elements are checked
 * by type guards that keep the objects as they are: an object schema would copy every key of every token.
 */
export const MessageTupleChunk = z.tuple([
  z.custom<MessageChunkData>(
    (value) =>
      isRecord(value) &&
      typeof value.type === 'string' &&
      (typeof value.content === 'string' || Array.isArray(value.content)),
    { message: 'expected a message chunk with string type and string or array content' },
  ),
  z.custom<MessageMetadataData>((value) => isRecord(value) && typeof value.langgraph_node === 'string', {
    message: 'expected metadata with a string langgraph_node',
  }),
]);
export type MessageTupleChunk = z.infer<typeof MessageTupleChunk>;

/**
 * Data of an `updates` event: what each node that ran wrote, keyed by the node. A node that wrote nothing is `null`
 * (`{"node": null}`), and an interrupt comes as a list (`{"__interrupt__": [{"value": ..., "id": ...}]}`), as real
 * agent servers send them.
 */
export const UpdatesChunk = z.record(z.string(), z.union([JsonObject, z.null(), z.array(z.unknown())]));
export type UpdatesChunk = z.infer<typeof UpdatesChunk>;

/** Data of a `debug` event. */
export const DebugChunk = z.object({
  /** A kind of debug event the server added since is kept as it is. */
  type: openEnum(['checkpoint', 'task', 'task_result']),
  timestamp: z.string(),
  step: z.number().int(),
  payload: JsonObject,
});
export type DebugChunk = z.infer<typeof DebugChunk>;

/** Data of an `events` event. */
export const EventsChunk = z.object({
  event: z.string(),
  name: z.string(),
  run_id: z.string(),
  tags: z.array(z.string()),
  metadata: JsonObject,
  data: JsonObject,
  parent_ids: z.array(z.string()),
});
export type EventsChunk = z.infer<typeof EventsChunk>;

/** Data of a `join` of a run: the thread's final values, or `__error__` when the run failed. */
export const JoinResult = z.object({ __error__: StreamErrorChunk.optional() }).passthrough();
export type JoinResult = z.infer<typeof JoinResult>;
