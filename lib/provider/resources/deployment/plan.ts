/**
 * Validation and plan of `agentplatform_deployment`: the source's arguments checked against each other, the plan-time
 * warnings, and what the plan shows changing (a new revision, the secrets' names, the url).
 */
import {
  DEFAULT_GRAPH_CONFIG_PATH,
  DEFAULT_REPO_REF,
  isFailedRevisionStatus,
  isTagRef,
} from '../../../api/schemas/control-plane-constants';
import { UNKNOWN, isKnown, type PlanRequest, type ValidateRequest } from '../../framework';
import { sendsSecrets, sortedNames } from './body';
import { warnOfArguments, warnOfSecretsVersion } from './checks';
import { failedRevisionDeployedAgain, revisionInputDefaulted } from './messages';
import { REVISION_INPUTS, type DeploymentModel, type DeploymentSchema } from './schema';
import { planWorkspace } from '../shared/workspace';

type Schema = DeploymentSchema;

// ---- validate ----

export function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
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

export function plan({ config, prior, planned, diagnostics, ctx, requireReplace }: PlanRequest<Schema>): void {
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

/** Whether the deployment's latest revision failed: the next apply deploys its source again. */
export const revisionFailed = (state: DeploymentModel): boolean => isFailedRevisionStatus(state.revision_status);
