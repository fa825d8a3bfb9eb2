/**
 * Validation and plan of `agentplatform_export_destination`: the plan-time warnings, keys changed outside Terraform
 * sent again, and a rotation's keys checked.
 */
import { UNKNOWN, isKnown, type Diagnostics, type PlanRequest, type ValidateRequest } from '../../framework';
import { NULL_REQUIRED } from '../../framework/validate';
import { planWorkspace } from '../shared/workspace';
import { warnOfAddress, warnOfEmptyKeys } from './checks';
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
