/**
 * Value checks of `agentplatform_deployment`'s arguments that the schema runs. The spec shows almost nothing of a
 * deployment's fields, so almost nothing is refused: only what would put a secret in plan and state (the plan's
 * warnings are in `plan.ts`).
 */
import { httpUrlProblem } from '../../../api/urls';

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
