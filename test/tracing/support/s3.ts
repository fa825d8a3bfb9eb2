/** An in-process S3 server (s3rver) with a client, for tests that move bytes (never for auth). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { startInProcessS3, type InProcessS3 } from '../../../lib/local/s3';
import { startTracingPlatform, type TracingPlatform } from './platform';

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

/** A tracing platform with a project and a destination on an in-process S3 server, for a test file of the API. */
export interface ApiFixture {
  readonly s3: TestS3;
  readonly platform: TracingPlatform;
  readonly sessionId: string;
  readonly destinationId: string;
  close(): Promise<void>;
}

/** Starts an {@link ApiFixture}: project and destination named `name`, the destination under `prefix`. */
export async function startApiFixture(name: string, prefix = ''): Promise<ApiFixture> {
  const s3 = await startTestS3(['exports']);
  const platform = await startTracingPlatform();
  const sessionId = (await platform.client.createSession({ name })).id;
  const destinationId = (await platform.client.createDestination(destinationOn(s3, name, prefix))).id;
  return {
    s3,
    platform,
    sessionId,
    destinationId,
    close: async () => {
      await platform.close();
      await s3.close();
    },
  };
}
