/**
 * `agentplatform_deployment`: an agent deployment of the control plane, built from a GitHub repository or run from a
 * container image. Create and update wait (unless told not to) until the latest revision is DEPLOYED; what the
 * platform cannot change in place forces replacement; secrets are write-only and sent when `secrets_version` changes.
 */
import type { Deployment } from '../../../api/schemas/control-plane';
import { isBeingDeleted } from '../../../api/schemas/control-plane-constants';
import {
  DiagnosticError,
  defineResource,
  timeoutMs,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type ReadRequest,
  type UpdateRequest,
} from '../../framework';
import { createBody, localSettings, patchOf, redeployPatch, toModel } from './body';
import { apiFailure, nameTaken, waitEnded } from './messages';
import { settle, waitForDeletion } from './wait';
import { WaitError } from '../shared/poll';
import { isUuid } from '../../../api/ids';
import { workspaceOf } from '../shared/workspace';
import { createOrAdopt, deploymentCreateKey, existingDeploymentId, holderState, latestRevisionStatus } from './find';
import { tryUntilAnswered } from '../shared/unanswered-create';
import { confirmGone } from '../../api-errors';
import { DEPLOYMENT_TIMEOUTS, deploymentSchema, type DeploymentModel, type DeploymentSchema } from './schema';
import { plan, revisionFailed, validate } from './plan';
import { withSmokeTest } from './smoke-test';

type Schema = DeploymentSchema;
const timeouts = DEPLOYMENT_TIMEOUTS;

// ---- create ----

async function create({ config, planned, ctx, signal, diagnostics, private: kept }: CreateRequest<Schema>): Promise<DeploymentModel> {
  const client = ctx.controlPlane();
  let deployment: Deployment;
  const body = createBody(planned, config.secrets);
  const startedMs = Date.now();
  const creating = { signal, diagnostics, deadlineMs: startedMs + timeoutMs(planned.timeouts, 'create', timeouts), idempotencyKey: deploymentCreateKey(body) };
  // time of timeouts.create spent before the wait for DEPLOYED: on a deployment of the same name being removed, on
  // finding out what a create without answer made
  let spentMs = 0;
  try {
    try {
      ({ deployment, searchedMs: spentMs } = await createOrAdopt(client, body, creating));
    } catch (err) {
      if ((err as { status?: number }).status !== 409) throw err;
      const existingId = await existingDeploymentId(client, planned.name, err, signal);
      // the name is still held by a deployment being deleted: it is free once the platform has removed it (which may
      // have happened since the 409)
      const holder = existingId ? await holderState(client, existingId, signal) : 'live';
      if (holder === 'live') throw nameTaken(planned.name, existingId);
      if (holder === 'deleting') {
        ctx.log.info(`deployment ${existingId} of the same name is being deleted: waiting until it is gone`);
        await waitForDeletion({ client, deploymentId: existingId!, timeoutMs: timeoutMs(planned.timeouts, 'create', timeouts), signal, log: ctx.log });
      }
      const waitedMs = Date.now() - startedMs;
      const created = await createOrAdopt(client, body, creating);
      deployment = created.deployment;
      spentMs = waitedMs + created.searchedMs;
    }
  } catch (err) {
    if (err instanceof DiagnosticError) throw err;
    if (err instanceof WaitError) throw new DiagnosticError(`Deployment "${planned.name}": create waited in vain`, `${err.message}: a deployment of the same name is still being deleted.`);
    if ((err as { status?: number }).status === 409) throw nameTaken(planned.name, await existingDeploymentId(client, planned.name, err, signal));
    throw apiFailure(diagnostics, err, `create deployment "${planned.name}"`);
  }
  ctx.log.info(`created deployment ${deployment.id} (${deployment.name}), revision ${deployment.latest_revision_id}`);
  return settle({ ctx, signal, diagnostics, private: kept }, deployment, planned, 'create', client, spentMs);
}

// ---- read ----

async function read({ state, ctx, signal, diagnostics }: ReadRequest<Schema>): Promise<DeploymentModel | null> {
  const client = ctx.controlPlane(workspaceOf(state));
  let deployment: Deployment;
  try {
    deployment = await client.getDeployment(state.id!, { signal });
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
    await confirmGone(err, 'control-plane', () => client.listDeployments({ limit: 1 }, { signal }));
    return null;
  }
  if (isBeingDeleted(deployment.status)) {
    // going: the platform refuses every change to it, so it is planned as gone (create waits until it is)
    diagnostics.warning(
      `Deployment "${deployment.name ?? state.name}" is being deleted`,
      `Deployment ${deployment.id} is ${deployment.status}: deleted outside Terraform, or by a destroy that was interrupted. ` +
        'It is planned as gone: apply creates it again once the platform has removed it.',
    );
    return null;
  }
  return toModel(deployment, await latestRevisionStatus(client, deployment, signal), state);
}

// ---- update ----


async function update({ config, planned, prior, ctx, signal, diagnostics, private: kept }: UpdateRequest<Schema>): Promise<DeploymentModel> {
  const changes = patchOf(prior, planned, config.secrets);
  // a latest revision that failed is deployed again, also along with changes that make no revision of their own
  const makesRevision = changes?.source_revision_config !== undefined || changes?.secrets !== undefined;
  const redeploy = revisionFailed(prior) && !makesRevision ? redeployPatch(planned) : undefined;
  const patch = changes && redeploy ? { ...changes, ...redeploy } : (changes ?? redeploy);
  if (!patch) return { ...prior, ...localSettings(planned) };
  const client = ctx.controlPlane(workspaceOf(prior));
  let deployment: Deployment;
  try {
    deployment = await client.updateDeployment(prior.id!, patch, { signal });
  } catch (err) {
    throw apiFailure(diagnostics, err, `update deployment "${prior.name}"`);
  }
  if (deployment.latest_revision_id === prior.latest_revision_id) {
    const { latest_revision_id, active_revision_id, revision_status, repo_commit_sha } = prior;
    const kept = { latest_revision_id, active_revision_id, revision_status, repo_commit_sha };
    return { ...toModel(deployment, prior.revision_status, planned), ...kept };
  }
  ctx.log.info(`deployment ${deployment.id} has a new revision ${deployment.latest_revision_id}`);
  return settle({ ctx, signal, diagnostics, private: kept }, deployment, planned, 'update', client);
}

// ---- delete ----

async function remove({ state, ctx, signal, diagnostics }: DeleteRequest<Schema>): Promise<void> {
  const client = ctx.controlPlane(workspaceOf(state));
  const id = state.id!;
  try {
    // a DELETE is idempotent: tried again through passing failures for as long as timeouts.delete allows
    const deleting = { stop: signal, deadlineMs: Date.now() + timeoutMs(state.timeouts, 'delete', timeouts) };
    const sent = await tryUntilAnswered(deleting, async (options) => (await client.deleteDeployment(id, options), true));
    if (sent.found === undefined) throw sent.lastFailure ?? new Error('terraform stopped before the delete was answered');
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw apiFailure(diagnostics, err, `delete deployment "${state.name}"`);
    return confirmGone(err, 'control-plane', () => client.listDeployments({ limit: 1 }, { signal }));
  }
  try {
    await waitForDeletion({ client, deploymentId: id, timeoutMs: timeoutMs(state.timeouts, 'delete', timeouts), signal, log: ctx.log });
  } catch (err) {
    if (!(err instanceof WaitError)) throw err;
    waitEnded(diagnostics, err, 'delete', { id, name: state.name });
  }
}

// ---- import ----

async function importDeployment({ id, ctx, signal }: ImportRequest): Promise<Partial<DeploymentModel>> {
  // spec: Deployment, `id` is a uuid
  if (!isUuid(id)) throw new DiagnosticError('Invalid import id', `Import a deployment by its id, a UUID (the \`id\` the platform shows); got ${JSON.stringify(id)}.`);
  let deployment: Deployment;
  try {
    deployment = await ctx.controlPlane().getDeployment(id, { signal });
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
    throw new DiagnosticError('Cannot import deployment', `There is no deployment ${id} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`);
  }
  if (isBeingDeleted(deployment.status)) {
    throw new DiagnosticError('Cannot import deployment', `Deployment ${id} is being deleted (${deployment.status}): the platform refuses every change to it.`);
  }
  return { id, wait_for_deployed: true };
}

export default defineResource(
  withSmokeTest({ typeName: 'agentplatform_deployment', schema: deploymentSchema, validate, plan, create, read, update, delete: remove, import: importDeployment }),
);
