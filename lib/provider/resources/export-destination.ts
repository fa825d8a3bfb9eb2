/**
 * `agentplatform_export_destination`: an S3 (or S3-compatible) bucket that bulk exports write Parquet files to. The
 * platform validates it on creation by writing a test object with the given credentials; its settings cannot change
 * (a change replaces it), its credentials can be rotated in place, and the platform cannot delete it.
 */
import type { Destination, DestinationCreate, DestinationCredentials } from '../../api/schemas/bulk-export';
import {
  DiagnosticError,
  UNKNOWN,
  attr,
  given,
  defineResource,
  defineSchema,
  element,
  isKnown,
  timeoutMs,
  timeoutsAttribute,
  type CreateRequest,
  type DeleteRequest,
  type Diagnostics,
  type ImportRequest,
  type PlanRequest,
  type ReadRequest,
  type SchemaModel,
  type UpdateRequest,
  type ValidateRequest,
} from '../framework';
import { NULL_REQUIRED } from '../framework/validate';
import { planWorkspace, tenantIdAttribute, workspaceId, workspaceOf } from './shared/workspace';
import { bulkExportClient, detailOf, statusOf } from './shared/bulk-export-client';
import { RefusedAfterPropagation, whileKeysPropagate } from './shared/key-propagation';
import { DESTINATION_BODY_FIELDS, apiFailure, credentialsChangedOutside, credentialsLeftOut, destinationKept, regionLeftOut, destinationRefused, type DestinationTarget } from './bulk-export-messages';
import { httpUrlProblem, sameUrl } from '../../api/urls';
import { confirmGone } from '../api-errors';
import { warnOfAddress, warnOfEmptyKeys } from './export-destination-warnings';
import { destinationCreatedUnanswered } from './export-destination-orphans';
import { createOutcome, takeCreateKey, unansweredSummary } from './shared/unanswered-create';

// ---- model ----

/** The attributes of `agentplatform_export_destination` as handlers see them. */
export type ExportDestinationModel = SchemaModel<typeof exportDestinationSchema>;

type Credentials = NonNullable<ExportDestinationModel['credentials']>;

// ---- schema ----

/**
 * Time limits of a create and of a rotation (an update). The platform answers them only once it has written (and
 * deleted) a test object in the bucket, which may take long on a slow store: the transport's usual `request_timeout`
 * could end the request while the platform goes on and creates the destination.
 */
const timeouts = timeoutsAttribute({ create: '5m', update: '5m' });

/**
 * The one refusal of `endpoint_url`, which is no platform rule: the address is kept in plan and state as it is, and
 * returned by the platform, and a secret may ride in neither. Its other checks are warnings (see plan).
 */
const endpointProblem = (value: string): string | undefined =>
  httpUrlProblem(value) === 'user-info' ? 'must not carry a user name or password: set the keys in `credentials`, which are write-only.' : undefined;

/** The schema of `agentplatform_export_destination`. */
export const exportDestinationSchema = defineSchema({
  description:
    'An S3 bucket, or a bucket of any S3-compatible store, that bulk exports write Parquet files to. On creation the ' +
    'platform checks it by writing a small test object under `<prefix>/tmp/` with the given credentials (and deletes it ' +
    'when the credentials may). Keys it refuses as unknown or denied are tried again for up to a minute (within ' +
    '`timeouts`), since new cloud keys take seconds to reach the store (a key made in the same apply). The platform ' +
    'cannot change a destination\'s settings (a change replaces it) nor delete one: destroy only removes it from the ' +
    'Terraform state.',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'The destination id; `terraform import` takes it.' }),
    display_name: attr.string({ required: true, requiresReplace: true, description: 'Name shown on the platform.' }),
    bucket_name: attr.string({ required: true, requiresReplace: true, description: 'The bucket.' }),
    prefix: attr.string({
      optional: true,
      computed: true,
      default: '',
      requiresReplace: true,
      description: 'Key prefix inside the bucket under which every export writes (the root of the bucket when empty).',
    }),
    region: attr.string({
      optional: true,
      requiresReplace: true,
      description: 'Region of the bucket, for Amazon S3. May be left out when `endpoint_url` is set; left out without it, the platform signs for us-east-1 and the plan warns.',
    }),
    endpoint_url: attr.string({
      optional: true,
      requiresReplace: true,
      validate: endpointProblem,
      sameValue: sameUrl,
      description: 'Address of the S3 API of an S3-compatible store (Ceph, MinIO, R2, ...). Leave it out for Amazon S3.',
    }),
    include_bucket_in_prefix: attr.bool({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      requiresReplace: true,
      description:
        'Put the bucket name at the start of every object key, for stores that need it in the path (and older destinations). ' +
        'Sent only when set; left out, the platform chooses (`false` for a new destination), and its choice is read after apply.',
    }),
    credentials: attr.object(
      {
        access_key_id: attr.string({ required: true, writeOnly: true, description: 'The access key id.' }),
        secret_access_key: attr.string({ required: true, writeOnly: true, description: 'The secret access key.' }),
        session_token: attr.string({ optional: true, writeOnly: true, description: 'Session token of temporary credentials.' }),
      },
      {
        optional: true,
        writeOnly: true,
        description:
          'Keys the platform writes with; they need s3:PutObject on the prefix (ExportBucket grants it). Sent on create, ' +
          'whenever `credentials_version` changes, and when the platform holds other fields than these (keys changed ' +
          'outside Terraform: see `credentials_keys`). Left out, the platform uses its host\'s environment credentials ' +
          '(self-hosted installations); removing them later (with `credentials_version`) replaces the destination, ' +
          'because the platform cannot switch one to environment credentials.',
      },
    ),
    credentials_version: attr.number({
      optional: true,
      description: 'Change it (for example, increment it) to rotate `credentials` in place: the platform validates the new keys first.',
    }),
    credentials_keys: attr.list(element.string, {
      computed: true,
      useStateForUnknown: true,
      description:
        'Names of the credential fields the platform holds (never their values), e.g. `["access_key_id", "secret_access_key"]`. ' +
        'A rotation (a new `credentials_version`) changes them; so does sending the configured `credentials` again when ' +
        'the names differ from the configured fields (keys changed outside Terraform). Any other change plans them as they are.',
    }),
    timeouts,
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the destination was created (RFC 3339).' }),
    tenant_id: tenantIdAttribute('export destination', 'the old one left on the platform (as a destroy leaves it)'),
  },
});

type Schema = typeof exportDestinationSchema;

// ---- validate ----

function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
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

function plan({ config, prior, planned, requireReplace, diagnostics, ctx }: PlanRequest<Schema>): void {
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

// ---- create ----


async function create({ config, planned, ctx, signal, diagnostics }: CreateRequest<Schema>): Promise<ExportDestinationModel> {
  const client = bulkExportClient(ctx);
  let destination: Destination;
  const body = createBody(planned, config.credentials);
  const idempotencyKey = takeCreateKey('agentplatform_export_destination', { ...body, credentials: body.credentials ? Object.keys(body.credentials).sort() : undefined });
  const timeLimitMs = timeoutMs(planned.timeouts, 'create', timeouts);
  const deadlineMs = Date.now() + timeLimitMs;
  // when the last attempt went out (those before it were refused)
  let sentAtMs = Date.now();
  const send = (left: number): Promise<Destination> => {
    sentAtMs = Date.now();
    return client.createDestination(body, { signal, timeoutMs: left, idempotencyKey });
  };
  try {
    destination = config.credentials === null ? await send(timeLimitMs) : await whileKeysPropagate(send, { timeLimitMs, signal, log: (line) => ctx.log.info(line) });
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw refusal(diagnostics, err, planned, config.credentials, 'create');
    const found = await destinationCreatedUnanswered(client, planned, { sentAtMs, err: err as Error, outcome, stop: signal, deadlineMs });
    if (found instanceof DiagnosticError) throw found;
    diagnostics.warning(
      unansweredSummary(outcome, `export destination "${planned.display_name}"`),
      `${(err as Error).message}. It had created destination ${found.id} with this name, bucket and prefix: it is kept in state.`,
    );
    destination = found;
  }
  ctx.log.info(`created export destination ${destination.id} (${destination.display_name})`);
  return toModel(destination, planned);
}

// ---- read ----

async function read({ state, ctx, signal }: ReadRequest<Schema>): Promise<ExportDestinationModel | null> {
  const client = bulkExportClient(ctx, workspaceOf(state));
  try {
    return toModel(await client.getDestination(state.id!, { signal }), state);
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    await confirmGone(err, 'tracing', () => client.listDestinations({ signal }));
    return null;
  }
}

// ---- update ----

async function update({ config, planned, prior, ctx, signal, diagnostics }: UpdateRequest<Schema>): Promise<ExportDestinationModel> {
  const namesKept = JSON.stringify(planned.credentials_keys) === JSON.stringify(prior.credentials_keys);
  if ((planned.credentials_version === prior.credentials_version && namesKept) || config.credentials === null) {
    return { ...prior, credentials_version: planned.credentials_version, timeouts: planned.timeouts };
  }
  let destination: Destination;
  const keys = credentialsBody(config.credentials);
  try {
    destination = await whileKeysPropagate((left) => bulkExportClient(ctx, workspaceOf(prior)).rotateDestinationCredentials(prior.id!, keys, { signal, timeoutMs: left }), {
      timeLimitMs: timeoutMs(planned.timeouts, 'update', timeouts),
      signal,
      log: (line) => ctx.log.info(line),
    });
  } catch (err) {
    throw refusal(diagnostics, err, prior, config.credentials, 'rotate');
  }
  ctx.log.info(`rotated the credentials of export destination ${destination.id}`);
  return toModel(destination, planned);
}

// ---- delete ----

async function remove({ state, diagnostics }: DeleteRequest<Schema>): Promise<void> {
  destinationKept(diagnostics, state.id!, state.display_name);
}

// ---- import ----

async function importDestination({ id, ctx, signal }: ImportRequest): Promise<Partial<ExportDestinationModel>> {
  // spec: Bulk export destination, `id` is a plain string
  if (id.trim() === '') throw new DiagnosticError('Invalid import id', 'Import an export destination by its id, as the platform shows it.');
  try {
    await bulkExportClient(ctx).getDestination(id, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    throw new DiagnosticError('Cannot import export destination', `There is no export destination ${id} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`);
  }
  return { id };
}

// ---- API mapping ----

/** A failed create or rotation as the diagnostic to throw: the platform's validation failures explained. */
function refusal(
  diagnostics: Diagnostics,
  err: unknown,
  settings: Pick<ExportDestinationModel, 'bucket_name' | 'prefix' | 'endpoint_url' | 'region' | 'display_name'>,
  credentials: Credentials | null,
  doing: 'create' | 'rotate',
): DiagnosticError {
  const retried = err instanceof RefusedAfterPropagation ? err : undefined;
  if (retried) err = retried.refusal;
  const detail = statusOf(err) === 400 ? detailOf(err) : undefined;
  const target: DestinationTarget = { ...settings, hasCredentials: credentials !== null };
  const explained = detail === undefined ? undefined : destinationRefused(detail, target, doing);
  if (explained && retried) {
    // the keys had time to propagate (or terraform stopped the wait): the refusal stands
    const note = retried.interrupted
      ? `(Interrupted after ${Math.round(retried.waitedMs / 1000)}s of retries, while waiting for new keys to reach the store.)`
      : `(Still refused after ${Math.round(retried.waitedMs / 1000)}s of retries, the time new keys take to reach the store.)`;
    return new DiagnosticError(explained.summary, `${explained.detail} ${note}`, explained.path);
  }
  if (explained) return explained;
  const what = doing === 'create' ? `create export destination "${settings.display_name}"` : `rotate the credentials of export destination "${settings.display_name}"`;
  return apiFailure(diagnostics, err, what, DESTINATION_BODY_FIELDS);
}

function credentialsBody(credentials: Credentials): DestinationCredentials {
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
function toModel(d: Destination, base: ExportDestinationModel): ExportDestinationModel {
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

export default defineResource({
  typeName: 'agentplatform_export_destination',
  schema: exportDestinationSchema,
  validate,
  plan,
  create,
  read,
  update,
  delete: remove,
  import: importDestination,
});
