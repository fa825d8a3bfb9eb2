/**
 * New cloud credentials take seconds to reach the object store (AWS IAM is eventually consistent): a destination
 * made in the same apply as its access key (`ExportBucket.withAccessKey`, an `aws_iam_access_key`) is often refused
 * at first, as an unknown key or a denied write. The platform's validation is tried again for a while when it
 * refuses that way, as the AWS provider does for IAM, before the refusal is shown.
 */
import { detailOf, statusOf } from './bulk-export-client';
import { sleep } from './poll';

/** How long refusals of new keys are tried again, at most (and never past the operation's own time limit). */
export const KEY_PROPAGATION_WINDOW_MS = 60_000;

/** The platform's refusals that new keys get until they have reached the store. */
const REFUSALS_OF_NEW_KEYS: readonly string[] = ['Key ID you provided does not exist', 'Access denied'];

const FIRST_DELAY_MS = 1_000;
const LONGEST_DELAY_MS = 10_000;
/** Time an attempt gets besides as long as the last one took: one too short would end in a timeout, not the refusal. */
const ATTEMPT_MARGIN_MS = 1_000;

/** A refusal of the keys that stands after they were given time to propagate (or the wait was interrupted). */
export class RefusedAfterPropagation extends Error {
  constructor(
    readonly refusal: unknown,
    readonly waitedMs: number,
    /** Terraform stopped the wait (Ctrl-C). */
    readonly interrupted: boolean,
  ) {
    super('refused after waiting for the keys to propagate');
  }
}

const isRefusalOfNewKeys = (err: unknown): boolean => statusOf(err) === 400 && REFUSALS_OF_NEW_KEYS.includes(detailOf(err) ?? '');

/**
 * Runs `attempt` (given the time left) until it succeeds, fails otherwise than by a refusal of new keys, or no
 * further attempt fits in the window (within `timeLimitMs`, with as long as the last attempt took). A refusal after
 * at least one wait, or a wait that terraform interrupted, is thrown as {@link RefusedAfterPropagation}.
 */
export async function whileKeysPropagate<T>(
  attempt: (timeLeftMs: number) => Promise<T>,
  options: { readonly timeLimitMs: number; readonly signal?: AbortSignal; readonly log: (line: string) => void },
): Promise<T> {
  const started = Date.now();
  const deadline = started + options.timeLimitMs;
  const windowEnd = started + Math.min(KEY_PROPAGATION_WINDOW_MS, options.timeLimitMs);
  const signal = options.signal ?? new AbortController().signal;
  let retried = false;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(2 * delay, LONGEST_DELAY_MS)) {
    const attemptStarted = Date.now();
    try {
      return await attempt(deadline - attemptStarted);
    } catch (err) {
      if (!isRefusalOfNewKeys(err)) throw err;
      const nextStart = Date.now() + delay;
      const nextNeeds = Date.now() - attemptStarted + ATTEMPT_MARGIN_MS;
      if (nextStart > windowEnd || nextStart + nextNeeds > deadline) throw retried ? new RefusedAfterPropagation(err, Date.now() - started, false) : err;
      retried = true;
      options.log(`the platform refused the keys (${detailOf(err)}); new keys take seconds to reach the store: trying again in ${delay / 1000}s`);
      await sleep(delay, signal);
      if (signal.aborted) throw new RefusedAfterPropagation(err, Date.now() - started, true);
    }
  }
}
