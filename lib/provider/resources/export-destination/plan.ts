/**
 * Validation and plan of `agentplatform_export_destination`: keys changed outside Terraform sent again, a rotation's
 * keys checked, and the warnings at plan of what the spec sets no rule for and a platform may refuse all the same: an
 * empty name or key (an unset variable, typically), a region or endpoint of an unusual form.
 */
import { isRegionName } from '../../../api/schemas/bulk-export-constants';
import { httpUrlProblem, redactUserInfo } from '../../../api/urls';
import { UNKNOWN, isKnown, type Diagnostics, type PlanRequest, type ValidateRequest } from '../../framework';
import { NULL_REQUIRED } from '../../framework/validate';
import { planWorkspace } from '../shared/workspace';
import { credentialsChangedOutside, credentialsLeftOut, regionLeftOut } from './messages';
import type { ExportDestinationSchema } from './schema';

type Schema = ExportDestinationSchema;

// ---- validate ----

export function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
  if (config.credentials === null && config.credentials_version !== null) {
    diagnostics.error(
      'credentials_version without credentials',
      '`credentials_version` rotates `credentials`; without `credentials` the destination uses the platform host\'s ' +
        'environment credentials and there is nothing to rotate. Add `credentials`, or leave `credentials_version` out.',
      'credentials_version',
    );
  }
}

// ---- plan ----

/** The credential fields, in the order of their names (as `credentials_keys` lists them). */
const CREDENTIAL_FIELDS = ['access_key_id', 'secret_access_key', 'session_token'] as const;

/** Reports the required keys that are null in credentials about to be sent (an unset variable). */
function reportNullKeys(keys: { readonly access_key_id: unknown; readonly secret_access_key: unknown }, diagnostics: Diagnostics): void {
  for (const field of ['access_key_id', 'secret_access_key'] as const) {
    if (keys[field] !== null) continue;
    diagnostics.error(`Missing credentials.${field}`, NULL_REQUIRED, [
      { attribute: 'credentials' },
      { attribute: field },
    ]);
  }
}

export function plan({ config, prior, planned, requireReplace, diagnostics, ctx }: PlanRequest<Schema>): void {
  planWorkspace({ ctx, prior, planned, diagnostics, requireReplace }, 'export destination');
  // at plan, not validate: terraform validates on destroy too, where the warning is of no use
  if (config.credentials !== null && config.credentials_version === null) {
    diagnostics.warning(
      'credentials without credentials_version',
      '`credentials` is write-only: Terraform cannot see when it changes. It is sent on create; set `credentials_version` ' +
        'and change it to rotate the keys in place.',
      'credentials_version',
    );
  }
  if (!prior && planned.region === null && planned.endpoint_url === null) regionLeftOut(diagnostics);
  if (!prior || planned.region !== prior.region || planned.endpoint_url !== prior.endpoint_url) warnOfAddress(planned, diagnostics);
  warnOfEmptyKeys(config.credentials, diagnostics);
  const keys = config.credentials;
  if (prior && planned.credentials_version === prior.credentials_version && keys !== null && isKnown(keys)) {
    // keys changed outside Terraform (the platform shows their names only): the configured ones are sent again
    const configured = CREDENTIAL_FIELDS.filter((field) => keys[field] !== null);
    const held = prior.credentials_keys;
    // a required key that is null is a variable left unset, as it may be when nothing is to be sent: no resend then
    const unset = keys.access_key_id === null || keys.secret_access_key === null;
    if (!unset && Array.isArray(held) && [...held].sort().join() !== configured.join()) {
      planned.credentials_keys = configured;
      credentialsChangedOutside(diagnostics, held, configured);
    }
  }
  const held = prior?.credentials_keys;
  if (prior && planned.credentials_version === prior.credentials_version && keys === null && Array.isArray(held) && held.length > 0) {
    credentialsLeftOut(diagnostics, held);
  }
  if (!prior || planned.credentials_version === prior.credentials_version) return;
  // a rotation sends the keys (a create's are checked with every attribute; an update's write-only ones are not)
  if (keys !== null && isKnown(keys)) reportNullKeys(keys, diagnostics);
  // The API rotates credentials but cannot switch a destination to the host's environment credentials.
  if (config.credentials === null && prior.credentials_keys?.length) requireReplace('credentials_version');
  // a rotation (see update) is the only request that changes the keys the platform holds
  if (config.credentials !== null) planned.credentials_keys = UNKNOWN;
}

// ---- warnings ----

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
