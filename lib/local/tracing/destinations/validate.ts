/**
 * Destination validation, as the platform does it on creation and on credential rotation: write a small test object
 * under `<prefix>/tmp/` with the destination's own credentials, then delete it when the credentials may (the object
 * stays otherwise, as documented). Failures become 400 `{"detail"}` with one of the four documented messages.
 */
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DESTINATION_ERRORS, type DestinationConfig, type DestinationCredentials } from '../../../api/schemas/bulk-export';
import { HttpError } from '../../errors';
import { createDestinationClient, credentialRedactor, destinationKeyPrefix, joinKey, type S3ClientLimits } from './s3';
import { classifyStorageError, destinationErrorOf } from './storage-errors';

/** What a successful validation did. */
export interface DestinationValidation {
  /** Key of the test object that was written. */
  readonly testObjectKey: string;
  /** Whether the test object could be deleted again (false: it stays in the bucket). */
  readonly deleted: boolean;
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
      const failure = classifyStorageError(err);
      const message = destinationErrorOf(failure.kind);
      if (message) throw new HttpError(400, message);
      throw new HttpError(503, `The destination could not be validated, try again later (${credentialRedactor(credentials).redact(failure.description)})`);
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
