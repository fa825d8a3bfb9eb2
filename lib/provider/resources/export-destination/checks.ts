/**
 * Value checks of `agentplatform_export_destination`'s arguments that the schema runs (the plan's warnings are in
 * `plan.ts`).
 */
import { httpUrlProblem } from '../../../api/urls';

/**
 * The one refusal of `endpoint_url`, which is no platform rule: the address is kept in plan and state as it is, and
 * returned by the platform, and a secret may ride in neither. Its other checks are warnings (see plan).
 */
export const endpointProblem = (value: string): string | undefined =>
  httpUrlProblem(value) === 'user-info' ? 'must not carry a user name or password: set the keys in `credentials`, which are write-only.' : undefined;
