/**
 * A tiny deterministic graph engine in the manner of a Pregel loop: nodes read the state, return updates, channel
 * reducers merge them, edges (static or routed) pick the next nodes; a step's nodes run together and the state is
 * checkpointed after every step. A compiled graph can itself be a node of another graph (a subgraph), whose events
 * carry the namespace `<node>:<task id>`.
 */
import { randomUUID } from 'node:crypto';
import type { GraphValues, Namespace } from './events';
import { throwIfAborted, asError, type Invocation } from './invocation';
import { NodeContext } from './node-context';

/** Pseudo-node an edge starts from. */
export const START = '__start__';
/** Pseudo-node an edge ends at. */
export const END = '__end__';

/** Merges an update into a channel's current value. */
export type Reducer = (current: unknown, update: unknown) => unknown;

/** One state channel. */
export interface ChannelSpec {
  /** How updates merge; the default keeps the last value written. */
  readonly reducer?: Reducer;
  /** Value of the channel before anything was written. @default undefined */
  readonly initial?: () => unknown;
  /** JSON Schema of the channel's value, as the assistant's schemas describe it. @default any value */
  readonly schema?: JsonSchema;
}

/** A JSON Schema document or fragment. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a graph declares beyond its state. */
export interface GraphOptions {
  /** JSON Schema of each `configurable` key the graph's nodes read. @default none */
  readonly configurable?: Readonly<Record<string, JsonSchema>>;
}

/** The channels of a graph's state, by name. */
export type StateSpec = Readonly<Record<string, ChannelSpec>>;

/** What a node does: reads the state, returns an update (a subset of the channels) or nothing. */
export type NodeAction = (state: GraphValues, context: NodeContext) => GraphValues | void | Promise<GraphValues | void>;

/** Picks the next node(s) from the state after a step. */
export type Router = (state: GraphValues) => string | readonly string[];

/** Thrown when a graph runs more steps than its recursion limit. */
export class GraphRecursionError extends Error {
  override readonly name = 'GraphRecursionError';
}

const DEFAULT_RECURSION_LIMIT = 25;

/** A graph under construction. */
export class StateGraph {
  private readonly nodes = new Map<string, NodeAction>();
  private readonly edges = new Map<string, string[]>();
  private readonly routers = new Map<string, Router>();
  private readonly subgraphs = new Map<string, CompiledGraph>();

  /**
   * @param name the graph id (also the name of its root trace run) @param spec its state channels
   * @param options what else it declares
   */
  constructor(private readonly name: string, private readonly spec: StateSpec, private readonly options: GraphOptions = {}) {}

  /** Adds a node running `action`. */
  addNode(name: string, action: NodeAction): this {
    if (name === START || name === END || this.nodes.has(name)) throw new Error(`node name ${name} is taken`);
    this.nodes.set(name, action);
    return this;
  }

  /** Adds a node that runs `graph` on this graph's state (the channels both share) and returns its final state. */
  addSubgraph(name: string, graph: CompiledGraph): this {
    this.addNode(name, (state, context) => context.invokeSubgraph(graph, state));
    this.subgraphs.set(name, graph);
    return this;
  }

  /** After `from` runs, `to` runs in the next step. */
  addEdge(from: string, to: string): this {
    this.edges.set(from, [...(this.edges.get(from) ?? []), to]);
    return this;
  }

  /** After `from` runs, `router` picks the next node(s) from the state. */
  addConditionalEdges(from: string, router: Router): this {
    this.routers.set(from, router);
    return this;
  }

  /** Checks every edge names a known node and freezes the graph. */
  compile(): CompiledGraph {
    const known = (node: string) => node === END || this.nodes.has(node);
    for (const [from, targets] of this.edges) {
      if (from !== START && !this.nodes.has(from))
        throw new Error(`graph ${this.name}: edge from unknown node ${from}`);
      const unknown = targets.find((target) => !known(target));
      if (unknown) throw new Error(`graph ${this.name}: edge to unknown node ${unknown}`);
    }
    if (!this.edges.has(START) && !this.routers.has(START))
      throw new Error(`graph ${this.name}: nothing starts at START`);
    return new CompiledGraph(this.name, this.spec, new Map(this.nodes), new Map(this.edges), new Map(this.routers), {
      configurable: this.options.configurable ?? {},
      subgraphs: new Map(this.subgraphs),
    });
  }
}

/** A runnable graph. */
export class CompiledGraph {
  constructor(
    /** The graph id. */
    readonly name: string,
    /** Its state channels. */
    readonly spec: StateSpec,
    private readonly nodes: ReadonlyMap<string, NodeAction>,
    private readonly edges: ReadonlyMap<string, readonly string[]>,
    private readonly routers: ReadonlyMap<string, Router>,
    /** What the graph declares for its drawing and schemas: its `configurable` keys and its subgraph nodes. */
    readonly declared: {
      readonly configurable: Readonly<Record<string, JsonSchema>>;
      readonly subgraphs: ReadonlyMap<string, CompiledGraph>;
    },
  ) {}

  /** Names of the graph's nodes, in the order they were added. */
  get nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** The static edges, `START` and `END` included, in the order they were added. */
  get staticEdges(): { source: string; target: string }[] {
    return [...this.edges].flatMap(([source, targets]) => targets.map((target) => ({ source, target })));
  }

  /** The nodes (or `START`) whose next nodes a router picks at run time. */
  get routedNodes(): string[] {
    return [...this.routers.keys()];
  }

  /** Applies an update to a state through the channels' reducers; keys that are not channels are ignored. */
  applyUpdate(state: GraphValues, update: GraphValues | void): GraphValues {
    if (!update) return state;
    const next = { ...state };
    for (const [key, value] of Object.entries(update)) {
      const channel = this.spec[key];
      if (!channel) continue;
      next[key] = channel.reducer ? channel.reducer(next[key], value) : value;
    }
    return next;
  }

  /**
   * Runs the graph from `input` applied on top of `prior` (the thread's last state) until no node is left, and
   * returns the final state. Each step ends with a `checkpoint` event naming `parentCheckpointId` as its parent.
   */
  async invoke(
    input: GraphValues,
    prior: GraphValues,
    invocation: Invocation,
    ns: Namespace = [],
    parentCheckpointId: string | null = null,
  ): Promise<GraphValues> {
    const runId = ns.length === 0 ? invocation.runId : randomUUID();
    const emit = invocation.sink;
    const labels = { tags: invocation.config.tags, metadata: invocation.runMetadata };
    emit({ kind: 'graph_start', ns, time: invocation.now(), graph: this.name, runId, input, ...labels });
    let state = this.applyUpdate(this.initialState(prior), input);
    let active = this.successors(START, state);
    let checkpointId = this.checkpoint(invocation, ns, -1, state, active, parentCheckpointId);
    const limit = invocation.recursionLimit ?? DEFAULT_RECURSION_LIMIT;
    try {
      for (let step = 0; active.length > 0; step += 1) {
        if (step >= limit)
          throw new GraphRecursionError(`graph ${this.name} reached its recursion limit of ${limit} steps`);
        throwIfAborted(invocation.signal);
        const updates = await this.runStep(step, active, state, invocation, ns);
        for (const update of updates) state = this.applyUpdate(state, update.values);
        active = unique(updates.flatMap((update) => this.successors(update.node, state)));
        checkpointId = this.checkpoint(invocation, ns, step, state, active, checkpointId);
      }
    } catch (error) {
      emit({ kind: 'graph_end', ns, time: invocation.now(), graph: this.name, runId, error: asError(error), ...labels });
      throw error;
    }
    emit({ kind: 'graph_end', ns, time: invocation.now(), graph: this.name, runId, output: state, ...labels });
    return state;
  }

  private initialState(prior: GraphValues): GraphValues {
    const state: GraphValues = {};
    for (const [key, channel] of Object.entries(this.spec)) {
      if (key in prior) state[key] = prior[key];
      else if (channel.initial) state[key] = channel.initial();
    }
    return state;
  }

  /** Runs one step's nodes together; every task reports its end, the first failure fails the step. */
  private async runStep(
    step: number,
    nodes: readonly string[],
    state: GraphValues,
    invocation: Invocation,
    ns: Namespace,
  ): Promise<{ node: string; values: GraphValues | void }[]> {
    const triggers = step === 0 ? [`branch:to:${nodes.join(',')}`] : ['branch:to'];
    const tasks = nodes.map((node) => new NodeContext(invocation, ns, node, randomUUID(), step, triggers, this));
    for (const task of tasks) {
      invocation.sink({
        kind: 'task_start',
        ns,
        time: invocation.now(),
        step,
        taskId: task.taskId,
        node: task.node,
        input: state,
        triggers,
        tags: task.tags,
        metadata: task.metadata,
      });
    }
    const settled = await Promise.allSettled(
      tasks.map(async (task) => {
        const action = this.nodes.get(task.node) as NodeAction;
        const end = { kind: 'task_end', ns, step, taskId: task.taskId, node: task.node, tags: task.tags, metadata: task.metadata } as const;
        try {
          const values = await action(state, task);
          invocation.sink({ ...end, time: invocation.now(), update: values ?? {} });
          return { node: task.node, values };
        } catch (error) {
          invocation.sink({ ...end, time: invocation.now(), error: asError(error) });
          throw error;
        }
      }),
    );
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.map(
      (result) => (result as PromiseFulfilledResult<{ node: string; values: GraphValues | void }>).value,
    );
  }

  private successors(node: string, state: GraphValues): string[] {
    const routed = this.routers.get(node)?.(state) ?? [];
    const targets = [...(this.edges.get(node) ?? []), ...(typeof routed === 'string' ? [routed] : routed)];
    return unique(targets.filter((target) => target !== END));
  }

  private checkpoint(
    invocation: Invocation,
    ns: Namespace,
    step: number,
    values: GraphValues,
    next: readonly string[],
    parentCheckpointId: string | null,
  ): string {
    const checkpointId = randomUUID();
    invocation.sink({
      kind: 'checkpoint',
      ns,
      time: invocation.now(),
      step,
      checkpointId,
      parentCheckpointId,
      values,
      next,
    });
    return checkpointId;
  }
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
