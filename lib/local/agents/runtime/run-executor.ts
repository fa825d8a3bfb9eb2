/**
 * Executes one run: its graph on the thread's last state (or an empty state when stateless), every event fanned
 * out to the run's streams, its checkpoints stored, its trace built. Returns how it ended; statuses are the run
 * manager's business.
 */
import type { Assistant, Run, StreamErrorChunk } from '../../../api/schemas/agent-server';
import type { Clock } from '../../clock';
import type { GraphEvent, GraphValues } from '../engine/events';
import { asError } from '../engine/invocation';
import { BUILT_IN_GRAPHS } from '../graphs/registry';
import type { ThreadStore } from '../store/threads';
import type { RunStream } from './run-stream';
import { RunTraceBuilder } from './run-trace';
import type { RunStopper, StopCause } from './run-stop';

/** A deployment as the agent server sees it. */
export interface ServedDeployment {
  /** Deployment id. */
  readonly id: string;
  /** Deployment name: the tracing project of its runs. */
  readonly name: string;
  /** Workspace that owns the deployment (its traces go there). */
  readonly tenantId: string;
  /** Graph ids it serves (from its `graph_config_path`). */
  readonly graphIds: readonly string[];
}

/** One run to execute. */
export interface RunSpec {
  /** The run record. */
  readonly run: Run;
  /** Its deployment. */
  readonly deployment: ServedDeployment;
  /** Its assistant (graph and configuration). */
  readonly assistant: Assistant;
  /** Execution number, 1 unless resumed after a restart. */
  readonly attempt: number;
}

/** How a run ended. */
export type RunOutcome =
  | { readonly kind: 'success'; readonly values: GraphValues }
  | { readonly kind: 'error'; readonly error: StreamErrorChunk }
  | { readonly kind: 'stopped'; readonly cause: StopCause };

/** What the executor uses. */
export interface RunExecutorDeps {
  readonly clock: Clock;
  readonly threads: ThreadStore;
}

/**
 * Runs the spec's graph until it ends or `stopper` stops it; `trace` receives every event. Once the run's thread is
 * deleted, nothing more is written to it: a thread made again with the same id is another one.
 */
export async function executeRun(
  spec: RunSpec,
  stream: RunStream,
  stopper: RunStopper,
  trace: RunTraceBuilder,
  deps: RunExecutorDeps,
): Promise<RunOutcome> {
  const { run, assistant } = spec;
  const threadId = run.thread_id;
  try {
    const graph = BUILT_IN_GRAPHS.get(assistant.graph_id);
    if (!graph) throw new Error(`graph ${assistant.graph_id} is not a built-in graph`);
    if (threadId && spec.attempt > 1) deps.threads.deleteCheckpointsOfRun(run.run_id);
    const prior = threadId ? deps.threads.currentValues(spec.deployment.id, threadId) : { values: {}, checkpointId: null };
    const kwargs = run.kwargs as {
      input?: GraphValues | null;
      config?: { configurable?: object; tags?: string[]; recursion_limit?: number };
    };
    const sink = (event: GraphEvent) => {
      stream.publish(event);
      trace.record(event);
      if (threadId && event.kind === 'checkpoint' && event.ns.length === 0 && stopper.cause !== 'delete') {
        deps.threads.saveCheckpoint(spec.deployment.id, threadId, {
          checkpointId: event.checkpointId,
          parentCheckpointId: event.parentCheckpointId,
          runId: run.run_id,
          step: event.step,
          values: event.values,
          next: event.next,
        });
      }
    };
    const values = await graph.invoke(
      kwargs.input ?? {},
      prior.values,
      {
        runId: run.run_id,
        config: {
          configurable: { ...assistant.config.configurable, ...kwargs.config?.configurable },
          tags: [...(assistant.config.tags ?? []), ...(kwargs.config?.tags ?? [])],
        },
        signal: stopper.signal,
        sink,
        runMetadata: runMetadataOf(spec),
        now: () => deps.clock.now(),
        recursionLimit: kwargs.config?.recursion_limit ?? assistant.config.recursion_limit,
      },
      [],
      prior.checkpointId,
    );
    return { kind: 'success', values };
  } catch (thrown) {
    const cause = stopper.cause;
    if (cause) return { kind: 'stopped', cause };
    const error = asError(thrown);
    return { kind: 'error', error: { error: error.name, message: error.message } };
  }
}

/** Metadata every token and trace of the run carries. */
export function runMetadataOf(spec: RunSpec): Record<string, unknown> {
  return {
    ...spec.run.metadata,
    run_id: spec.run.run_id,
    thread_id: spec.run.thread_id,
    assistant_id: spec.assistant.assistant_id,
    graph_id: spec.assistant.graph_id,
    run_attempt: spec.attempt,
  };
}
