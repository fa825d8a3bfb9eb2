/**
 * What `agentplatform_export_destination` tells users: each message says what went wrong, about which attribute, and
 * what to do. Messages never carry a secret: access keys and secrets are write-only and never quoted, and the client
 * redacts whatever the server might echo.
 */
import { redactUserInfo } from '../../../api/urls';
import { DiagnosticError, type Diagnostics, type PathLike } from '../../framework';
import { detailOf, statusOf } from '../shared/bulk-export-client';
import { apiFailure, capitalize, type BodyFields } from '../shared/bulk-export-messages';
import { RefusedAfterPropagation } from '../shared/key-propagation';
import type { Credentials, ExportDestinationModel } from './schema';

/** Where a destination writes, as the messages show it. */
export interface DestinationTarget {
  readonly bucket_name: string;
  readonly prefix: string | null;
  readonly endpoint_url: string | null;
  readonly region: string | null;
  /** Whether the configuration gives credentials (else the platform host's environment credentials are used). */
  readonly hasCredentials: boolean;
}

/** `s3://bucket/prefix`. */
export function s3Location(target: Pick<DestinationTarget, 'bucket_name' | 'prefix'>): string {
  const prefix = (target.prefix ?? '').replace(/^\/+|\/+$/g, '');
  return `s3://${target.bucket_name}${prefix ? `/${prefix}` : ''}`;
}

const VALIDATION = 'The platform checks a destination by writing a small test object under `<prefix>/tmp/` with its credentials';

/**
 * The platform's destination validation failure (`detail` is one of its four messages) as a diagnostic saying what
 * it means and what to do; undefined for any other detail. `doing` is `create` or `rotate` (credential rotation).
 */
export function destinationRefused(detail: string, target: DestinationTarget, doing: 'create' | 'rotate'): DiagnosticError | undefined {
  const where = s3Location(target);
  const keys = target.hasCredentials ? 'the access key' : "the platform host's environment credentials";
  const credentialsPath: PathLike | undefined = target.hasCredentials ? 'credentials' : undefined;
  const rotation = doing === 'rotate' ? ' The destination keeps its previous credentials.' : '';
  switch (detail) {
    case 'Access denied':
      return new DiagnosticError(
        `Access denied: ${keys} cannot write to ${where}`,
        `${VALIDATION}, and the bucket refused it. ${capitalize(keys)} needs s3:PutObject on ${where}/* ` +
          '(ExportBucket grants it, with s3:GetObject and s3:AbortMultipartUpload, and s3:DeleteObject on the test objects under tmp/). ' +
          (target.hasCredentials
            ? 'Also check that `secret_access_key` belongs to `access_key_id` (a wrong secret is refused the same way) and that a `session_token` has not expired.'
            : 'Give the destination `credentials`, or grant the role of the platform host (backend and queue services).') +
          rotation,
        credentialsPath,
      );
    case 'Bucket is not valid':
      return new DiagnosticError(
        `Bucket is not valid: ${where} does not exist or cannot be written`,
        `${VALIDATION}, and the store answered that bucket "${target.bucket_name}" does not exist there. ` +
          'Check `bucket_name`' +
          (target.endpoint_url ? ' and `endpoint_url`' : ' and `region` (the bucket\'s own region)') +
          ', and `include_bucket_in_prefix` for stores that need the bucket name in the path. Create the bucket first if it is new.' +
          rotation,
        'bucket_name',
      );
    case 'Key ID you provided does not exist':
      return new DiagnosticError(
        'Unknown access key: the store does not know this access key id',
        `${VALIDATION}, and the store at ${target.endpoint_url ? redactUserInfo(target.endpoint_url) : 'the main object store'} answered that \`access_key_id\` does not exist. ` +
          'Check that the key belongs to this store (and account), and that it has not been deleted.' +
          rotation,
        credentialsPath,
      );
    case 'Invalid endpoint':
      return new DiagnosticError(
        `Invalid endpoint: ${target.endpoint_url ? redactUserInfo(target.endpoint_url) : 'the endpoint'} is not an S3-compatible endpoint`,
        `${VALIDATION}, and nothing that speaks the S3 API answered at ${target.endpoint_url ? redactUserInfo(target.endpoint_url) : 'the endpoint'}. ` +
          'For an S3-compatible store set `endpoint_url` to its S3 API address (scheme, host and port); ' +
          'for Amazon S3 itself leave `endpoint_url` out and set `region`.' +
          rotation,
        'endpoint_url',
      );
    default:
      return undefined;
  }
}

/** A destination whose keys were changed outside Terraform: the configured ones are sent again. */
export function credentialsChangedOutside(diagnostics: Diagnostics, held: readonly string[], configured: readonly string[]): void {
  diagnostics.warning(
    'Export destination keys changed outside Terraform',
    `The platform holds the credential fields ${held.join(', ') || '(none)'}, and the configuration gives ${configured.join(', ')}: ` +
      'the keys were changed outside Terraform, and this apply sends the configured ones again (the platform validates them first).',
    'credentials_keys',
  );
}

/**
 * A destination whose configuration gives no keys while the platform holds some (they were removed from the
 * configuration, or it was imported): nothing changes, and the platform keeps using the keys it holds.
 */
export function credentialsLeftOut(diagnostics: Diagnostics, held: readonly string[]): void {
  diagnostics.warning(
    'Export destination keeps its keys',
    `The configuration gives no \`credentials\`, but the platform holds the credential fields ${held.join(', ')} for this ` +
      'destination and keeps using them: keys cannot be removed in place. To use the credentials of the platform\'s ' +
      'host instead, replace the destination (`terraform apply -replace=` and its address); to manage the keys, set ' +
      '`credentials` and `credentials_version`.',
    'credentials',
  );
}

/** A new destination with neither a region nor an endpoint: Amazon S3, with requests signed for us-east-1. */
export function regionLeftOut(diagnostics: Diagnostics): void {
  diagnostics.warning(
    'Export destination without region',
    'Neither `region` nor `endpoint_url` is set: the platform writes to Amazon S3 with requests signed for us-east-1, and ' +
      'a bucket in another region is refused as "Bucket is not valid". Set `region` to the bucket\'s region, or ' +
      '`endpoint_url` for an S3-compatible store.',
    'region',
  );
}

/** The warning of a destroyed destination: the platform has no API to delete one. */
export function destinationKept(diagnostics: Diagnostics, id: string, name: string): void {
  diagnostics.warning(
    'Export destination removed from state only',
    `The platform has no API to delete export destinations: destination ${id} ("${name}") stays in the workspace with ` +
      'its stored credentials, and Terraform no longer manages it. Revoke its access key, or remove the bucket policy, ' +
      'if nothing should write there any more.',
  );
}

// ---- API errors ----

/** Body fields of `POST /bulk-exports/destinations` and `PATCH` by attribute. */
export const DESTINATION_BODY_FIELDS: BodyFields = {
  display_name: 'display_name',
  'config.bucket_name': 'bucket_name',
  'config.prefix': 'prefix',
  'config.region': 'region',
  'config.endpoint_url': 'endpoint_url',
  'config.include_bucket_in_prefix': 'include_bucket_in_prefix',
  credentials: 'credentials',
  'credentials.access_key_id': 'credentials.access_key_id',
  'credentials.secret_access_key': 'credentials.secret_access_key',
  'credentials.session_token': 'credentials.session_token',
};

/** A failed create or rotation as the diagnostic to throw: the platform's validation failures explained. */
export function refusal(
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
