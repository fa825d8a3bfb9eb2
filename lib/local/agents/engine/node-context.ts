/**
 * What a node can do besides returning an update: send custom stream data, call a chat model (whose tokens are
 * streamed as they come), and run a subgraph. Every one of these reports through the run's event sink.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GraphValues, MessageChunk, MessageMetadata, Namespace, TaskMetadata } from './events';
import { throwIfAborted, type Invocation, type RunConfig, type Subgraph } from './invocation';
import type { StateMessage } from './messages';
import type { ChatModel } from './chat-model';

/** Tokens produced between two yields to the event loop, so streams flush and other runs progress. */
const TOKENS_PER_YIELD = 64;

/** Options of one model call. */
export interface ModelCallOptions {
  /** Tags of the invocation, sent in each token's metadata (clients filter tokens by them). @default [] */
  readonly tags?: readonly string[];
}

/** The handle a node receives while it runs. */
export class NodeContext {
  constructor(
    private readonly invocation: Invocation,
    /** Namespace of the graph the node belongs to. */
    readonly ns: Namespace,
    /** Name of the running node. */
    readonly node: string,
    /** Id of this task (one execution of the node). */
    readonly taskId: string,
    /** The step the task runs in. */
    readonly step: number,
    /** What triggered the task. */
    readonly triggers: readonly string[],
    private readonly graph: Subgraph,
  ) {}

  /** The task's metadata: the run's, with the task's place in the graph. */
  get metadata(): TaskMetadata {
    const checkpointNs = [...this.ns, `${this.node}:${this.taskId}`].join('|');
    return {
      ...this.invocation.runMetadata,
      langgraph_step: this.step,
      langgraph_node: this.node,
      langgraph_triggers: this.triggers,
      langgraph_path: ['__pregel_pull', this.node],
      langgraph_checkpoint_ns: checkpointNs,
      checkpoint_ns: checkpointNs,
    };
  }

  /** The tags of the task's own events: the run's, and the step's. */
  get tags(): readonly string[] {
    return [...this.invocation.config.tags, `graph:step:${this.step}`];
  }

  /** Settings of the run. */
  get config(): RunConfig {
    return this.invocation.config;
  }

  /** Aborted when the run is stopped. */
  get signal(): AbortSignal {
    return this.invocation.signal;
  }

  /** Sends `data` to the `custom` stream mode. */
  writeCustom(data: unknown): void {
    this.invocation.sink({
      kind: 'custom',
      ns: this.ns,
      time: this.invocation.now(),
      taskId: this.taskId,
      node: this.node,
      data,
      tags: this.tags,
      metadata: this.metadata,
    });
  }

  /** Calls `model` on `messages`, streaming each token of its reply, and returns the complete AI message. */
  async callModel(
    model: ChatModel,
    messages: readonly StateMessage[],
    options: ModelCallOptions = {},
  ): Promise<StateMessage> {
    const { invocation } = this;
    const callId = randomUUID();
    const messageId = `run-${callId}`;
    const metadata: MessageMetadata = {
      ...this.metadata,
      ls_provider: model.provider,
      ls_model_name: model.name,
      ls_model_type: 'chat',
      ls_temperature: 0,
      // the run's tags (its assistant's and its own), then the call's
      tags: [...new Set([...invocation.config.tags, ...(options.tags ?? [])])],
    };
    const base = { ns: this.ns, callId, taskId: this.taskId, node: this.node, model: model.name, metadata };
    invocation.sink({ kind: 'model_start', time: invocation.now(), ...base, messages });
    const reply = model.reply(messages, invocation.config.configurable);
    const delayMs = model.tokenDelayMs(invocation.config.configurable);
    for (let index = 0; index < reply.tokens.length; index += 1) {
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: invocation.signal }).catch(() => undefined);
      else if (index > 0 && index % TOKENS_PER_YIELD === 0) await new Promise((resolve) => setImmediate(resolve));
      throwIfAborted(invocation.signal);
      const last = index === reply.tokens.length - 1;
      const chunk: MessageChunk = {
        type: 'AIMessageChunk',
        content: reply.tokens[index],
        id: messageId,
        name: null,
        additional_kwargs: {},
        response_metadata: last ? { finish_reason: 'stop', model_name: model.name } : {},
        usage_metadata: last ? reply.usage : null,
        tool_calls: [],
        tool_call_chunks: [],
        invalid_tool_calls: [],
      };
      invocation.sink({ kind: 'model_token', ns: this.ns, time: invocation.now(), callId, chunk, metadata });
    }
    const message: StateMessage = {
      type: 'ai',
      content: reply.tokens.join(''),
      id: messageId,
      name: null,
      additional_kwargs: {},
      response_metadata: { finish_reason: 'stop', model_name: model.name },
      usage_metadata: reply.usage,
      tool_calls: [],
    };
    const cost = {
      prompt: reply.usage.input_tokens * model.promptTokenCost,
      completion: reply.usage.output_tokens * model.completionTokenCost,
    };
    invocation.sink({ kind: 'model_end', time: invocation.now(), ...base, message, usage: reply.usage, cost });
    return message;
  }

  /** Runs `graph` on the channels it shares with this node's graph and returns its final values of those channels. */
  async invokeSubgraph(graph: Subgraph, state: GraphValues): Promise<GraphValues> {
    const shared = (values: GraphValues, spec: object) =>
      Object.fromEntries(Object.entries(values).filter(([key]) => key in spec));
    const ns = [...this.ns, `${this.node}:${this.taskId}`];
    const output = await graph.invoke(shared(state, graph.spec), {}, this.invocation, ns);
    return shared(output, this.graph.spec);
  }
}
