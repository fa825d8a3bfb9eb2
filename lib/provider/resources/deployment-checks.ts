/**
 * Plan-time checks of `agentplatform_deployment`'s arguments, with the platform's own rules (lib/api), so that a plan
 * refuses what the apply would and says which attribute is at fault. Messages never carry a secret value.
 */
import { httpUrlProblem } from '../../api/urls';
import {
  DEPLOYMENT_NAME_MAX_LENGTH,
  DEPLOYMENT_NAME_PATTERN,
  MAX_SECRET_NAME_LENGTH,
  MAX_SECRETS,
  MAX_SECRET_VALUE_LENGTH,
  SECRET_NAME_PATTERN,
} from '../../api/schemas/control-plane-constants';
import { isKnown, type Diagnostics, type UNKNOWN } from '../framework';

/** What a `repo_url` with a user name or password should use instead. */
export const REPO_ACCESS = ' A private repository is reached through `integration_id`.';

/** The platform's own check (lib/api/urls.ts), so that a plan accepts what the apply will. */
export const urlProblem = (value: string, userInfoHint = ''): string | undefined => {
  switch (httpUrlProblem(value)) {
    case undefined:
      return undefined;
    case 'user-info':
      // the URL is kept in plan and state as it is, and returned by the platform: no secret may ride in it
      return `must not carry a user name or password: the URL is kept in plan and state and returned by the platform.${userInfoHint}`;
    default:
      return `must be an absolute http:// or https:// URL written in full, with no spaces (e.g. "https://github.com/acme/agent"); got ${JSON.stringify(value)}.`;
  }
};

/** An empty value (an unset variable), which the platform refuses at apply. */
export const notEmpty = (value: string): string | undefined => (value.trim() === '' ? 'must not be empty (is its variable set?).' : undefined);

/** Why a deployment name is refused by the platform, or undefined. */
export const nameProblem = (value: string): string | undefined =>
  value.length > DEPLOYMENT_NAME_MAX_LENGTH
    ? `must be at most ${DEPLOYMENT_NAME_MAX_LENGTH} characters; got ${value.length}.`
    : DEPLOYMENT_NAME_PATTERN.test(value)
      ? undefined
      : `must start with a letter or digit and hold only letters, digits, "-" and "_"; got ${JSON.stringify(value)}.`;

/** The checks of `secrets`: names, count and value lengths. */
export function validateSecrets(secrets: Record<string, unknown> | null | typeof UNKNOWN, diagnostics: Diagnostics): void {
  if (secrets === null || !isKnown(secrets)) return;
  const names = Object.keys(secrets);
  for (const name of names.filter((n) => !SECRET_NAME_PATTERN.test(n))) {
    diagnostics.error('Invalid secret name', `${JSON.stringify(name)} is not an environment variable name: use letters, digits and "_", not starting with a digit.`, [
      { attribute: 'secrets' },
      { key: name },
    ]);
  }
  for (const name of names.filter((n) => n.length > MAX_SECRET_NAME_LENGTH)) {
    diagnostics.error('Secret name too long', `Secret name ${JSON.stringify(name)} has ${name.length} characters; the platform accepts at most ${MAX_SECRET_NAME_LENGTH}.`, [
      { attribute: 'secrets' },
      { key: name },
    ]);
  }
  if (names.length > MAX_SECRETS) diagnostics.error('Too many secrets', `A deployment has at most ${MAX_SECRETS} secrets; got ${names.length}.`, 'secrets');
  for (const [name, value] of Object.entries(secrets)) {
    // characters as the platform counts them (code points); the value itself is never shown
    const length = typeof value === 'string' ? [...value].length : 0;
    if (length > MAX_SECRET_VALUE_LENGTH) {
      diagnostics.error(
        'Secret value too long',
        `The value of secret ${JSON.stringify(name)} has ${length} characters; the platform accepts at most ${MAX_SECRET_VALUE_LENGTH}.`,
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
