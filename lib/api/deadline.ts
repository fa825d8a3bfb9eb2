/**
 * The time limit of one request attempt, joined with the caller's AbortSignal: whichever comes first cancels the
 * attempt, once, and the deadline remembers which it was so the transport can tell an AbortError from a
 * TimeoutError.
 *
 * It cancels through a callback rather than a signal of its own: a JSON request aborts its undici dispatch directly,
 * without an AbortController, a signal and listeners per request (a measurable share of a fast request's cost);
 * a stream wraps the callback in an AbortController because undici's `request` takes a signal. The listener on the
 * caller's signal is removed when the attempt ends, so a long-lived signal (a provider's stop signal) does not
 * accumulate one per request.
 */
export class Deadline {
  /** Whether the timeout (not the caller) cancelled the attempt. */
  timedOut = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private onCallerAbort?: () => void;

  /**
   * @param caller the caller's signal, if any
   * @param timeoutMs time until the attempt is cancelled with a timeout; `Infinity`: no time limit, only the caller's
   * signal (a request that waits for as long as something on the server takes)
   * @param cancel called once, with the reason, when the timeout elapses or the caller aborts
   */
  constructor(
    private readonly caller: AbortSignal | undefined,
    readonly timeoutMs: number,
    cancel: (reason: unknown) => void,
  ) {
    this.timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          this.timedOut = true;
          this.dispose();
          cancel(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
    if (!caller) return;
    this.onCallerAbort = () => {
      this.dispose();
      cancel(caller.reason);
    };
    if (caller.aborted) this.onCallerAbort();
    else caller.addEventListener('abort', this.onCallerAbort, { once: true });
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
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
