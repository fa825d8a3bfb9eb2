/**
 * Waiting for the control plane: a revision until it is deployed, a deleted deployment until it is gone.
 *
 * Polls adapt to what they see: quick right after a status change (the next one may follow soon, and the last one,
 * DEPLOYED, is what the user waits for), then further and further apart while nothing changes, up to a cap. When the
 * wait knows how long the deployment's previous revision took (see {@link revisionDurationMs}), it first sleeps
 * until about then, in steps of a quarter of that time (from {@link EXPECTED_STEP_MIN_MS} to {@link EXPECTED_STEP_MAX_MS}),
 * and only then polls quickly: builds of one
 * deployment take about the same time each time, so the wait sees DEPLOYED soon after it happens with a poll or two.
 * Every wait ends on its time limit or on StopProvider (Ctrl-C), and says which status it last saw. Rate limiting,
 * server errors and network failures that outlast the transport's own retries only delay the next poll, as does an
 * answer that cannot be read, unless several come in a row.
 */
import type { CallOptions, ControlPlaneClient } from '../../api/control-plane';
import type { Revision, SourceRevisionConfig } from '../../api/schemas/control-plane';
import { isFailedRevisionStatus } from '../../api/schemas/control-plane-constants';
import { Deadline } from '../../api/deadline';
import { formatDuration } from '../framework/timeouts';
import type { Logger } from '../log';

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

/** Statuses of a revision that a newer one superseded: the wait goes on with the newer one. */
const SUPERSEDED_STATUSES: readonly string[] = ['SKIPPED', 'INTERRUPTED'];

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
  const { ResponseParseError } = require('../../api/errors') as typeof import('../../api/errors');
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

/** What every wait needs. */
export interface WaitOptions {
  /** The control plane. */
  readonly client: ControlPlaneClient;
  /** Time allowed, in milliseconds. */
  readonly timeoutMs: number;
  /** StopProvider: ends the wait at once. */
  readonly signal: AbortSignal;
  /** Where status changes are logged. */
  readonly log: Logger;
  /** Poll delays. @default DEFAULT_POLL_SCHEDULE */
  readonly schedule?: PollSchedule;
  /** How long the awaited change is expected to take, when known: the first polls wait until about then. */
  readonly expectedMs?: number;
}

/** One poll's outcome: the status seen, and the result when the wait is over. */
interface PollStep<T> {
  readonly status: string;
  readonly done?: T;
  /** Set when the poll switched to another subject (a superseding revision): counts as a change. */
  readonly switched?: boolean;
}

/**
 * Waits until the revision is DEPLOYED and returns it. A failed revision, the time limit and StopProvider end the wait
 * with a {@link WaitError}. A revision that a newer one of the same source superseded (SKIPPED before it deployed,
 * INTERRUPTED while it deployed) is followed by the deployment's latest revision: the deployment serves what that one
 * deploys; a newer one of another source ends the wait (`superseded`): the apply's source is not deployed. With no
 * newer revision, an INTERRUPTED one is waited out like UNKNOWN, and a SKIPPED one ends the wait as failed (the
 * platform skips the revisions of a deployment it is deleting). A status this provider does not know (one the
 * platform added since) is not final: the wait goes on, and names it as the last status seen if it ends.
 */
export async function waitForRevision(
  options: WaitOptions & { readonly deploymentId: string; readonly revisionId: string },
): Promise<Revision> {
  const { client, deploymentId } = options;
  let revisionId = options.revisionId;
  return poll(options, () => `revision ${revisionId} to be DEPLOYED`, () => revisionId, async (call): Promise<PollStep<Revision>> => {
    const revision = await client.getRevision(deploymentId, revisionId, call);
    const status = revision.status;
    if (status === 'DEPLOYED') return { status, done: revision };
    if (isFailedRevisionStatus(status)) {
      throw new WaitError('failed', `revision ${revisionId} of deployment ${deploymentId} ended in ${status}`, status, revisionId);
    }
    if (SUPERSEDED_STATUSES.includes(status)) {
      const deployment = await client.getDeployment(deploymentId, call);
      const latest = deployment.latest_revision_id;
      if (latest && latest !== revisionId) {
        // a newer revision of the same source (secrets changed, a push built) deploys what was asked for; another one does not
        const newer = await client.getRevision(deploymentId, latest, call);
        const other = sourceDifference(revision.source_revision_config, newer.source_revision_config);
        if (other) {
          const why = `revision ${revisionId} of deployment ${deploymentId} was ${status} for revision ${latest}, made outside this apply, which deploys ${other}`;
          throw new WaitError('superseded', why, status, latest);
        }
        options.log.info(`revision ${revisionId} was ${status.toLowerCase()} for revision ${latest}: waiting for that one`);
        revisionId = latest;
        return { status, switched: true };
      }
      if (status === 'SKIPPED') {
        const why = `revision ${revisionId} of deployment ${deploymentId} was SKIPPED, and no newer revision replaces it`;
        throw new WaitError('failed', `${why} (the deployment is ${deployment.status ?? 'of a status not shown'})`, status, revisionId);
      }
    }
    return { status };
  });
}

/** The revision inputs in which `newer` differs from `awaited` (`image_uri "b" instead of "a"`), or undefined. */
function sourceDifference(awaited: SourceRevisionConfig, newer: SourceRevisionConfig): string | undefined {
  const inputs = ['repo_ref', 'graph_config_path', 'image_uri'] as const;
  const differences = inputs
    .filter((key) => (awaited[key] ?? null) !== (newer[key] ?? null))
    .map((key) => `${key} ${JSON.stringify(newer[key] ?? null)} instead of ${JSON.stringify(awaited[key] ?? null)}`);
  return differences.length ? differences.join(', ') : undefined;
}

/**
 * How long a deployed revision took, from its creation to DEPLOYED, by the platform's own clock; undefined when the
 * revision is not DEPLOYED or its times do not make sense. The next wait of the deployment expects about as long.
 */
export function revisionDurationMs(revision: Revision): number | undefined {
  if (revision.status !== 'DEPLOYED') return undefined;
  const took = Date.parse(revision.updated_at) - Date.parse(revision.created_at);
  return Number.isFinite(took) && took >= 0 ? took : undefined;
}

/** Waits until the deployment is gone (GET answers 404). */
export async function waitForDeletion(options: WaitOptions & { readonly deploymentId: string }): Promise<void> {
  const { client, deploymentId } = options;
  const notFound = (require('../../api/errors') as typeof import('../../api/errors')).NotFoundError;
  await poll(options, () => `deployment ${deploymentId} to be deleted`, () => undefined, async (call): Promise<PollStep<true>> => {
    try {
      // a deployment that does not say its status is still there
      return { status: (await client.getDeployment(deploymentId, call)).status ?? 'present' };
    } catch (err) {
      if (err instanceof notFound) return { status: 'DELETED', done: true };
      throw err;
    }
  });
}

/** Polls `step` until it is done, adapting the delay, bounded by the time limit and the stop signal. */
async function poll<T>(
  options: WaitOptions,
  awaited: () => string,
  subject: () => string | undefined,
  step: (call: CallOptions) => Promise<PollStep<T>>,
): Promise<T> {
  // Loaded with the client already (the caller holds one), so this costs nothing at start-up.
  const { isTransient } = require('../../api/errors') as typeof import('../../api/errors');
  const interval = new PollInterval(options.schedule, options.expectedMs);
  const started = Date.now();
  const { signal: limit, dispose } = waitLimit(options.signal, options.timeoutMs);
  try {
    return await pollUntil(options, interval, limit, { awaited, subject, step, isTransient, started });
  } finally {
    dispose();
  }
}

/** The polls of {@link poll}, under `limit`. */
async function pollUntil<T>(
  options: WaitOptions,
  interval: PollInterval,
  limit: AbortSignal,
  how: {
    readonly awaited: () => string;
    readonly subject: () => string | undefined;
    readonly step: (call: CallOptions) => Promise<PollStep<T>>;
    readonly isTransient: (err: unknown) => boolean;
    readonly started: number;
  },
): Promise<T> {
  const { awaited, subject, step, isTransient, started } = how;
  let lastStatus: string | undefined;
  let unreadable = 0;
  const ended = (): WaitError => {
    const last = lastStatus ? `last status ${lastStatus}` : 'no status seen yet';
    return options.signal.aborted
      ? new WaitError('stopped', `stopped waiting for ${awaited()} because terraform is stopping; ${last}`, lastStatus, subject())
      : new WaitError('timed-out', `timed out after ${formatDuration(options.timeoutMs)} waiting for ${awaited()}; ${last}`, lastStatus, subject());
  };
  // The first poll waits too: the revision (or the deletion) was asked for a moment ago and has not moved yet.
  let delay = interval.next(false, 0);
  for (;;) {
    await sleep(delay, limit);
    if (limit.aborted) throw ended();
    let changed = false;
    try {
      // each poll attempt has the provider's request_timeout; the wait's limit ends it at the wait's deadline
      const seen = await step({ signal: limit });
      unreadable = 0;
      changed = seen.status !== lastStatus || !!seen.switched;
      if (changed) options.log.debug(`waiting for ${awaited()}: ${seen.status}`);
      lastStatus = seen.status;
      if (seen.done !== undefined) return seen.done;
    } catch (err) {
      if (err instanceof WaitError) throw err;
      if (limit.aborted) throw ended();
      unreadable = isUnreadable(err) ? unreadable + 1 : 0;
      if (!pollsThrough(err, unreadable, isTransient)) throw err;
      options.log.warn(`waiting for ${awaited()}: ${(err as Error).message}; trying again`);
    }
    delay = interval.next(changed, Date.now() - started);
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
