/**
 * How `agentplatform_deployment` ends a create or an update: it waits (unless told not to) until the latest revision
 * is DEPLOYED, and learns how long that took for the next wait.
 */
import type { ControlPlaneClient } from '../../api/control-plane';
import type { Deployment } from '../../api/schemas/control-plane';
import { timeoutMs, timeoutsAttribute, type CreateRequest } from '../framework';
import type { DeploymentModel, deploymentSchema } from './deployment';
import { toModel } from './deployment-body';
import { apiFailure, waitEnded } from './deployment-messages';
import { revisionDurationMs, WaitError, waitForRevision } from './deployment-wait';

/** The `timeouts` of the resource: creates and updates wait for DEPLOYED, a delete until the deployment is gone. */
export const DEPLOYMENT_TIMEOUTS = timeoutsAttribute({ create: '30m', update: '30m', delete: '15m' });
const timeouts = DEPLOYMENT_TIMEOUTS;

/**
 * Private state key: how long the deployment's last awaited revision took from creation to DEPLOYED, in ms. The next
 * wait expects about as long, so it needs only a poll or two (see `deployment-wait.ts`).
 */
const REVISION_MS_KEY = 'revision_ms';

/** Waits (or not) for the latest revision after a create or an update, and returns the state; never throws, so the id is kept. */
export async function settle(
  req: Pick<CreateRequest<typeof deploymentSchema>, 'ctx' | 'signal' | 'diagnostics' | 'private'>,
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
    const timeoutMsAllowed = Math.max(0, timeoutMs(planned.timeouts, operation, timeouts) - spentMs);
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

/** The status of the latest revision: DEPLOYED when it is the active one, else asked for. */
export async function latestRevisionStatus(client: ControlPlaneClient, deployment: Deployment, signal: AbortSignal): Promise<string | null> {
  const latest = deployment.latest_revision_id;
  if (!latest) return null;
  if (latest === deployment.active_revision_id) return 'DEPLOYED';
  try {
    return (await client.getRevision(deployment.id, latest, { signal })).status;
  } catch (err) {
    // the deployment was just read (or created) through the same client, so its base URL serves the API: the
    // revision is gone
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}
