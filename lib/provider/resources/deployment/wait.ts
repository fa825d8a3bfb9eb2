/**
 * Waiting for the control plane: a revision until it is deployed (and how a create or an update ends: it waits, unless
 * told not to, and learns how long that took for the next wait), a deleted deployment until it is gone.
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
import type { CallOptions, ControlPlaneClient } from '../../../api/control-plane';
import type { Deployment, Revision, SourceRevisionConfig } from '../../../api/schemas/control-plane';
import { isFailedRevisionStatus } from '../../../api/schemas/control-plane-constants';
import { formatDuration } from '../../framework/timeouts';
import type { Logger } from '../../log';
import { timeoutMs, type CreateRequest } from '../../framework';
import { toModel } from './body';
import { latestRevisionStatus } from './find';
import { apiFailure, waitEnded } from './messages';
import { DEPLOYMENT_TIMEOUTS, type DeploymentModel, type DeploymentSchema } from './schema';
import { PollInterval, isUnreadable, pollsThrough, sleep, waitLimit, WaitError, type PollSchedule } from '../shared/poll';

/** Statuses of a revision that a newer one superseded: the wait goes on with the newer one. */
const SUPERSEDED_STATUSES: readonly string[] = ['SKIPPED', 'INTERRUPTED'];

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
  const notFound = (require('../../../api/errors') as typeof import('../../../api/errors')).NotFoundError;
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
  const { isTransient } = require('../../../api/errors') as typeof import('../../../api/errors');
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

/**
 * Private state key: how long the deployment's last awaited revision took from creation to DEPLOYED, in ms. The next
 * wait expects about as long, so it needs only a poll or two (see `waitForRevision`).
 */
const REVISION_MS_KEY = 'revision_ms';

/** Waits (or not) for the latest revision after a create or an update, and returns the state; never throws, so the id is kept. */
export async function settle(
  req: Pick<CreateRequest<DeploymentSchema>, 'ctx' | 'signal' | 'diagnostics' | 'private'>,
  deployment: Deployment,
  planned: DeploymentModel,
  operation: 'create' | 'update',
  client: ControlPlaneClient,
  /** Time of the operation's timeout already spent (waiting for a deployment of the same name to be removed). */
  spentMs = 0,
): Promise<DeploymentModel> {
  const model = toModel(deployment, null, planned);
  const revisionId = deployment.latest_revision_id;
  if (!revisionId) return model;
  try {
    if (planned.wait_for_deployed === false) return { ...model, revision_status: await latestRevisionStatus(client, deployment, req.signal) };
    const timeoutMsAllowed = Math.max(0, timeoutMs(planned.timeouts, operation, DEPLOYMENT_TIMEOUTS) - spentMs);
    const expected = req.private.get(REVISION_MS_KEY);
    const revision = await waitForRevision({
      client,
      deploymentId: deployment.id,
      revisionId,
      timeoutMs: timeoutMsAllowed,
      signal: req.signal,
      log: req.ctx.log,
      expectedMs: typeof expected === 'number' && expected >= 0 ? expected : undefined,
    });
    const took = revisionDurationMs(revision);
    if (took !== undefined) req.private.set(REVISION_MS_KEY, took);
    // a DEPLOYED revision is the one that serves
    const deployed = { latest_revision_id: revision.id, active_revision_id: revision.id, revision_status: revision.status };
    return { ...model, ...deployed, repo_commit_sha: revision.source_revision_config.repo_commit_sha ?? null };
  } catch (err) {
    if (err instanceof WaitError) {
      waitEnded(req.diagnostics, err, operation, { id: deployment.id, name: model.name });
      if (err.reason === 'superseded') return superseded(client, deployment, planned, req.signal, model);
      return { ...model, latest_revision_id: err.revisionId ?? revisionId, revision_status: err.lastStatus ?? null };
    }
    if ((err as { status?: number }).status === 404) {
      // the deployment was just created or changed through this client, so its URL serves the API: the deployment is gone
      req.diagnostics.error(
        `Deployment "${model.name}" was deleted during the ${operation}`,
        `Deployment ${deployment.id} was deleted (outside Terraform) while this apply waited for its revision ${revisionId}. ` +
          'The next plan finds it gone and creates it again.',
      );
      return model;
    }
    const problem = apiFailure(req.diagnostics, err, `read revision ${revisionId} of deployment "${model.name}"`);
    req.diagnostics.error(problem.summary, problem.detail, problem.path);
    return model;
  }
}

/**
 * The state of a deployment whose awaited revision a newer one of another source replaced: as the platform has it now,
 * so that the next plan shows what differs from the configuration (the model as planned, when it cannot be read).
 */
async function superseded(
  client: ControlPlaneClient,
  deployment: Deployment,
  planned: DeploymentModel,
  signal: AbortSignal,
  fallback: DeploymentModel,
): Promise<DeploymentModel> {
  try {
    const current = await client.getDeployment(deployment.id, { signal });
    return toModel(current, await latestRevisionStatus(client, current, signal), planned);
  } catch {
    return fallback;
  }
}
