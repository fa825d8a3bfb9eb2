/**
 * Plan-time checks of `agentplatform_deployment`'s arguments. The spec shows almost nothing of a deployment's fields,
 * so almost nothing is refused: what the local platform refuses (lib/api's constants) is a warning that the platform
 * may refuse it, on the attribute at fault. Only what would put a secret in plan and state is refused. Messages never
 * carry a secret value.
 */
import { httpUrlProblem, redactUserInfo } from '../../../api/urls';
import {
  DEPLOYMENT_NAME_MAX_LENGTH,
  DEPLOYMENT_NAME_PATTERN,
  MAX_SECRET_NAME_LENGTH,
  MAX_SECRETS,
  MAX_SECRET_VALUE_LENGTH,
  SECRET_NAME_PATTERN,
} from '../../../api/schemas/control-plane-constants';
import { isKnown, type Diagnostics, type UNKNOWN } from '../../framework';

/** What a `repo_url` with a user name or password should use instead. */
export const REPO_ACCESS = ' A private repository is reached through `integration_id`.';

/**
 * The one refusal of a URL, which is no platform rule: the URL is kept in plan and state as it is, and returned by
 * the platform, and a secret may ride in neither (a token in a `repo_url`, typically).
 */
export const userInfoProblem = (value: string, userInfoHint = ''): string | undefined =>
  httpUrlProblem(value) === 'user-info'
    ? `must not carry a user name or password: the URL is kept in plan and state and returned by the platform.${userInfoHint}`
    : undefined;

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
