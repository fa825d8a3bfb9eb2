/**
 * What a running graph reports while it runs. The run executor fans these out to streams (each formats the modes
 * it asked for), to the checkpointer and to the tracer; the graph itself knows nothing about the wire.
 */
import type { StateMessage, UsageMetadata } from './messages';

/** Graph state: channel name to value. */
export type GraphValues = Record<string, unknown>;

/**
 * Where an event comes from: empty for the root graph, one `<node>:<task id>` element per enclosing subgraph call
 * (the agent server's namespace, joined with `|` on the wire).
 */
export type Namespace = readonly string[];

/** A streamed piece of an AI message, shaped as the platform's `AIMessageChunk`. */
export interface MessageChunk {
  readonly type: 'AIMessageChunk';
  /** The token text. */
  readonly content: string;
  /** The id of the message being streamed (same for every chunk of one reply). */
  readonly id: string;
  readonly name: null;
  readonly additional_kwargs: Record<string, never>;
  /** `{finish_reason, model_name}` on the last chunk, empty before. */
  readonly response_metadata: Record<string, unknown>;
  /** Token usage on the last chunk, null before. */
  readonly usage_metadata: UsageMetadata | null;
  readonly tool_calls: [];
  readonly tool_call_chunks: [];
  readonly invalid_tool_calls: [];
}

/** Metadata sent with every token in `messages-tuple` mode (names as the platform spells them). */
export interface MessageMetadata {
  /** Name of the node that called the model: the node-name field used to filter tokens. */
  readonly langgraph_node: string;
  /** Super-step of the node's task. */
  readonly langgraph_step: number;
  /** What triggered the task. */
  readonly langgraph_triggers: readonly string[];
  /** Checkpoint namespace of the task: `<node>:<task id>`, prefixed by enclosing subgraph calls. */
  readonly langgraph_checkpoint_ns: string;
  /** Model provider. */
  readonly ls_provider: string;
  /** Model name. */
  readonly ls_model_name: string;
  /** Always `chat`. */
  readonly ls_model_type: 'chat';
  /** Tags of the model invocation (usable as a token filter). */
  readonly tags: readonly string[];
  /** Run-level metadata (run id, thread id, assistant id, graph id) merged in. */
  readonly [key: string]: unknown;
}

/**
 * Metadata of a node's task, as the `events` stream mode shows it on the task's own events and the model calls in
 * it: the run-level metadata with the task's place in the graph.
 */
export interface TaskMetadata {
  readonly langgraph_step: number;
  readonly langgraph_node: string;
  readonly langgraph_triggers: readonly string[];
  readonly langgraph_path: readonly string[];
  /** `<node>:<task id>`, prefixed by enclosing subgraph calls. */
  readonly langgraph_checkpoint_ns: string;
  readonly checkpoint_ns: string;
  /** Run-level metadata (run id, thread id, assistant id, graph id) merged in. */
  readonly [key: string]: unknown;
}

/** What the `events` stream mode shows of a graph's or a task's run besides its data. */
interface Labels {
  /** Tags of the run: the run's own, and a task's `graph:step:<n>`. */
  readonly tags: readonly string[];
  /** The run-level metadata; a task's adds its {@link TaskMetadata}. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

interface EventBase {
  /** Namespace of the graph that emitted the event. */
  readonly ns: Namespace;
  /** Epoch milliseconds. */
  readonly time: number;
}

/** One report of a running graph. */
export type GraphEvent =
  | (EventBase &
      Labels & {
      readonly kind: 'graph_start';
      readonly graph: string;
      readonly runId: string;
      readonly input: GraphValues;
    })
  | (EventBase &
      Labels & {
      readonly kind: 'graph_end';
      readonly graph: string;
      readonly runId: string;
      readonly output?: GraphValues;
      readonly error?: Error;
    })
  | (EventBase & {
      readonly kind: 'checkpoint';
      /** -1 for the state right after the input was applied. */
      readonly step: number;
      readonly checkpointId: string;
      readonly parentCheckpointId: string | null;
      readonly values: GraphValues;
      /** Nodes that run in the next step. */
      readonly next: readonly string[];
    })
  | (EventBase &
      Labels & {
      readonly kind: 'task_start';
      readonly step: number;
      readonly taskId: string;
      readonly node: string;
      readonly input: GraphValues;
      readonly triggers: readonly string[];
    })
  | (EventBase &
      Labels & {
      readonly kind: 'task_end';
      readonly step: number;
      readonly taskId: string;
      readonly node: string;
      readonly update?: GraphValues;
      readonly error?: Error;
    })
  | (EventBase & {
      readonly kind: 'model_start';
      /** Id of this model call (a run of its own in traces). */
      readonly callId: string;
      readonly taskId: string;
      readonly node: string;
      readonly model: string;
      readonly messages: readonly StateMessage[];
      readonly metadata: MessageMetadata;
    })
  | (EventBase & {
      readonly kind: 'model_token';
      readonly callId: string;
      readonly chunk: MessageChunk;
      readonly metadata: MessageMetadata;
    })
  | (EventBase & {
      readonly kind: 'model_end';
      readonly callId: string;
      readonly taskId: string;
      readonly node: string;
      readonly model: string;
      readonly message: StateMessage;
      readonly usage: UsageMetadata;
      /** Dollars spent on the prompt and on the completion. */
      readonly cost: { readonly prompt: number; readonly completion: number };
      readonly metadata: MessageMetadata;
    })
  | (EventBase & Labels & { readonly kind: 'custom'; readonly taskId: string; readonly node: string; readonly data: unknown });

/** Receives every event synchronously, in order. */
export type GraphEventSink = (event: GraphEvent) => void;
