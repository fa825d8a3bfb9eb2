/**
 * The attributes of `agentplatform_export_destination`, their descriptions and timeouts, and the model the handlers see.
 */
import { attr, defineSchema, element, timeoutsAttribute, type SchemaModel } from '../../framework';
import { sameUrl } from '../../../api/urls';
import { endpointProblem } from './checks';
import { tenantIdAttribute } from '../shared/workspace';

/** The attributes of `agentplatform_export_destination` as handlers see them. */
export type ExportDestinationModel = SchemaModel<typeof exportDestinationSchema>;

export type Credentials = NonNullable<ExportDestinationModel['credentials']>;
/** The schema's type, as the handlers' requests take it. */
export type ExportDestinationSchema = typeof exportDestinationSchema;

/**
 * Time limits of a create and of a rotation (an update). The platform answers them only once it has written (and
 * deleted) a test object in the bucket, which may take long on a slow store: the transport's usual `request_timeout`
 * could end the request while the platform goes on and creates the destination.
 */
export const DESTINATION_TIMEOUTS = timeoutsAttribute({ create: '5m', update: '5m' });
const timeouts = DESTINATION_TIMEOUTS;

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
        'Put the bucket name at the start of every object key, for stores that need it in the path. Left out, the ' +
        'platform chooses (`false` for a new destination), and its choice is read after apply.',
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
          'Keys the platform writes with; they need s3:PutObject on the prefix. Left out, the platform uses its host\'s ' +
          'environment credentials. See [Behaviour](#behaviour) for when they are sent.',
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
        'See [Behaviour](#behaviour).',
    }),
    timeouts,
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the destination was created (RFC 3339).' }),
    tenant_id: tenantIdAttribute('export destination', 'the old one left on the platform (as a destroy leaves it)'),
  },
});
