/**
 * The warnings of `agentplatform_export_destination` at plan, of what the spec sets no rule for and a platform may
 * refuse all the same: an empty name or key (an unset variable, typically), a region or endpoint of an unusual form.
 */
import { isRegionName } from '../../../api/schemas/bulk-export-constants';
import { httpUrlProblem, redactUserInfo } from '../../../api/urls';
import { isKnown, type Diagnostics, type UNKNOWN } from '../../framework';

/**
 * The warnings of a region or endpoint the spec sets no rule for, which the platform may refuse all the same: a region
 * is part of a host name (`s3.<region>.amazonaws.com`), an endpoint is the http(s) address of an S3 API.
 */
export function warnOfAddress(
  planned: { readonly region: unknown; readonly endpoint_url: unknown; readonly display_name: unknown; readonly bucket_name: unknown },
  diagnostics: Diagnostics,
): void {
  for (const key of ['display_name', 'bucket_name'] as const) {
    const value = planned[key];
    if (typeof value === 'string' && value.trim() === '') diagnostics.warning(`Empty ${key}`, `\`${key}\` is empty (is its variable set?): the platform may refuse it.`, key);
  }
  if (typeof planned.region === 'string' && !isRegionName(planned.region)) {
    diagnostics.warning(
      'Unusual region',
      `${JSON.stringify(planned.region)} is not a region name such as "eu-west-1" (letters, digits and dashes): the platform may refuse it.`,
      'region',
    );
  }
  if (typeof planned.endpoint_url === 'string' && httpUrlProblem(planned.endpoint_url) === 'not-http-url') {
    diagnostics.warning(
      'Unusual endpoint_url',
      `${JSON.stringify(redactUserInfo(planned.endpoint_url))} is not an http:// or https:// address written in full (e.g. "https://s3.example.com"): the platform may refuse it as "Invalid endpoint".`,
      'endpoint_url',
    );
  }
}

/** An empty key (an unset TF_VAR_ gives one): said at plan, on the field, rather than as the platform's refusal at apply. */
export function warnOfEmptyKeys(keys: Record<string, unknown> | null | typeof UNKNOWN, diagnostics: Diagnostics): void {
  if (keys === null || !isKnown(keys)) return;
  for (const field of ['access_key_id', 'secret_access_key', 'session_token'] as const) {
    const value = keys[field];
    if (typeof value === 'string' && value.trim() === '') {
      diagnostics.warning(`Empty credentials.${field}`, `\`credentials.${field}\` is empty (is its variable set?): the platform may refuse it.`, [
        { attribute: 'credentials' },
        { attribute: field },
      ]);
    }
  }
}

/**
 * The one refusal of `endpoint_url`, which is no platform rule: the address is kept in plan and state as it is, and
 * returned by the platform, and a secret may ride in neither. Its other checks are warnings (see plan).
 */
export const endpointProblem = (value: string): string | undefined =>
  httpUrlProblem(value) === 'user-info' ? 'must not carry a user name or password: set the keys in `credentials`, which are write-only.' : undefined;
