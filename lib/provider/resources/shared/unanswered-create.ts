/**
 * A create the platform may have carried out without saying so. Another apply would make a second object then (a
 * second schedule that spawns exports, a second destination the platform cannot delete, a deployment whose name is
 * taken), so every create goes the same way (docs/convergence.md):
 * - it carries an `Idempotency-Key` derived from what it asks for, the same in every apply: a platform that honours
 *   it answers a create sent again, by this apply or a later one, with what the first one made;
 * - when no answer tells what it did, idempotent look-ups are tried again and again (backoff, `Retry-After`) within
 *   the create's time limit, and what this create made is taken into state: recognised by the settings it asked for
 *   and by being made since the request went out, by the platform's clock.
 */
import { createHash } from 'node:crypto';
import type { HttpTransport } from '../../../api/http';

/**
 * What a failed create may have done: `created` when the platform answered 2xx with a body that could not be read,
 * `unknown` when the request was sent and no answer tells (see `mayHaveActed` in lib/api/retry.ts).
 */
export type CreateOutcome = 'created' | 'unknown';

/** A create whose outcome the platform did not tell, as the look-ups take it. */
export interface UnansweredCreate {
  /** When the request went out, by this machine's clock. */
  readonly sentAtMs: number;
  /** What the create failed with. */
  readonly err: Error;
  readonly outcome: CreateOutcome;
  /** Terraform's stop signal: aborted, it leaves the look-ups a few seconds only. */
  readonly stop: AbortSignal;
  /** When the create's time limit (`timeouts.create`) runs out, by this machine's clock: the look-ups end then. */
  readonly deadlineMs: number;
}

/** How much earlier than the request an object may say it was created: the `Date` header has whole seconds. */
const DATE_RESOLUTION_MS = 2_000;

/** Time allowed for each look-up request. */
const LOOKUP_ATTEMPT_MS = 30_000;

/**
 * Time left to the look-ups once terraform is stopping (Ctrl-C), so that it stops soon; and the least they have when
 * the create's time limit is (nearly) used up.
 */
const LOOKUP_WHILE_STOPPING_MS = 5_000;

/**
 * How long look-ups go on once one has found nothing: a request held on its way (by a proxy, a slow gateway) may still
 * reach the platform, and a list may be answered from a replica that has not seen the new object yet.
 */
export const NOTHING_FOUND_GRACE_MS = 10_000;

/** Backoff between look-ups when the platform sends no `Retry-After`: from 250 ms, doubling, at most 5 s, jittered. */
const LOOKUP_BACKOFF = { maxRetries: Number.MAX_SAFE_INTEGER, baseDelayMs: 250, maxDelayMs: 5_000 };

/** The outcome of a create that failed with `err`, or undefined when the platform refused it or never got it. */
export function createOutcome(err: unknown): CreateOutcome | undefined {
  const { mayHaveActed } = require('../../../api/retry') as typeof import('../../../api/retry');
  if (!mayHaveActed(err)) return undefined;
  return (err as { name?: unknown }).name === 'ResponseParseError' ? 'created' : 'unknown';
}

/**
 * The `Idempotency-Key` of a create of `resourceType` asking for `settings` (the request body without secret values,
 * which never leave the request they belong to): the same in every apply of the same configuration, so that a
 * platform that honours keys answers a later apply's create with what an earlier, unanswered one made.
 */
export function createKey(resourceType: string, settings: unknown): string {
  const digest = createHash('sha256').update(`${resourceType}\n${canonicalJson(settings)}`).digest('base64url');
  return `terraform-${resourceType}-${digest}`;
}

/** How many creates of this process took each key. */
const keysTaken = new Map<string, number>();

/**
 * The key of one create (call it once per create): {@link createKey}, and for a second create of the very same
 * settings in this apply (two resources whose requests are identical), that key numbered, so that each gets an object
 * of its own rather than both the first one's.
 */
export function takeCreateKey(resourceType: string, settings: unknown): string {
  const key = createKey(resourceType, settings);
  const taken = (keysTaken.get(key) ?? 0) + 1;
  keysTaken.set(key, taken);
  return taken === 1 ? key : `${key}-${taken}`;
}

/** The keys of the creates this process planned (a plan sees every resource of the configuration). */
const keysPlanned = new Set<string>();

/**
 * Whether another create planned by this process asks for the very same `settings` (two resources whose requests
 * are identical): after a lost answer, a platform that honours keys may answer one resource's create of a later apply
 * with the other's object, since nothing but the order of creates tells their keys apart. The plan warns of it.
 */
export function plannedTwice(resourceType: string, settings: unknown): boolean {
  const key = createKey(resourceType, settings);
  if (keysPlanned.has(key)) return true;
  keysPlanned.add(key);
  return false;
}

/** JSON with object keys sorted and undefined members left out, so that equal settings give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** The summary of a diagnostic about the create of `what` (e.g. `the bulk export`). */
export function unansweredSummary(outcome: CreateOutcome, what: string): string {
  return outcome === 'created' ? `The platform's answer to the create of ${what} could not be read` : `The platform did not answer the create of ${what}`;
}

/** What the answer, or its absence, says of the object: a sentence for the diagnostic. */
export function outcomeMeans(outcome: CreateOutcome, object: string): string {
  return outcome === 'created'
    ? `It answered with a success, so it created the ${object}`
    : `It may have created the ${object} all the same`;
}

/** The options of one look-up request: one attempt (the look-ups retry as a whole), and the look-ups' signal. */
export interface LookupOptions {
  readonly timeoutMs: number;
  readonly retry: false;
  readonly signal: AbortSignal;
}

/** What the look-ups found: the object, or nothing (`listed`: a look-up was answered and did not show it). */
export type LookupResult<T> =
  | { readonly found: T }
  | { readonly found?: undefined; readonly listed: boolean; readonly lastFailure?: Error };

/**
 * Tries `lookup` (an idempotent request, or a few: a look-up, a create sent again under its key, a delete) until it
 * answers with the object (returns it), says the search is over (throws something that is neither a transient failure
 * nor one that may hide a success: that error is thrown), or time runs out: the deadline (but a few seconds at least),
 * a few seconds once terraform is stopping, or {@link NOTHING_FOUND_GRACE_MS} after a look-up that found nothing
 * (returned null). Between tries it waits the platform's `Retry-After`, or a backoff. Nothing of it outlives the tries
 * (no timer, no listener on `stop`).
 */
export async function tryUntilAnswered<T>(sent: Pick<UnansweredCreate, 'stop' | 'deadlineMs'>, lookup: (options: LookupOptions) => Promise<T | null>): Promise<LookupResult<T>> {
  const { isTransient } = require('../../../api/errors') as typeof import('../../../api/errors');
  const { mayHaveActed, retryDelayMs, sleep } = require('../../../api/retry') as typeof import('../../../api/retry');
  const limit = new AbortController();
  // a few seconds at least, also when the create itself used up its time limit (a create that timed out)
  let endsAt = sent.stop.aborted ? Date.now() + LOOKUP_WHILE_STOPPING_MS : Math.max(sent.deadlineMs, Date.now() + LOOKUP_WHILE_STOPPING_MS);
  let timer = setTimeout(() => limit.abort(), Math.max(0, endsAt - Date.now()));
  const endBy = (atMs: number): void => {
    if (atMs >= endsAt) return;
    endsAt = atMs;
    clearTimeout(timer);
    timer = setTimeout(() => limit.abort(), Math.max(0, endsAt - Date.now()));
  };
  const stopping = (): void => endBy(Date.now() + LOOKUP_WHILE_STOPPING_MS);
  sent.stop.addEventListener('abort', stopping, { once: true });
  let listed = false;
  let lastFailure: Error | undefined;
  try {
    for (let attempt = 0; !limit.signal.aborted; attempt += 1) {
      let failure: unknown;
      try {
        const found = await lookup({ timeoutMs: Math.max(1, Math.min(LOOKUP_ATTEMPT_MS, endsAt - Date.now())), retry: false, signal: limit.signal });
        if (found !== null) return { found };
        if (!listed) endBy(Date.now() + NOTHING_FOUND_GRACE_MS);
        listed = true;
      } catch (err) {
        lastFailure = err as Error;
        if (limit.signal.aborted) break;
        if (!isTransient(err) && !mayHaveActed(err)) throw err;
        failure = err;
      }
      await sleep(retryDelayMs(failure, attempt, LOOKUP_BACKOFF, Math.random), limit.signal).catch(() => undefined);
    }
    return { listed, lastFailure };
  } finally {
    clearTimeout(timer);
    sent.stop.removeEventListener('abort', stopping);
  }
}

/**
 * Whether an object created at `createdAt` (the platform's time) may be the one of a request sent at `sentAtMs`
 * (this machine's time), converted with the `Date` of the transport's last answer (the look-up's): one made before it
 * is not, nor one whose time cannot be compared (no answer carried the platform's time).
 */
export function createdSince(createdAt: string | undefined, sentAtMs: number, transport: Pick<HttpTransport, 'serverNow'>): boolean {
  const platformNow = transport.serverNow();
  if (platformNow === undefined || createdAt === undefined) return false;
  const sentAtPlatformMs = sentAtMs + (platformNow - Date.now());
  return Date.parse(createdAt) >= sentAtPlatformMs - DATE_RESOLUTION_MS;
}
