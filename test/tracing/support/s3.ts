/** An in-process S3 server (s3rver) with a client, for tests that move bytes (never for auth). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { startInProcessS3, type InProcessS3 } from '../../../lib/local/s3';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface TestS3 {
  readonly server: InProcessS3;
  readonly client: S3Client;
  /** Destination credentials the server accepts. */
  readonly credentials: { access_key_id: string; secret_access_key: string };
  close(): Promise<void>;
}

export async function startTestS3(buckets: string[]): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = await startInProcessS3({ directory, buckets });
  const client = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  return {
    server,
    client,
    credentials: { access_key_id: server.accessKeyId, secret_access_key: server.secretAccessKey },
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The body that makes a destination of bucket `bucket` of this server under `prefix`, with the server's credentials. */
export function destinationOn(s3: TestS3, displayName: string, prefix = '', bucket = 'exports') {
  return {
    display_name: displayName,
    config: { bucket_name: bucket, prefix, endpoint_url: s3.server.endpoint },
    credentials: s3.credentials,
  };
}
