/**
 * `agentplatform_export_destination`'s model to and from the bulk export API's JSON: the create request, the keys of a
 * rotation, and the state of a destination as the API returns it.
 */
import type { Destination, DestinationCreate, DestinationCredentials } from '../../../api/schemas/bulk-export';
import { given } from '../../framework';
import { workspaceId } from '../shared/workspace';
import type { Credentials, ExportDestinationModel } from './schema';

/** The keys as the API takes them; the session token only when set. */
export function credentialsBody(credentials: Credentials): DestinationCredentials {
  return {
    access_key_id: credentials.access_key_id!,
    secret_access_key: credentials.secret_access_key!,
    ...(credentials.session_token ? { session_token: credentials.session_token } : {}),
  };
}

/** The create request: what the configuration sets, and the prefix (see below); nothing the user left out. */
export function createBody(planned: ExportDestinationModel, credentials: Credentials | null): DestinationCreate {
  return {
    destination_type: 's3',
    display_name: planned.display_name,
    config: {
      bucket_name: planned.bucket_name,
      // spec: Bulk export destination, `config.prefix` (the root prefix) is not marked optional: always sent
      prefix: planned.prefix ?? '',
      ...(planned.region !== null ? { region: planned.region } : {}),
      ...(planned.endpoint_url !== null ? { endpoint_url: planned.endpoint_url } : {}),
      ...(planned.include_bucket_in_prefix !== null ? { include_bucket_in_prefix: planned.include_bucket_in_prefix } : {}),
    },
    ...(credentials ? { credentials: credentialsBody(credentials) } : {}),
  };
}

/**
 * The state of a destination as the API returns it, with the settings only Terraform keeps. What the answer leaves
 * out keeps its value in `base` (the plan on create and update, the prior state on read): the spec names only `id`
 * as what the platform returns.
 */
export function toModel(d: Destination, base: ExportDestinationModel): ExportDestinationModel {
  const config = d.config ?? {};
  const nullable = <T>(answered: T | null | undefined, kept: T, absent: T): T => (answered === undefined ? kept : (answered ?? absent));
  return {
    id: d.id,
    display_name: given(d.display_name, base.display_name),
    bucket_name: given(config.bucket_name, base.bucket_name),
    prefix: nullable(config.prefix, base.prefix, ''),
    region: given(config.region, base.region),
    endpoint_url: given(config.endpoint_url, base.endpoint_url),
    include_bucket_in_prefix: nullable(config.include_bucket_in_prefix, base.include_bucket_in_prefix, false),
    credentials: null,
    credentials_version: base.credentials_version,
    // in one order whatever the platform's, as the plan compares them
    credentials_keys: d.credentials_keys ? [...d.credentials_keys].sort() : base.credentials_keys,
    timeouts: base.timeouts,
    created_at: given(d.created_at, base.created_at),
    tenant_id: d.tenant_id ? workspaceId(d.tenant_id) : base.tenant_id,
  };
}
