/**
 * Builds the trace of one agent run from its graph events: a root `chain` run named after the graph, a `chain` child
 * per node task (a subgraph node's own nodes nest under it), and an `llm` grandchild per model call with its token
 * counts and costs; parents carry the sums of their descendants. The finished tree goes to the trace store in one
 * batch, into the tracing project named after the deployment.
 */
import type { RunCreate as TraceRunCreate, RunPatch as TraceRunPatch } from '../../../api/schemas/tracing';
import type { GraphEvent, GraphValues } from '../engine/events';

/** Where traces go: the trace store's batch ingestion (the tracing module's run store has this method). */
export interface RunTraceSink {
  /** Stores runs in the workspace `tenantId`; a run naming `session_name` creates that project on first use. */
  ingest(tenantId: string, batch: { post: TraceRunCreate[]; patch: TraceRunPatch[] }): unknown;
}

/** Hands a finished trace to `sink`; a sink that fails is logged, never thrown (the run has ended either way). */
export function storeTrace(sink: RunTraceSink, tenantId: string, runs: TraceRunCreate[], log?: (line: string) => void): void {
  try {
    sink.ingest(tenantId, { post: runs, patch: [] });
  } catch (problem) {
    log?.(`agent server: could not store the trace of run ${runs[0]?.id}: ${(problem as Error).message}`);
  }
}

/** The root of a trace. */
export interface TraceRoot {
  /** The agent run id, used as the root run id and the trace id. */
  readonly runId: string;
  /** The graph id, the root run's name. */
  readonly graphId: string;
  /** The tracing project: the deployment's name. */
  readonly projectName: string;
  /** Input of the run. */
  readonly input: GraphValues;
  /** Run metadata (thread, assistant, graph ids), kept in `extra.metadata` of every run. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Start time, epoch milliseconds. */
  readonly startTime: number;
}

interface TraceNode {
  readonly run: TraceRunCreate & { id: string };
  readonly parentId: string | null;
  ended: boolean;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Collects one run's trace. */
export class RunTraceBuilder {
  private readonly nodes = new Map<string, TraceNode>();
  private readonly order: string[] = [];
  private readonly extra: { metadata: Readonly<Record<string, unknown>> };

  constructor(private readonly root: TraceRoot) {
    this.extra = { metadata: root.metadata };
    this.add(null, {
      id: root.runId,
      name: root.graphId,
      run_type: 'chain',
      start_time: iso(root.startTime),
      inputs: root.input,
    });
  }

  /** Takes in one event of the run. */
  record(event: GraphEvent): void {
    switch (event.kind) {
      case 'task_start':
        this.add(this.parentOf(event.ns), {
          id: event.taskId,
          name: event.node,
          run_type: 'chain',
          start_time: iso(event.time),
          inputs: event.input,
        });
        break;
      case 'task_end':
        this.end(event.taskId, event.time, event.error, event.update);
        break;
      case 'model_start':
        this.add(event.taskId, {
          id: event.callId,
          name: event.model,
          run_type: 'llm',
          start_time: iso(event.time),
          inputs: { messages: event.messages },
          tags: [...event.metadata.tags],
        });
        break;
      case 'model_token': {
        const node = this.nodes.get(event.callId);
        if (node && node.run.first_token_time == null) node.run.first_token_time = iso(event.time);
        break;
      }
      case 'model_end': {
        const node = this.nodes.get(event.callId);
        if (!node) break;
        Object.assign(node.run, {
          prompt_tokens: event.usage.input_tokens,
          completion_tokens: event.usage.output_tokens,
          total_tokens: event.usage.total_tokens,
          prompt_cost: event.cost.prompt,
          completion_cost: event.cost.completion,
          total_cost: event.cost.prompt + event.cost.completion,
        });
        this.end(event.callId, event.time, undefined, { generations: [event.message] });
        break;
      }
      default:
        break;
    }
  }

  /**
   * Closes the trace: the root gets the outcome, runs still open (the run was stopped) end with it, token counts and
   * costs are summed up the tree. Returns the runs, parents before children.
   */
  finish(endTime: number, outcome: { status: string; error?: string; outputs?: GraphValues }): TraceRunCreate[] {
    for (const id of this.order) {
      const node = this.nodes.get(id) as TraceNode;
      if (node.ended && id !== this.root.runId) continue;
      Object.assign(node.run, { end_time: iso(endTime), status: outcome.status, error: outcome.error ?? null });
    }
    (this.nodes.get(this.root.runId) as TraceNode).run.outputs = outcome.outputs ?? null;
    for (const id of [...this.order].reverse()) {
      const node = this.nodes.get(id) as TraceNode;
      if (node.parentId === null) continue;
      const parent = (this.nodes.get(node.parentId) as TraceNode).run;
      for (const field of [
        'prompt_tokens',
        'completion_tokens',
        'total_tokens',
        'prompt_cost',
        'completion_cost',
        'total_cost',
      ] as const) {
        parent[field] = (parent[field] ?? 0) + (node.run[field] ?? 0);
      }
    }
    return this.order.map((id) => (this.nodes.get(id) as TraceNode).run);
  }

  private add(parentId: string | null, run: TraceRunCreate & { id: string }): void {
    this.nodes.set(run.id, {
      parentId,
      ended: false,
      run: {
        ...run,
        session_name: this.root.projectName,
        trace_id: this.root.runId,
        parent_run_id: parentId,
        extra: this.extra,
        tags: run.tags ?? [],
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        prompt_cost: 0,
        completion_cost: 0,
        total_cost: 0,
      },
    });
    this.order.push(run.id);
  }

  private end(id: string, time: number, error: Error | undefined, outputs: GraphValues | undefined): void {
    const node = this.nodes.get(id);
    if (!node) return;
    node.ended = true;
    Object.assign(node.run, {
      end_time: iso(time),
      status: error ? 'error' : 'success',
      error: error ? `${error.name}: ${error.message}` : null,
      outputs: error ? null : outputs ?? {},
    });
  }

  /** A task's parent: the root for the root graph, else the subgraph node task named last in the namespace. */
  private parentOf(ns: readonly string[]): string {
    if (ns.length === 0) return this.root.runId;
    const last = ns[ns.length - 1];
    return last.slice(last.lastIndexOf(':') + 1);
  }
}
