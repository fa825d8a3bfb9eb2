/**
 * What one run of a root graph shares with its nodes and subgraphs, and what a node may run as a subgraph. Apart
 * from the graph and the node context so that each depends on these and neither on the other.
 */
import type { GraphEventSink, GraphValues, Namespace } from './events';

/** Run-level settings every node can read. */
export interface RunConfig {
  /** Assistant and run `configurable` merged (run wins). */
  readonly configurable: Readonly<Record<string, unknown>>;
  /** Tags of the run. */
  readonly tags: readonly string[];
}

/** Everything one invocation of a root graph shares with its nodes and subgraphs. */
export interface Invocation {
  /** Id of the agent run (the root graph's run id). */
  readonly runId: string;
  /** Settings of the run. */
  readonly config: RunConfig;
  /** Aborted to stop the run (interrupt, rollback, timeout, disconnect); `reason` says why. */
  readonly signal: AbortSignal;
  /** Receives every event of the run, subgraphs included. */
  readonly sink: GraphEventSink;
  /** Merged into the metadata of every streamed token (run id, thread id, assistant id, graph id). */
  readonly runMetadata: Readonly<Record<string, unknown>>;
  /** Time source (the platform's clock). */
  readonly now: () => number;
  /** Maximum number of steps of one graph before it fails. @default 25 */
  readonly recursionLimit?: number;
}

/** A compiled graph as a node runs it as a subgraph: its state channels, and one invocation. */
export interface Subgraph {
  /** The graph's state channels, by name. */
  readonly spec: Readonly<Record<string, unknown>>;
  /** Runs the graph from `input` (on `prior` values) within the root's invocation, under namespace `ns`. */
  invoke(input: GraphValues, prior: GraphValues, invocation: Invocation, ns: Namespace): Promise<GraphValues>;
}

/** Throws the abort reason when the run was stopped. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

/** Normalizes anything thrown into an Error. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
