/**
 * One Server-Sent Events response: `event:`/`data:` lines, written as the run produces them and coalesced into one
 * write per read of the socket, so a fast run is not slowed by one write per token. The client closing the
 * connection cancels the body, which the channel reports. While the run is silent (a long step, a run queued behind
 * another), a comment line goes out every `keepAliveMs`, so that clients and proxies that drop idle connections
 * keep this one.
 */
import type { StreamSubscriber } from '../runtime/run-stream';
import type { StreamMode } from '../../../api/schemas/agent-server';

/** Silence after which a stream sends a comment line. */
export const SSE_KEEP_ALIVE_MS = 15_000;
/** An SSE comment: clients ignore it. */
const KEEP_ALIVE = ': keep-alive\n\n';

/** A streaming response body that is also a run stream subscriber. */
export class SseChannel implements StreamSubscriber {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  private pending: string[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private cancelled = false;
  private readonly cancelListeners: (() => void)[] = [];

  /**
   * @param modes the modes this stream asked for @param subgraphs whether subgraph chunks go out
   * @param keepAliveMs silence after which a comment line goes out
   */
  constructor(
    readonly modes: ReadonlySet<StreamMode>,
    readonly subgraphs: boolean,
    private readonly keepAliveMs = SSE_KEEP_ALIVE_MS,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.pull(controller),
        cancel: () => this.onCancel(),
      },
      { highWaterMark: 0 },
    );
  }

  /** True once the client went away. */
  get disconnected(): boolean {
    return this.cancelled;
  }

  send(event: string, json: string): void {
    if (this.closed) return;
    this.pending.push(`event: ${event}\ndata: ${json}\n\n`);
    this.signal();
  }

  close(): void {
    this.closed = true;
    this.signal();
  }

  /** Calls `listener` when the client disconnects before the stream ended. */
  onDisconnect(listener: () => void): void {
    this.cancelListeners.push(listener);
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.pending.length === 0 && !this.closed) {
      let timer: NodeJS.Timeout | undefined;
      const woken = await new Promise<boolean>((resolve) => {
        this.wake = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.keepAliveMs);
      });
      clearTimeout(timer);
      if (!woken) {
        this.wake = undefined;
        controller.enqueue(Buffer.from(KEEP_ALIVE, 'utf8'));
        return;
      }
    }
    if (this.pending.length > 0) {
      const text = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
      this.pending = [];
      controller.enqueue(Buffer.from(text, 'utf8'));
    } else {
      controller.close();
    }
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private onCancel(): void {
    if (this.closed && this.pending.length === 0) return;
    this.cancelled = true;
    this.closed = true;
    this.pending = [];
    this.signal();
    for (const listener of this.cancelListeners) listener();
  }
}
