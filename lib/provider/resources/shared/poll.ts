/**
 * The pieces every wait of the provider shares: how the delay between polls grows (quick right after a status change,
 * then further and further apart while nothing changes, up to a cap; when the wait knows how long the awaited thing
 * took last time, it first sleeps until about then, in steps of a quarter of that time, from
 * {@link EXPECTED_STEP_MIN_MS} to {@link EXPECTED_STEP_MAX_MS}), the time limit, the sleep between polls, which
 * failures a wait polls through, and how a wait that ended without success says so.
 */
import { Deadline } from '../../../api/deadline';

/** How the delay between polls grows. */
export interface PollSchedule {
  /** Delay after a status change (and before the second poll). */
  readonly initialMs: number;
  /** Growth of the delay per poll that sees no change. */
  readonly factor: number;
  /** Longest delay. */
  readonly maxMs: number;
}

/** 100 ms after a change, ×1.5 per unchanged poll, at most 5 s. */
export const DEFAULT_POLL_SCHEDULE: PollSchedule = { initialMs: 100, factor: 1.5, maxMs: 5000 };

/**
 * Answers in a row that could not be read (a proxy's page, a body cut short) that a wait polls through: one such
 * answer among good ones is a passing fault of the way to the platform, and the revision or export goes on all the
 * same; more in a row are reported.
 */
export const UNREADABLE_POLLS_MAX = 3;

/**
 * Whether a wait polls again after `err`: a transient failure (see `isTransient`), or an answer it could not read while
 * fewer than {@link UNREADABLE_POLLS_MAX} came in a row (`unreadable` counts them, this one included).
 */
export function pollsThrough(err: unknown, unreadable: number, isTransient: (err: unknown) => boolean): boolean {
  return isTransient(err) || (isUnreadable(err) && unreadable < UNREADABLE_POLLS_MAX);
}

/** Whether `err` is an answer that could not be read (not JSON, or not of the expected shape). */
export function isUnreadable(err: unknown): boolean {
  // loaded with the client already (the caller holds one)
  const { ResponseParseError } = require('../../../api/errors') as typeof import('../../../api/errors');
  return err instanceof ResponseParseError;
}

/** Before the expected end of a revision, the longest sleep between polls (a build may be quicker than last time)... */
export const EXPECTED_STEP_MAX_MS = 10_000;
/**
 * ...and, under that, a quarter of the expected time, but never less than this: a revision expected to take 16 s
 * is polled about every 4 s on its way (a quicker one is seen within 4 s, not 10), one expected to take 2 s once.
 */
export const EXPECTED_STEP_MIN_MS = 2_000;

/** Polls aim this much past the expected end (a build varies a little from one revision to the next)... */
const EXPECTED_MARGIN = 1.05;
/** ...and this much more, for the platform's and this machine's timers. */
const EXPECTED_SLACK_MS = 50;

/** The delays of one wait. */
export class PollInterval {
  private current: number;

  /**
   * @param schedule how the delay grows once the expected end (if any) has passed.
   * @param expectedMs how long the awaited thing is expected to take from the wait's start, when known.
   */
  constructor(
    private readonly schedule: PollSchedule = DEFAULT_POLL_SCHEDULE,
    private readonly expectedMs?: number,
  ) {
    this.current = schedule.initialMs;
  }

  /**
   * The delay before the next poll; `changed` says whether the last poll saw a new status, `elapsedMs` how long the
   * wait has lasted so far. Before the expected end the delay reaches for it; after, it grows from the initial delay.
   */
  next(changed: boolean, elapsedMs = 0): number {
    const aim = this.expectedMs === undefined ? 0 : this.expectedMs * EXPECTED_MARGIN + EXPECTED_SLACK_MS - elapsedMs;
    const step = Math.min(EXPECTED_STEP_MAX_MS, Math.max(EXPECTED_STEP_MIN_MS, (this.expectedMs ?? 0) / 4));
    if (aim >= this.schedule.initialMs) return Math.min(Math.ceil(aim), Math.ceil(step));
    if (changed) this.current = this.schedule.initialMs;
    const delay = this.current;
    this.current = Math.min(this.current * this.schedule.factor, this.schedule.maxMs);
    return delay;
  }
}

/**
 * The signal of a wait: aborted by Terraform's stop or at the time limit, whichever comes first; `dispose` when the
 * wait ends. A timer, not `AbortSignal.timeout`: combined by `AbortSignal.any` and held by nothing else, Node 20's
 * timeout signal was garbage-collected and never fired, and the wait outlasted its limit.
 */
export function waitLimit(stop: AbortSignal, timeoutMs: number): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const deadline = new Deadline(stop, Math.max(0, timeoutMs), (reason) => controller.abort(reason));
  return { signal: controller.signal, dispose: () => deadline.dispose() };
}

/**
 * Why a wait ended without success: `superseded` when a newer revision took the awaited one's place with another
 * source (made outside this apply), so what the apply was to deploy will not be.
 */
export type WaitFailure = 'failed' | 'superseded' | 'timed-out' | 'stopped';

/** A wait that ended without success; the message names what was awaited and the last status seen. */
export class WaitError extends Error {
  constructor(
    /** What ended the wait. */
    readonly reason: WaitFailure,
    message: string,
    /** The last status seen, if any poll succeeded. */
    readonly lastStatus: string | undefined,
    /** The revision waited for last (a superseding revision may have replaced the first one). */
    readonly revisionId?: string,
  ) {
    super(message);
    this.name = 'WaitError';
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the waits' sleep between polls). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
