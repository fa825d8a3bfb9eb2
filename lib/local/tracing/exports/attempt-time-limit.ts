/**
 * The time limit of one attempt of an export run (the run timeout). It counts the time the attempt works, not the time
 * it waits for an encode thread: it runs while at least one of the attempt's segments (the whole run, for a run in
 * one piece) has its encoder, and is paused while every one of them waits for a worker. An attempt that never got a
 * worker has used none of its time, and is not recorded as too large for it.
 */
import type { Clock, TimerHandle } from '../../clock';

/** What an attempt tells its time limit. */
export interface AttemptWork {
  /** One more segment has its encoder (main thread or worker): the time limit runs. */
  resume(): void;
  /** A segment is done with its encoder; when it was the last one, the time limit is paused. */
  pause(): void;
}

/** The time limit of one attempt: `onExpired` is called once it has worked `limitMs`. */
export class AttemptTimeLimit implements AttemptWork {
  private working = 0;
  private remainingMs: number;
  private since = 0;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    limitMs: number,
    private readonly onExpired: () => void,
  ) {
    this.remainingMs = limitMs;
  }

  resume(): void {
    this.working += 1;
    if (this.working > 1 || this.stopped) return;
    this.since = this.clock.now();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.stopped = true;
      this.onExpired();
    }, this.remainingMs);
  }

  pause(): void {
    this.working -= 1;
    if (this.working > 0 || this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs -= this.clock.now() - this.since;
  }

  /** The attempt ended: the limit no longer applies. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
