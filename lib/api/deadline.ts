/**
 * The abort signal of one request attempt: the caller's signal and a timeout in one, remembering which fired so the
 * transport can tell an AbortError from a TimeoutError.
 *
 * Built by hand rather than with `AbortSignal.any`: the listener on the caller's signal is removed when the attempt
 * ends, so a long-lived signal (a provider's stop signal) does not accumulate one per request.
 */
export class Deadline {
  /** Aborts when the caller's signal aborts or the timeout elapses. */
  readonly signal: AbortSignal;
  /** Whether the timeout (not the caller) aborted the signal. */
  timedOut = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort = (): void => this.controller.abort(this.caller?.reason);

  /**
   * @param caller the caller's signal, if any
   * @param timeoutMs time until the signal aborts with a timeout
   */
  constructor(
    private readonly caller: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Whether the caller's signal has aborted. */
  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  /** The reason the caller gave when aborting. */
  get callerReason(): unknown {
    return this.caller?.reason;
  }

  /** Cancels the timeout but keeps following the caller's signal (a stream whose headers have arrived). */
  stopTimer(): void {
    clearTimeout(this.timer);
  }

  /** Cancels the timeout and stops following the caller's signal. */
  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
