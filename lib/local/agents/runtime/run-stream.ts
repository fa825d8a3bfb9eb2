/**
 * The live output of one run, fanned out to every stream attached to it. Nothing is buffered: a stream attached
 * later receives only what the run produces from then on (joining does not replay).
 */
import type { StreamErrorChunk, StreamMode } from '../../../api/schemas/agent-server';
import type { GraphEvent } from '../engine/events';
import { eventName, RunEventFormatter } from './stream-format';

/** One attached stream. */
export interface StreamSubscriber {
  /** Modes it asked for. */
  readonly modes: ReadonlySet<StreamMode>;
  /** Whether chunks of subgraphs go out (with their namespace in the event name). */
  readonly subgraphs: boolean;
  /** Sends one SSE event. */
  send(event: string, json: string): void;
  /** Ends the stream. */
  close(): void;
}

/** The fan-out of one run. */
export class RunStream {
  private readonly subscribers = new Set<StreamSubscriber>();
  private modes = new Set<StreamMode>();
  private readonly formatter: RunEventFormatter;
  private finished = false;

  /** @param threadId the run's thread, null when stateless */
  constructor(threadId: string | null) {
    this.formatter = new RunEventFormatter(threadId);
  }

  /** True once the run has ended. */
  get ended(): boolean {
    return this.finished;
  }

  /** Number of attached streams. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Attaches a stream; returns the function that detaches it. An ended run closes the stream at once. */
  subscribe(subscriber: StreamSubscriber): () => void {
    if (this.finished) {
      subscriber.close();
      return () => undefined;
    }
    this.subscribers.add(subscriber);
    this.recomputeModes();
    return () => {
      if (this.subscribers.delete(subscriber)) this.recomputeModes();
    };
  }

  /**
   * Sends an event of the run to every attached stream, in the modes each asked for. Every event goes through the
   * formatter, also when nobody listens: the `events` mode of a stream that joins later names its parents from what
   * came before (the graphs' runs, the task of each model call in progress). With no mode asked for, it builds no
   * chunk.
   */
  publish(event: GraphEvent): void {
    const chunks = this.formatter.format(event, this.modes);
    if (chunks.length === 0) return;
    for (const subscriber of this.subscribers) {
      for (const chunk of chunks) {
        // a subgraph's start and end are the `lifecycle` mode's whole content, streamed with or without subgraphs
        const inSubgraph = chunk.ns.length > 0 && chunk.mode !== 'lifecycle';
        if (!subscriber.modes.has(chunk.mode) || (inSubgraph && !subscriber.subgraphs)) continue;
        subscriber.send(eventName(chunk), chunk.json);
      }
    }
  }

  /** Ends the run's output: an `error` event first when the run failed, then every stream closes. */
  end(error?: StreamErrorChunk): void {
    if (this.finished) return;
    this.finished = true;
    const errorJson = error && JSON.stringify(error);
    for (const subscriber of this.subscribers) {
      if (errorJson) subscriber.send('error', errorJson);
      subscriber.close();
    }
    this.subscribers.clear();
  }

  private recomputeModes(): void {
    const modes = new Set<StreamMode>();
    for (const subscriber of this.subscribers) for (const mode of subscriber.modes) modes.add(mode);
    this.modes = modes;
  }
}
