/**
 * A create the platform may have carried out without saying so. Another apply would make a second object then (a
 * second schedule that spawns exports, a second destination the platform cannot delete, a deployment whose name is
 * taken), so every create that fails this way looks for what it may have made, the same way: a list (of one page or a
 * few), bounded as a whole, of what was created since the request went out, by the platform's clock.
 */
import type { HttpTransport } from '../../api/http';

/**
 * What a failed create may have done: `created` when the platform answered 2xx with a body that could not be read,
 * `unknown` when the request was sent and no answer tells (see `mayHaveActed` in lib/api/retry.ts).
 */
export type CreateOutcome = 'created' | 'unknown';

/** A create whose outcome the platform did not tell, as the lookups take it. */
export interface UnansweredCreate {
  /** When the request went out, by this machine's clock. */
  readonly sentAtMs: number;
  /** What the create failed with. */
  readonly err: Error;
  readonly outcome: CreateOutcome;
  /** Terraform's stop signal: aborted, it leaves the lookup a few seconds only. */
  readonly stop: AbortSignal;
}

/** How much earlier than the request an object may say it was created: the `Date` header has whole seconds. */
const DATE_RESOLUTION_MS = 2_000;

/** Time allowed for a lookup, all of it (each request a single attempt). */
const LOOKUP_MS = 30_000;

/** Time allowed for a lookup once terraform is stopping (Ctrl-C): a few seconds, so that it stops soon. */
const LOOKUP_WHILE_STOPPING_MS = 5_000;

/** The outcome of a create that failed with `err`, or undefined when the platform refused it or never got it. */
export function createOutcome(err: unknown): CreateOutcome | undefined {
  const { mayHaveActed } = require('../../api/retry') as typeof import('../../api/retry');
  if (!mayHaveActed(err)) return undefined;
  return (err as { name?: unknown }).name === 'ResponseParseError' ? 'created' : 'unknown';
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

/** The options of a lookup's requests: one attempt each, and the lookup's signal. */
export interface LookupOptions {
  readonly timeoutMs: number;
  readonly retry: false;
  readonly signal: AbortSignal;
}

/**
 * Runs a lookup (one request, or the pages of a list) under one time limit for all of it, rather than the create's
 * signal, which terraform's stop has aborted: each request is one attempt (the transport's retries would multiply the
 * time), and the lookup ends after {@link LOOKUP_MS}, or a few seconds once terraform is stopping, whether it stopped
 * before the lookup or while it runs. Nothing of it outlives the lookup (no timer, no listener on `stop`).
 */
export async function withLookup<T>(stop: AbortSignal, lookup: (options: LookupOptions) => Promise<T>): Promise<T> {
  const limit = new AbortController();
  let timer = setTimeout(() => limit.abort(), stop.aborted ? LOOKUP_WHILE_STOPPING_MS : LOOKUP_MS);
  const shorten = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => limit.abort(), LOOKUP_WHILE_STOPPING_MS);
  };
  stop.addEventListener('abort', shorten, { once: true });
  try {
    return await lookup({ timeoutMs: stop.aborted ? LOOKUP_WHILE_STOPPING_MS : LOOKUP_MS, retry: false, signal: limit.signal });
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', shorten);
  }
}

/**
 * Whether an object created at `createdAt` (the platform's time) may be the one of a request sent at `sentAtMs`
 * (this machine's time), converted with the `Date` of the transport's last answer (the lookup's): one made before it
 * is not, nor one whose time cannot be compared (no answer carried the platform's time).
 */
export function createdSince(createdAt: string, sentAtMs: number, transport: Pick<HttpTransport, 'serverNow'>): boolean {
  const platformNow = transport.serverNow();
  if (platformNow === undefined) return false;
  const sentAtPlatformMs = sentAtMs + (platformNow - Date.now());
  return Date.parse(createdAt) >= sentAtPlatformMs - DATE_RESOLUTION_MS;
}
