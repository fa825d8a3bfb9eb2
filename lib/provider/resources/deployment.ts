/**
 * `agentplatform_deployment`: an agent deployment of the control plane, built from a GitHub repository or run from a
 * container image. Create and update wait (unless told not to) until the latest revision is DEPLOYED; what the
 * platform cannot change in place forces replacement; secrets are write-only and sent when `secrets_version` changes.
 */
import type { Deployment } from '../../api/schemas/control-plane';
import {
  DEFAULT_GRAPH_CONFIG_PATH,
  DEFAULT_REPO_REF,
  DEPLOYMENT_SOURCES,
  DEPLOYMENT_TYPES,
  isBeingDeleted,
  isFailedRevisionStatus,
  isTagRef,
} from '../../api/schemas/control-plane-constants';
import {
  DiagnosticError,
  UNKNOWN,
  attr,
  defineResource,
  defineSchema,
  element,
  isKnown,
  timeoutMs,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type PlanRequest,
  type ReadRequest,
  type SchemaModel,
  type UpdateRequest,
  type ValidateRequest,
} from '../framework';
import { createBody, localSettings, patchOf, redeployPatch, sendsSecrets, sortedNames, toModel } from './deployment-body';
import { REPO_ACCESS, userInfoProblem, warnOfArguments, warnOfSecretsVersion } from './deployment-checks';
import { apiFailure, failedRevisionDeployedAgain, nameTaken, revisionInputDefaulted, waitEnded } from './deployment-messages';
import { DEPLOYMENT_TIMEOUTS, latestRevisionStatus, settle } from './deployment-settle';
import { WaitError, waitForDeletion } from './deployment-wait';
import { isUuid } from '../../api/ids';
import { sameUrl } from '../../api/urls';
import { planWorkspace, tenantIdAttribute, workspaceOf } from './workspace';
import { createOrAdopt, deploymentCreateKey, existingDeploymentId, holderState } from './deployment-unanswered';
import { tryUntilAnswered } from './unanswered-create';
import { confirmGone } from '../api-errors';
import { SMOKE_TEST_ATTRIBUTES, withSmokeTest } from './deployment-smoke-test';

// ---- model ----

/** The attributes of `agentplatform_deployment` as handlers see them. */
export type DeploymentModel = SchemaModel<typeof deploymentSchema>;

/** Attributes whose change makes the platform build and deploy a new revision (and `secrets_version`, with `secrets`). */
const REVISION_INPUTS = ['repo_ref', 'graph_config_path', 'image_uri'] as const;

// ---- schema ----

const timeouts = DEPLOYMENT_TIMEOUTS;
/** Within JavaScript's safe integers, where a whole number is still exact as the JSON number the API takes. */
const EXACT = { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const;

/** The schema of `agentplatform_deployment`. */
export const deploymentSchema = defineSchema({
  description:
    'An agent deployment: the platform builds it from a GitHub repository (`github`) or runs a container image ' +
    '(`external_docker`), as a series of revisions. Create and update wait until the latest revision is `DEPLOYED` ' +
    '(see `wait_for_deployed`).',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'The deployment id (a UUID); `terraform import` takes it.' }),
    name: attr.string({
      required: true,
      requiresReplace: true,
      description: 'Name, unique in the workspace, e.g. `support-agent`; the plan warns of a form the platform may refuse.',
    }),
    // spec: Revision, `source` is `github` or `external_docker`
    source: attr.string({
      required: true,
      requiresReplace: true,
      oneOf: DEPLOYMENT_SOURCES,
      description: 'Where the code comes from: `github` (built from `repo_url`) or `external_docker` (runs `image_uri`).',
    }),
    integration_id: attr.string({ optional: true, requiresReplace: true, description: 'GitHub integration that grants the platform access to the repository (`github` only).' }),
    repo_url: attr.string({ optional: true, requiresReplace: true, sameValue: sameUrl, validate: (value) => userInfoProblem(value, REPO_ACCESS), description: 'URL of the git repository (`github`: required).' }),
    deployment_type: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      requiresReplace: true,
      description:
        `Kind of deployment, e.g. ${DEPLOYMENT_TYPES.map((t) => `\`${t}\``).join(', ')}. Sent only when set; left out, the platform chooses, ` +
        'and its choice is read after apply.',
    }),
    repo_ref: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description: 'Branch, tag (`refs/tags/...`) or commit to deploy (`github` only). Default: the platform\'s (the local platform\'s: `main`), also once taken out of the configuration. A change deploys a new revision.',
    }),
    graph_config_path: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description: 'Path of the graph configuration in the repository (`github` only). Default: the platform\'s (the local platform\'s: `langgraph.json`), also once taken out of the configuration. A change deploys a new revision.',
    }),
    image_uri: attr.string({ optional: true, description: 'Container image to run (`external_docker`: required). A change deploys a new revision.' }),
    build_on_push: attr.bool({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description:
        'Build and deploy a new revision on every push to `repo_ref` (`github` only; not when `repo_ref` is a tag). Sent only when set; ' +
        'left out, the platform chooses, and its choice is read after apply.',
    }),
    custom_url: attr.string({ optional: true, sameValue: sameUrl, validate: (value) => userInfoProblem(value), description: 'URL the deployment is served at, instead of the platform\'s own.' }),
    resource_spec: attr.object(
      {
        // the spec shows nothing of resource_spec: a fraction is warned of at plan (deployment-checks.ts); the bounds are
        // no platform rule but the numbers a JSON number carries exactly, as the client writes it
        min_scale: attr.number({ optional: true, ...EXACT, description: 'Fewest replicas (0 lets it scale to zero).' }),
        max_scale: attr.number({ optional: true, ...EXACT, description: 'Most replicas; at least `min_scale`.' }),
        cpu: attr.number({ optional: true, description: 'CPUs per replica, e.g. `0.5` or `2`.' }),
        memory_mb: attr.number({ optional: true, ...EXACT, description: 'Memory per replica, in MiB.' }),
      },
      { optional: true, description: 'Scaling and size of the replicas; what is left out is the platform\'s default.' },
    ),
    secrets: attr.map(element.string, {
      optional: true,
      writeOnly: true,
      description:
        'Environment variables of the deployment, by name (names like `OPENAI_API_KEY`). Sent on create, whenever ' +
        '`secrets_version` changes, and whenever their names differ from `secret_names` (the names the deployment has on ' +
        'the platform); the platform never returns their values. Left out, the deployment\'s secrets are left as they ' +
        'are; `{}` with a new `secrets_version` removes them all. The plan warns of names, counts and lengths the platform may refuse.',
    }),
    secrets_version: attr.number({
      optional: true,
      integer: true,
      min: 1,
      description: 'Change it (for example, increment it) to send `secrets` again; changed secrets deploy a new revision.',
    }),
    secret_names: attr.list(element.string, {
      computed: true,
      useStateForUnknown: true,
      description:
        'Names of the secrets the deployment has on the platform (never their values), sorted. When `secrets` is set and ' +
        'its names differ (a name added to or removed from `secrets`, or the secrets replaced outside Terraform), the plan ' +
        'shows them changing to the configured names and the apply sends `secrets` again, with no new `secrets_version`. ' +
        'A changed value cannot be seen: it needs a new `secrets_version`.',
    }),
    wait_for_deployed: attr.bool({
      optional: true,
      computed: true,
      default: true,
      description:
        'Wait, on create and on changes that deploy a new revision, until that revision is `DEPLOYED`; a failed revision fails the apply. ' +
        'A newer revision of the same source that takes its place (new secrets, a push built) is waited for instead; one of another source, ' +
        'made outside Terraform meanwhile, fails the apply, and the state records what that one deploys. ' +
        'The wait polls quickly after each status change and less often while nothing changes; once a revision has been waited for, the ' +
        'provider remembers how long it took (in private state, never in a plan) and the next wait polls around that time (and every quarter ' +
        'of it on the way, so a quicker build is seen soon too), so an apply returns soon after `DEPLOYED` with a few polls.',
    }),
    timeouts,
    latest_revision_id: attr.string({ computed: true, useStateForUnknown: true, description: 'The newest revision.' }),
    active_revision_id: attr.string({
      computed: true,
      useStateForUnknown: true,
      description: 'The revision that serves: the newest once it is `DEPLOYED`, the one before while a newer one builds or after it failed (null before the first).',
    }),
    revision_status: attr.string({
      computed: true,
      useStateForUnknown: true,
      description:
        'Status of the newest revision, e.g. `DEPLOYED` or `BUILD_FAILED` (a status the platform added since is shown as it names it). When it is one of the failed statuses (`CREATE_FAILED`, `BUILD_FAILED`, `DEPLOY_FAILED`), ' +
        'the next plan deploys the same source again as a new revision, as an in-place update.',
    }),
    repo_commit_sha: attr.string({ computed: true, useStateForUnknown: true, description: 'Commit the newest revision was built from (`github`).' }),
    url: attr.string({ computed: true, useStateForUnknown: true, sameValue: sameUrl, description: 'Where the deployment is served: `custom_url`, or the platform\'s URL for it.' }),
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the deployment was created (RFC 3339).' }),
    tenant_id: tenantIdAttribute('deployment'),
    ...SMOKE_TEST_ATTRIBUTES,
  },
});

type Schema = typeof deploymentSchema;

// ---- validate ----

function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
  const set = (value: unknown): boolean => value !== null && value !== UNKNOWN;
  // spec: SourceRevisionConfig, `image_uri` is for the `external_docker` source only, `repo_ref` and
  // `graph_config_path` for `github` only; Revision, `external_docker` deploys from a container image
  if (config.source === 'github') {
    if (set(config.image_uri)) diagnostics.error('Invalid image_uri', '`image_uri` is for `external_docker` deployments; a `github` one is built from `repo_url`.', 'image_uri');
  } else if (config.source === 'external_docker') {
    if (config.image_uri === null) diagnostics.error('Missing image_uri', 'An `external_docker` deployment needs `image_uri`, the container image to run.', 'image_uri');
    for (const key of ['repo_ref', 'graph_config_path'] as const) {
      if (set(config[key])) diagnostics.error(`Invalid ${key}`, `\`${key}\` is for \`github\` deployments; an \`external_docker\` one runs \`image_uri\`.`, key);
    }
  }
  // spec: SourceRevisionConfig, when `repo_ref` is a tag, `build_on_push` must be false
  if (config.build_on_push === true && isKnown(config.repo_ref) && isTagRef(config.repo_ref)) {
    diagnostics.error(
      'Invalid build_on_push',
      `\`build_on_push\` must be false when \`repo_ref\` is a tag (${JSON.stringify(config.repo_ref)}): a tag never moves. Deploy a branch, or leave \`build_on_push\` out.`,
      'build_on_push',
    );
  }
}

// ---- plan ----

function plan({ config, prior, planned, diagnostics, ctx, requireReplace }: PlanRequest<Schema>): void {
  warnOfSecretsVersion(config.secrets, config.secrets_version, diagnostics);
  warnOfArguments(config, diagnostics);
  planWorkspace({ ctx, prior, planned, diagnostics, requireReplace }, 'deployment');
  if (!isKnown(planned.custom_url)) planned.url = UNKNOWN;
  else if (planned.custom_url !== null) planned.url = planned.custom_url;
  else if (prior && prior.custom_url !== null) planned.url = UNKNOWN;
  // the github-only attributes of a docker deployment stay null: nothing to learn after apply
  if (planned.source === 'external_docker') {
    for (const key of ['repo_ref', 'graph_config_path', 'repo_commit_sha'] as const) if (planned[key] === UNKNOWN) planned[key] = null;
  } else if (prior && planned.source === 'github') {
    // an argument taken out of the configuration goes back to the platform's default, as its description says (the
    // state would keep the old value otherwise, and the deployment its old branch)
    if (config.repo_ref === null) planned.repo_ref = DEFAULT_REPO_REF;
    if (config.graph_config_path === null) planned.graph_config_path = DEFAULT_GRAPH_CONFIG_PATH;
    for (const key of ['repo_ref', 'graph_config_path'] as const) {
      // not for a docker deployment replaced by a github one (the plan of a replacement starts from the old state)
      if (config[key] === null && prior.source === 'github' && prior[key] !== null && prior[key] !== planned[key]) {
        revisionInputDefaulted(diagnostics, key, prior[key], planned[key] as string);
      }
    }
  }
  // the names are all the platform shows of the secrets: configured ones that differ are sent (see patchOf); without
  // `secrets` in the configuration they are left as they are
  if (config.secrets !== null) planned.secret_names = isKnown(config.secrets) ? sortedNames(Object.keys(config.secrets)) : UNKNOWN;
  else if (!prior) planned.secret_names = [];
  if (!prior) return;
  const changes = (key: (typeof REVISION_INPUTS)[number]): boolean => !isKnown(planned[key]) || planned[key] !== prior[key];
  const secretsSent =
    config.secrets !== null && (!isKnown(config.secrets) || !isKnown(planned.secrets_version) || sendsSecrets(prior, planned.secrets_version, config.secrets));
  // names not read yet (a state written before `secret_names` existed) stay unread while nothing is sent
  if (!secretsSent && prior.secret_names === null) planned.secret_names = null;
  // without `secrets` in the configuration, a new secrets_version sends nothing (see patchOf); a latest revision that
  // failed is deployed again (see update), so the plan shows its status going
  const inputsChange = REVISION_INPUTS.some(changes) || secretsSent;
  if (!inputsChange && revisionFailed(prior)) failedRevisionDeployedAgain(diagnostics, prior.latest_revision_id, prior.revision_status);
  if (inputsChange || revisionFailed(prior)) {
    planned.latest_revision_id = UNKNOWN;
    planned.active_revision_id = UNKNOWN;
    planned.revision_status = UNKNOWN;
    planned.repo_commit_sha = prior.source === 'github' ? UNKNOWN : null;
  }
}

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

/** Whether the deployment's latest revision failed: the next apply deploys its source again. */
const revisionFailed = (state: DeploymentModel): boolean => isFailedRevisionStatus(state.revision_status);

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
