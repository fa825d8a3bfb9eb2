/**
 * New cloud credentials take seconds to reach the object store (AWS IAM is eventually consistent): a destination
 * made in the same apply as its access key (`ExportBucket.withAccessKey`, an `aws_iam_access_key`) is often refused
 * at first, as an unknown key or a denied write. The platform's validation is tried again for a while when it
 * refuses that way, as the AWS provider does for IAM, before the refusal is shown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { detailOf, statusOf } from './bulk-export-client';

/** How long refusals of new keys are tried again, at most (and never past the operation's own time limit). */
export const KEY_PROPAGATION_WINDOW_MS = 60_000;

/** The platform's refusals that new keys get until they have reached the store. */
const REFUSALS_OF_NEW_KEYS: readonly string[] = ['Key ID you provided does not exist', 'Access denied'];

const FIRST_DELAY_MS = 1_000;
const LONGEST_DELAY_MS = 10_000;

/** A refusal still given once the keys had time to propagate: how long they were given. */
export class RefusedAfterPropagation extends Error {
  constructor(
    readonly refusal: unknown,
    readonly waitedMs: number,
  ) {
    super('refused after waiting for the keys to propagate');
  }
}

/**
 * Runs `attempt` (given the time left) until it succeeds, fails otherwise than by a refusal of new keys, or the window
 * (within `timeLimitMs`) has passed. A refusal given after at least one wait is thrown as {@link RefusedAfterPropagation}.
 */
export async function whileKeysPropagate<T>(
  attempt: (timeLeftMs: number) => Promise<T>,
  options: { readonly timeLimitMs: number; readonly signal?: AbortSignal; readonly log: (line: string) => void },
): Promise<T> {
  const started = Date.now();
  const deadline = started + options.timeLimitMs;
  const windowEnd = started + Math.min(KEY_PROPAGATION_WINDOW_MS, options.timeLimitMs);
  let retried = false;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(2 * delay, LONGEST_DELAY_MS)) {
    try {
      return await attempt(deadline - Date.now());
    } catch (err) {
      const ofNewKeys = statusOf(err) === 400 && REFUSALS_OF_NEW_KEYS.includes(detailOf(err) ?? '');
      if (!ofNewKeys) throw err;
      if (Date.now() + delay > windowEnd || options.signal?.aborted) throw retried ? new RefusedAfterPropagation(err, Date.now() - started) : err;
      retried = true;
      options.log(`the platform refused the keys (${detailOf(err)}); new keys take seconds to reach the store: trying again in ${delay / 1000}s`);
      try {
        await sleep(delay, undefined, { signal: options.signal });
      } catch {
        throw err;
      }
    }
  }
}
