/**
 * The gate in front of every agent server request. In order: no or unknown API key → 401; a deployment that does
 * not exist or is being deleted → 404; a key of another organization than the deployment's owner → 403; a
 * deployment with no DEPLOYED revision yet → 503 with `Retry-After`, or 409 when its latest revision failed (no wait
 * brings it up).
 */
import type { MiddlewareHandler } from 'hono';
import { FAILED_REVISION_STATUSES } from '../../../api/schemas/control-plane-constants';
import { apiKeyOf } from '../../auth';
import { HttpError } from '../../errors';
import type { AgentServerDeps, AgentServerEnv } from './env';

const FAILED: readonly string[] = FAILED_REVISION_STATUSES;

/** Seconds a client is asked to wait before retrying a deployment that is still being deployed. */
export const NOT_DEPLOYED_RETRY_AFTER_SECONDS = 5;

/** The middleware that authenticates the caller and resolves the deployment. */
export function deploymentGate(
  deps: Pick<AgentServerDeps, 'auth' | 'directory' | 'assistants'>,
): MiddlewareHandler<AgentServerEnv> {
  return async (c, next) => {
    // Only the key matters here: the deployment, not X-Tenant-Id, says which workspace the request acts in.
    const principal = deps.auth.authenticate(
      apiKeyOf((name) => c.req.header(name)),
      undefined,
    );
    const deploymentId = c.req.param('deploymentId') ?? '';
    const view = deps.directory.lookup(deploymentId);
    if (!view) throw new HttpError(404, `Deployment ${deploymentId} not found`);
    if (view.organizationId !== principal.organizationId) {
      throw new HttpError(403, `This API key does not belong to the organization that owns deployment ${deploymentId}`);
    }
    if (view.state === 'not_deployed' && FAILED.includes(view.revisionStatus ?? '')) {
      // no retry brings a failed revision up: a new one must be made
      throw new HttpError(
        409,
        `Deployment ${deploymentId} has no deployed revision: its latest revision ended ${view.revisionStatus}. ` +
          `Update the deployment (PATCH /v2/deployments/${deploymentId}) with a source that builds to deploy a new revision`,
      );
    }
    if (view.state === 'not_deployed') {
      c.header('Retry-After', String(NOT_DEPLOYED_RETRY_AFTER_SECONDS));
      throw new HttpError(
        503,
        `Deployment ${deploymentId} is not deployed yet (latest revision ${view.revisionStatus ?? 'unknown'})`,
      );
    }
    deps.assistants.ensureDefaults(view.id, view.graphIds);
    c.set('principal', { ...principal, tenantId: view.tenantId });
    c.set('deployment', view);
    await next();
  };
}
