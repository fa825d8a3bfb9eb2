/**
 * The local platform's only source of time. Every delay (revision pipeline steps, delete delays, later export
 * schedules) goes through a Clock so tests can replace wall-clock time with a `ManualClock` they advance by hand.
 */

/** A handle returned by `Clock.setTimeout`, accepted by `Clock.clearTimeout`. */
export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

/** Time source and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `callback` once, `delayMs` from now. The timer never keeps the process alive on its own. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; unknown or already fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** Node's timers cap delays at 2^31-1 ms; longer waits are re-armed by their owner. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** Wall-clock time and Node timers (unref'd). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface ManualTimer {
  readonly id: number;
  readonly dueAt: number;
  readonly callback: () => void;
}

/**
 * A clock that only moves when `advance` is called. Timers fire in due order, each seeing `now()` equal to its own
 * due time, so a chain of timers set by callbacks (one pipeline step arming the next) runs within one `advance`.
 */
export class ManualClock implements Clock {
  private current: number;
  private timers: ManualTimer[] = [];
  private nextId = 1;

  /** @param startMs the initial time, in epoch milliseconds. @default Date.now() */
  constructor(startMs: number = Date.now()) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, dueAt: this.current + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id?: unknown }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.dueAt <= target).sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.dueAt);
      due.callback();
    }
    this.current = target;
  }
}
