/**
 * Validation and plan of `agentplatform_deployment`: the source's arguments checked against each other, what the plan
 * shows changing (a new revision, the secrets' names, the url), and the plan-time warnings. The spec shows almost
 * nothing of a deployment's fields, so almost nothing is refused: what the local platform refuses (lib/api's
 * constants) is a warning that the platform may refuse it, on the attribute at fault. Messages never carry a secret
 * value.
 */
import { httpUrlProblem, redactUserInfo } from '../../../api/urls';
import {
  DEFAULT_GRAPH_CONFIG_PATH,
  DEFAULT_REPO_REF,
  DEPLOYMENT_NAME_MAX_LENGTH,
  DEPLOYMENT_NAME_PATTERN,
  MAX_SECRET_NAME_LENGTH,
  MAX_SECRETS,
  MAX_SECRET_VALUE_LENGTH,
  SECRET_NAME_PATTERN,
  isFailedRevisionStatus,
  isTagRef,
} from '../../../api/schemas/control-plane-constants';
import { UNKNOWN, isKnown, type Diagnostics, type PlanRequest, type ValidateRequest } from '../../framework';
import { sendsSecrets, sortedNames } from './body';
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

// ---- warnings ----

/** The arguments of a deployment as the warnings read them. */
interface DeploymentArguments {
  readonly source: unknown;
  readonly image_uri: unknown;
  readonly build_on_push: unknown;
  readonly resource_spec: { readonly min_scale: unknown; readonly max_scale: unknown; readonly cpu: unknown; readonly memory_mb: unknown } | null | typeof UNKNOWN;
  readonly name: unknown;
  readonly repo_url: unknown;
  readonly custom_url: unknown;
  readonly integration_id: unknown;
  readonly repo_ref: unknown;
  readonly graph_config_path: unknown;
  readonly secrets: Record<string, unknown> | null | typeof UNKNOWN;
}

const MAY_REFUSE = 'the platform may refuse it';

/** The warnings of arguments the spec sets no rule for and a platform may refuse (the local platform does). */
export function warnOfArguments(config: DeploymentArguments, diagnostics: Diagnostics): void {
  const { name } = config;
  if (typeof name === 'string' && (name.length > DEPLOYMENT_NAME_MAX_LENGTH || !DEPLOYMENT_NAME_PATTERN.test(name))) {
    diagnostics.warning(
      'Unusual deployment name',
      `${JSON.stringify(name)} is not a letter or digit followed by letters, digits, "-" and "_", at most ${DEPLOYMENT_NAME_MAX_LENGTH} characters: ${MAY_REFUSE}.`,
      'name',
    );
  }
  for (const key of ['repo_url', 'custom_url'] as const) {
    const value = config[key];
    if (typeof value === 'string' && httpUrlProblem(value) === 'not-http-url') {
      diagnostics.warning(
        `Unusual ${key}`,
        `${JSON.stringify(redactUserInfo(value))} is not an absolute http:// or https:// URL written in full, with no spaces (e.g. "https://github.com/acme/agent"): ${MAY_REFUSE}.`,
        key,
      );
    }
  }
  for (const key of ['integration_id', 'repo_ref', 'graph_config_path'] as const) {
    const value = config[key];
    if (typeof value === 'string' && value.trim() === '') diagnostics.warning(`Empty ${key}`, `\`${key}\` is empty (is its variable set?): ${MAY_REFUSE}.`, key);
  }
  warnOfSource(config, diagnostics);
  warnOfSecrets(config.secrets, diagnostics);
}

/** The warnings of settings that do not fit the deployment's source, and of a scale the platform may refuse. */
function warnOfSource(config: DeploymentArguments, diagnostics: Diagnostics): void {
  const set = (value: unknown): boolean => value !== null && isKnown(value);
  if (config.source === 'github' && config.repo_url === null) {
    diagnostics.warning('Missing repo_url', `A \`github\` deployment is built from a repository, and \`repo_url\` gives none: ${MAY_REFUSE}.`, 'repo_url');
  }
  if (config.source === 'external_docker') {
    for (const key of ['repo_url', 'integration_id', 'build_on_push'] as const) {
      if (set(config[key]) && config[key] !== false) {
        diagnostics.warning(`Unused ${key}`, `\`${key}\` is for \`github\` deployments; an \`external_docker\` one runs \`image_uri\`: ${MAY_REFUSE}.`, key);
      }
    }
  }
  const spec = config.resource_spec;
  if (spec === null || !isKnown(spec)) return;
  const at = (key: string) => [{ attribute: 'resource_spec' }, { attribute: key }];
  if (typeof spec.min_scale === 'number' && typeof spec.max_scale === 'number' && spec.min_scale > spec.max_scale) {
    diagnostics.warning('Unusual resource_spec.min_scale', `\`min_scale\` (${spec.min_scale}) is more than \`max_scale\` (${spec.max_scale}): ${MAY_REFUSE}.`, at('min_scale'));
  }
  // the local platform's rules (the spec shows nothing of resource_spec): whole counts of replicas and MiB, no replicas
  // below 0, at least 1 at most, some CPU and memory
  for (const key of ['min_scale', 'max_scale', 'memory_mb'] as const) {
    const value = spec[key];
    if (typeof value === 'number' && !Number.isInteger(value)) {
      diagnostics.warning(`Unusual resource_spec.${key}`, `\`${key}\` (${value}) is not a whole number: ${MAY_REFUSE}.`, at(key));
    }
  }
  for (const [key, least, strictly] of [['min_scale', 0, false], ['max_scale', 1, false], ['cpu', 0, true], ['memory_mb', 1, false]] as const) {
    const value = spec[key];
    if (typeof value === 'number' && (strictly ? value <= least : value < least)) {
      diagnostics.warning(`Unusual resource_spec.${key}`, `\`${key}\` (${value}) is ${strictly ? 'not more than' : 'less than'} ${least}: ${MAY_REFUSE}.`, at(key));
    }
  }
}

/** The warnings of `secrets`: names, count and value lengths the local platform refuses. */
function warnOfSecrets(secrets: Record<string, unknown> | null | typeof UNKNOWN, diagnostics: Diagnostics): void {
  if (secrets === null || !isKnown(secrets)) return;
  const names = Object.keys(secrets);
  for (const name of names.filter((n) => !SECRET_NAME_PATTERN.test(n))) {
    diagnostics.warning('Unusual secret name', `${JSON.stringify(name)} is not an environment variable name (letters, digits and "_", not starting with a digit): ${MAY_REFUSE}.`, [
      { attribute: 'secrets' },
      { key: name },
    ]);
  }
  for (const name of names.filter((n) => n.length > MAX_SECRET_NAME_LENGTH)) {
    diagnostics.warning('Long secret name', `Secret name ${JSON.stringify(name)} has ${name.length} characters, more than ${MAX_SECRET_NAME_LENGTH}: ${MAY_REFUSE}.`, [
      { attribute: 'secrets' },
      { key: name },
    ]);
  }
  if (names.length > MAX_SECRETS) diagnostics.warning('Many secrets', `The deployment has ${names.length} secrets, more than ${MAX_SECRETS}: ${MAY_REFUSE}.`, 'secrets');
  for (const [name, value] of Object.entries(secrets)) {
    // characters as the platform counts them (code points); the value itself is never shown
    const length = typeof value === 'string' ? [...value].length : 0;
    if (length > MAX_SECRET_VALUE_LENGTH) {
      diagnostics.warning(
        'Long secret value',
        `The value of secret ${JSON.stringify(name)} has ${length} characters, more than ${MAX_SECRET_VALUE_LENGTH}: ${MAY_REFUSE}.`,
        [{ attribute: 'secrets' }, { key: name }],
      );
    }
  }
}

/**
 * The warnings of `secrets` without `secrets_version` and the other way round. They are given at plan, not at
 * validate: terraform validates the configuration on destroy too, where neither matters.
 */
export function warnOfSecretsVersion(secrets: unknown, version: unknown, diagnostics: Diagnostics): void {
  if (secrets === null && version !== null) {
    diagnostics.warning(
      'secrets_version without secrets',
      '`secrets_version` sends `secrets` when it changes, and the configuration has none: the deployment\'s secrets are left as they are. ' +
        'To remove them all, set `secrets = {}`.',
      'secrets_version',
    );
  }
  if (secrets !== null && version === null) {
    diagnostics.warning(
      'secrets without secrets_version',
      '`secrets` is write-only: Terraform cannot see when a value changes. They are sent on create and when their names differ from the ' +
        'deployment\'s; set `secrets_version` and change it to send new values.',
      'secrets_version',
    );
  }
}
