/**
 * Turns a graph's events into the chunks of each stream mode, serialized once and shared by every stream of the
 * run. A chunk keeps its namespace; the stream decides whether subgraph chunks go out and names the event
 * `<mode>|<namespace>` (`messages-tuple` travels as `messages`; the `messages` mode's chunks are named
 * `messages/metadata`, `messages/partial` and `messages/complete`, as LangGraph's server names them).
 */
import type { StreamMode } from '../../../api/schemas/agent-server';
import type { GraphEvent, MessageChunk, MessageMetadata, Namespace } from '../engine/events';

/** One serialized chunk of a stream mode. */
export interface WireChunk {
  /** The mode this chunk belongs to. */
  readonly mode: StreamMode;
  /** Namespace of the graph that produced it (empty for the root graph). */
  readonly ns: Namespace;
  /** The chunk's data as JSON text. */
  readonly json: string;
  /** The event name before any namespace, when it is not the mode's own. */
  readonly name?: string;
}

/** The SSE event name of a chunk. */
export function eventName(chunk: WireChunk): string {
  const base = chunk.name ?? (chunk.mode === 'messages-tuple' ? 'messages' : chunk.mode);
  return chunk.ns.length === 0 ? base : `${base}|${chunk.ns.join('|')}`;
}

/** Formats the events of one run; holds what the `events` mode needs to name parents. */
export class RunEventFormatter {
  private readonly metadataJson = new WeakMap<MessageMetadata, string>();
  private readonly tokenJsonRest = new Map<string, string>();
  private readonly graphRunIds = new Map<string, string>();
  /** The task of each model call in progress (a token names its call only); kept whether or not anyone listens. */
  private readonly callTasks = new Map<string, string>();
  /**
   * The text so far of each message being streamed, kept whether or not anyone listens: a stream that joins in the
   * middle of a reply gets the whole message so far in `messages/partial`, as one from the start does.
   */
  private readonly partialText = new Map<string, string>();

  /** @param threadId the run's thread (null when stateless), for debug checkpoint configs */
  constructor(private readonly threadId: string | null) {}

  /** The chunks `event` yields for the given modes. */
  format(event: GraphEvent, modes: ReadonlySet<StreamMode>): WireChunk[] {
    const chunks: WireChunk[] = [];
    // Data is built only for modes someone asked for: most runs stream one or two modes.
    const add = (mode: StreamMode, data: () => unknown, name?: string) => {
      if (modes.has(mode)) chunks.push({ mode, ns: event.ns, json: JSON.stringify(data()), ...(name && { name }) });
    };
    switch (event.kind) {
      case 'model_token': {
        const { id } = event.chunk;
        const before = this.partialText.get(id);
        const text = (before ?? '') + event.chunk.content;
        this.partialText.set(id, text);
        if (before === undefined) add('messages', () => ({ [id]: { metadata: event.metadata } }), 'messages/metadata');
        add('messages', () => [partialMessage(event.chunk, text)], 'messages/partial');
        if (modes.has('messages-tuple')) {
          chunks.push({
            mode: 'messages-tuple',
            ns: event.ns,
            json: `[${this.tokenJson(event.chunk)},${this.metadataOf(event.metadata)}]`,
          });
        }
        add('events', () =>
          this.eventsChunk('on_chat_model_stream', event.metadata.ls_model_name, event.callId, event.ns, { chunk: event.chunk }, {
            tags: event.metadata.tags,
            metadata: event.metadata,
            task: this.callTasks.get(event.callId),
          }),
        );
        break;
      }
      case 'checkpoint':
        add('values', () => event.values);
        add('debug', () => this.debug('checkpoint', event.time, event.step, this.checkpointPayload(event)));
        // the payloads of `debug`, on their own (as LangGraph's `checkpoints` and `tasks` modes stream them)
        add('checkpoints', () => this.checkpointPayload(event));
        break;
      case 'task_start': {
        const task = () => ({ id: event.taskId, name: event.node, input: event.input, triggers: event.triggers });
        add('debug', () => this.debug('task', event.time, event.step, task()));
        add('tasks', task);
        add('events', () =>
          this.eventsChunk('on_chain_start', event.node, event.taskId, event.ns, { input: event.input }, event),
        );
        break;
      }
      case 'task_end': {
        // a node that writes nothing is null there, as LangGraph streams it (not an empty object)
        if (!event.error) add('updates', () => ({ [event.node]: writesSomething(event.update) ? event.update : null }));
        const result = () => ({
          id: event.taskId,
          name: event.node,
          error: event.error ? `${event.error.name}: ${event.error.message}` : null,
          result: Object.entries(event.update ?? {}),
          interrupts: [],
        });
        add('debug', () => this.debug('task_result', event.time, event.step, result()));
        add('tasks', result);
        add('events', () =>
          this.eventsChunk(
            event.error ? 'on_chain_error' : 'on_chain_end',
            event.node,
            event.taskId,
            event.ns,
            event.error ? { error: event.error.message } : { output: event.update ?? {} },
            event,
          ),
        );
        break;
      }
      case 'custom':
        add('custom', () => event.data);
        add('events', () =>
          this.eventsChunk('on_custom_event', event.node, event.taskId, event.ns, { data: event.data }, event),
        );
        break;
      case 'model_start':
        this.callTasks.set(event.callId, event.taskId);
        add('events', () =>
          this.eventsChunk(
            'on_chat_model_start',
            event.model,
            event.callId,
            event.ns,
            { input: { messages: [event.messages] } },
            { tags: event.metadata.tags, metadata: event.metadata, task: event.taskId },
          ),
        );
        break;
      case 'model_end':
        // the call is over: what was kept for its tokens goes
        this.callTasks.delete(event.callId);
        this.tokenJsonRest.delete(event.message.id);
        this.partialText.delete(event.message.id);
        add('messages', () => [event.message], 'messages/complete');
        add('events', () =>
          this.eventsChunk(
            'on_chat_model_end',
            event.model,
            event.callId,
            event.ns,
            { output: event.message },
            { tags: event.metadata.tags, metadata: event.metadata, task: event.taskId },
          ),
        );
        break;
      case 'graph_start':
        this.graphRunIds.set(event.ns.join('|'), event.runId);
        // the root graph's start and end are the run's own, which the stream's metadata and its end already tell
        if (event.ns.length > 0) add('lifecycle', () => ({ event: 'started', namespace: event.ns }));
        add('events', () =>
          this.eventsChunk('on_chain_start', event.graph, event.runId, event.ns, { input: event.input }, event),
        );
        break;
      case 'graph_end':
        if (event.ns.length > 0) {
          add('lifecycle', () =>
            event.error
              ? { event: 'failed', namespace: event.ns, error: { error: event.error.name, message: event.error.message } }
              : { event: 'completed', namespace: event.ns },
          );
        }
        add('events', () =>
          this.eventsChunk(
            event.error ? 'on_chain_error' : 'on_chain_end',
            event.graph,
            event.runId,
            event.ns,
            event.error ? { error: event.error.message } : { output: event.output },
            event,
          ),
        );
        break;
    }
    return chunks;
  }

  /**
   * A token chunk as JSON. Tokens are the bulk of a stream and differ only in their text until the last one, so
   * everything after the text is serialized once per model call.
   */
  private tokenJson(chunk: MessageChunk): string {
    if (chunk.usage_metadata !== null) return JSON.stringify(chunk);
    let rest = this.tokenJsonRest.get(chunk.id);
    if (rest === undefined) {
      const { type: _type, content: _content, ...others } = chunk;
      rest = JSON.stringify(others).slice(1);
      this.tokenJsonRest.set(chunk.id, rest);
    }
    return `{"type":"AIMessageChunk","content":${JSON.stringify(chunk.content)},${rest}`;
  }

  private metadataOf(metadata: MessageMetadata): string {
    let json = this.metadataJson.get(metadata);
    if (json === undefined) {
      json = JSON.stringify(metadata);
      this.metadataJson.set(metadata, json);
    }
    return json;
  }

  private debug(type: string, time: number, step: number, payload: unknown) {
    return { type, timestamp: new Date(time).toISOString(), step, payload };
  }

  private checkpointPayload(event: Extract<GraphEvent, { kind: 'checkpoint' }>) {
    const config = (checkpointId: string | null) =>
      checkpointId && {
        configurable: { thread_id: this.threadId, checkpoint_ns: event.ns.join('|'), checkpoint_id: checkpointId },
      };
    return {
      config: config(event.checkpointId),
      parent_config: config(event.parentCheckpointId),
      values: event.values,
      metadata: { source: event.step < 0 ? 'input' : 'loop', step: event.step },
      next: event.next,
      tasks: event.next.map((name) => ({ name })),
    };
  }

  /**
   * One chunk of the `events` mode. Its `parent_ids` are the runs it is nested in, outermost first: the root graph,
   * then for each enclosing subgraph call the calling node's task and the subgraph's run, then, for a model call, the
   * task it belongs to (`labels.task`).
   */
  private eventsChunk(kind: string, name: string, runId: string, ns: Namespace, data: unknown, labels: EventLabels) {
    const parentIds: string[] = [];
    const push = (id: string | undefined) => {
      if (id !== undefined && id !== runId) parentIds.push(id);
    };
    for (let depth = 0; depth <= ns.length; depth += 1) {
      push(this.graphRunIds.get(ns.slice(0, depth).join('|')));
      // a namespace element is `<node>:<task id>`: the task that called the subgraph one level down
      if (depth < ns.length) push(ns[depth]!.slice(ns[depth]!.lastIndexOf(':') + 1));
    }
    push(labels.task);
    return { event: kind, name, run_id: runId, tags: labels.tags, metadata: labels.metadata, data, parent_ids: parentIds };
  }
}

/** The tags and metadata of an `events` chunk, and the task of a model call. */
interface EventLabels {
  readonly tags: readonly string[];
  readonly metadata: object;
  readonly task?: string;
}

/** A message so far, as the `messages` mode streams it: an AI message (not a chunk) with the text of every token. */
function partialMessage(chunk: MessageChunk, text: string) {
  const { tool_call_chunks: _toolCallChunks, ...message } = chunk;
  return { ...message, type: 'ai', content: text };
}

/** Whether a node's update writes any channel. */
const writesSomething = (update: object | undefined): boolean => update !== undefined && Object.keys(update).length > 0;
