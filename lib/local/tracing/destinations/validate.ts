/**
 * Destination validation, as the platform does it on creation and on credential rotation: write a small test object
 * under `<prefix>/tmp/` with the destination's own credentials, then delete it when the credentials may (the object
 * stays otherwise, as documented). Failures become 400 `{"detail"}` with one of the four documented messages.
 */
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DESTINATION_ERRORS, type DestinationConfig, type DestinationCredentials } from '../../../api/schemas/bulk-export';
import { httpUrlProblem } from '../../../api/urls';
import { HttpError } from '../../errors';
import type { RequestValidator } from '../../validation';
import { createDestinationClient, credentialRedactor, destinationKeyPrefix, exportPartKey, joinKey, type S3ClientLimits } from './s3';
import { classifyStorageError, destinationErrorOf } from './storage-errors';

/** What a successful validation did. */
export interface DestinationValidation {
  /** Key of the test object that was written. */
  readonly testObjectKey: string;
  /** Whether the test object could be deleted again (false: it stays in the bucket). */
  readonly deleted: boolean;
}

/** S3's longest object key, in bytes of UTF-8. */
const S3_MAX_KEY_BYTES = 1024;
const LONGEST_ID = 'ffffffff-ffff-4fff-bfff-ffffffffffff';

/** The longest key an export writes under this destination (see exportPartKey). */
function longestExportKeyBytes(config: DestinationConfig): number {
  const key = exportPartKey({
    config,
    exportId: LONGEST_ID,
    tenantId: LONGEST_ID,
    sessionId: LONGEST_ID,
    dayStartMs: Date.UTC(9999, 11, 31),
    segmentIndex: 99_999,
    partIndex: 99_999,
  });
  return Buffer.byteLength(key);
}

/**
 * The settings the platform refuses before it tries the bucket, as 422 items: an endpoint URL that carries a user
 * name or password (stored and returned as sent: the keys go in `credentials`), and a prefix so long that the keys
 * of export files would pass S3's limit (the bucket would refuse every file, long after the destination was made).
 */
export function checkDestinationConfig(validator: RequestValidator, config: DestinationConfig): void {
  if (config.endpoint_url && httpUrlProblem(config.endpoint_url) === 'user-info') {
    validator.add(
      ['body', 'config', 'endpoint_url'],
      'value_error',
      'Value error, endpoint_url must not carry a user name or password: it is stored and returned as sent; give the keys in credentials',
    );
  }
  const longest = longestExportKeyBytes(config);
  if (longest > S3_MAX_KEY_BYTES) {
    const room = Buffer.byteLength(destinationKeyPrefix(config)) - (longest - S3_MAX_KEY_BYTES);
    validator.add(
      ['body', 'config', 'prefix'],
      'value_error',
      `Value error, the prefix is too long: the keys of export files under it would be up to ${longest} bytes, over S3's ${S3_MAX_KEY_BYTES}; ` +
        `shorten the prefix (with the bucket name when include_bucket_in_prefix is set) to at most ${Math.max(0, room)} bytes`,
    );
  }
}

function checkEndpoint(endpointUrl: string | null | undefined): void {
  if (!endpointUrl) return;
  let url: URL;
  try {
    url = new URL(endpointUrl);
  } catch {
    throw new HttpError(400, DESTINATION_ERRORS.invalidEndpoint);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpError(400, DESTINATION_ERRORS.invalidEndpoint);
}

/** Writes (and tries to delete) a test object; throws the platform's 400 on failure. */
export async function validateDestination(
  config: DestinationConfig,
  credentials: DestinationCredentials | null,
  limits: S3ClientLimits = {},
): Promise<DestinationValidation> {
  checkEndpoint(config.endpoint_url);
  const client = createDestinationClient(config, credentials, { maxAttempts: 1, ...limits });
  const testObjectKey = joinKey(destinationKeyPrefix(config), 'tmp', `validation-${randomUUID()}.txt`);
  try {
    try {
      const put = await client.send(
        new PutObjectCommand({
          Bucket: config.bucket_name,
          Key: testObjectKey,
          Body: 'bulk export destination validation',
          ContentType: 'text/plain',
        }),
      );
      // S3 answers every successful PUT with an ETag; a server that does not is not an S3 API (or a proxy in front of
      // one strips it): the object may have been written all the same, so it is deleted when the credentials may
      if (!put.ETag) {
        await client.send(new DeleteObjectCommand({ Bucket: config.bucket_name, Key: testObjectKey })).catch(() => undefined);
        throw new HttpError(400, DESTINATION_ERRORS.invalidEndpoint);
      }
    } catch (err) {
      if (err instanceof HttpError) throw err;
      // built once the request failed: for a destination without credentials, it knows those the client resolved
      const redactor = credentialRedactor(credentials);
      const failure = classifyStorageError(err, redactor);
      const message = destinationErrorOf(failure.kind);
      if (message) throw new HttpError(400, message);
      // a 400 of a code the platform does not know: at validation, the user is told what the store said rather than
      // to try again (an export run retries it, as it may pass)
      if (failure.kind === 'refused' || (failure.kind === 'other' && failure.status === 400)) {
        throw new HttpError(400, `The store refused the test object (${redactor.redact(failure.description)}): check the destination's settings`);
      }
      throw new HttpError(503, `The destination could not be validated, try again later (${redactor.redact(failure.description)})`);
    }
    try {
      await client.send(new DeleteObjectCommand({ Bucket: config.bucket_name, Key: testObjectKey }));
      return { testObjectKey, deleted: true };
    } catch {
      // delete permission is optional: without it the test object stays
      return { testObjectKey, deleted: false };
    }
  } finally {
    client.destroy();
  }
}
