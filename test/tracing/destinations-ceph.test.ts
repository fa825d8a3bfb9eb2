/**
 * Destination validation and storage failures against Ceph RADOS Gateway, which checks SigV4 signatures and IAM user
 * policies for real: the four documented destination errors with real users, credential rotation, secrets kept out
 * of every response, and the failure table's storage rows (not retried) during an export.
 */
import { BadRequestError } from '../../lib/api/errors';
import { DESTINATION_ERRORS, type DestinationCreate } from '../../lib/api/schemas/bulk-export';
import { generateSyntheticRuns } from '../../lib/local/tracing/synthetic/generate';
import { toMicros } from '../../lib/local/tracing/store/time';
import { CEPH_START_TIMEOUT_MS, startCeph, type CephCluster, type S3Credentials } from '../support/ceph';
import { startTracingPlatform, type TracingPlatform } from './support/platform';
import { waitFor } from './support/wait';

const BUCKET = 'exports';
const PREFIX = 'team-a/traces';

let ceph: CephCluster;
let platform: TracingPlatform;
let writer: S3Credentials;
let putOnly: S3Credentials;
let readOnly: S3Credentials;

const allow = (actions: string[], bucket = BUCKET) => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: actions, Resource: [`arn:aws:s3:::${bucket}/*`] }],
});

const keys = (credentials: S3Credentials) => ({
  access_key_id: credentials.accessKeyId,
  secret_access_key: credentials.secretAccessKey,
});

function destination(credentials: DestinationCreate['credentials'], config: Partial<DestinationCreate['config']> = {}): DestinationCreate {
  return {
    destination_type: 's3',
    display_name: 'ceph',
    config: { bucket_name: BUCKET, prefix: PREFIX, endpoint_url: ceph.endpoint, ...config },
    credentials,
  };
}

async function rejection(body: DestinationCreate): Promise<{ status: number | undefined; detail: string }> {
  const error = await platform.client.createDestination(body).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(BadRequestError);
  const apiError = error as BadRequestError;
  return { status: apiError.status, detail: (apiError.body as { detail: string }).detail };
}

beforeAll(async () => {
  ceph = await startCeph();
  await ceph.createBucket(BUCKET);
  await ceph.createBucket('revoked');
  writer = await ceph.createUser('writer');
  putOnly = await ceph.createUser('put-only');
  readOnly = await ceph.createUser('read-only');
  await ceph.putUserPolicy('writer', allow(['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload']));
  await ceph.putUserPolicy('put-only', allow(['s3:PutObject']));
  await ceph.putUserPolicy('read-only', allow(['s3:GetObject']));
  platform = await startTracingPlatform({ settings: { retryDelayMs: 0 } });
}, CEPH_START_TIMEOUT_MS);

afterAll(async () => {
  await platform?.close();
  await ceph?.stop();
});

describe('destination validation writes a test object with the given credentials', () => {
  test('valid keys: the destination is created and the test object under <prefix>/tmp/ is deleted again', async () => {
    const created = await platform.client.createDestination(destination(keys(writer)));
    expect(created).toMatchObject({ destination_type: 's3', config: { bucket_name: BUCKET, prefix: PREFIX }, credentials_keys: ['access_key_id', 'secret_access_key'] });
    expect(JSON.stringify(created)).not.toContain(writer.secretAccessKey);
    expect(await ceph.listObjects(BUCKET, `${PREFIX}/tmp/`)).toEqual([]);
    const fetched = await platform.client.getDestination(created.id);
    expect(fetched).toEqual(created);
    expect(JSON.stringify(await platform.client.listDestinations())).not.toContain(writer.secretAccessKey);
  });

  test('without delete permission the destination is created and the test object stays', async () => {
    await platform.client.createDestination(destination(keys(putOnly), { prefix: 'put-only' }));
    const left = await ceph.listObjects(BUCKET, 'put-only/tmp/');
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^put-only\/tmp\/validation-[0-9a-f-]+\.txt$/);
  });

  test('include_bucket_in_prefix puts the bucket name in front of the prefix', async () => {
    await platform.client.createDestination(destination(keys(putOnly), { prefix: 'legacy', include_bucket_in_prefix: true }));
    expect(await ceph.listObjects(BUCKET, `${BUCKET}/legacy/tmp/`)).toHaveLength(1);
  });

  test('"Access denied": a user without s3:PutObject', async () => {
    expect(await rejection(destination(keys(readOnly)))).toEqual({ status: 400, detail: DESTINATION_ERRORS.accessDenied });
  });

  test('"Access denied": a known key with a wrong secret (the signature does not match)', async () => {
    const wrong = { access_key_id: writer.accessKeyId, secret_access_key: 'not-the-secret-000000000000000000000000' };
    expect(await rejection(destination(wrong))).toEqual({ status: 400, detail: DESTINATION_ERRORS.accessDenied });
  });

  test('"Key ID you provided does not exist": an unknown access key id', async () => {
    const unknown = { access_key_id: 'AKIAUNKNOWNKEY000000', secret_access_key: 'whatever-secret-0000000000000000000000' };
    expect(await rejection(destination(unknown))).toEqual({ status: 400, detail: DESTINATION_ERRORS.unknownKeyId });
  });

  test('"Bucket is not valid": a bucket that does not exist', async () => {
    expect(await rejection(destination(keys(writer), { bucket_name: 'no-such-bucket' }))).toEqual({
      status: 400,
      detail: DESTINATION_ERRORS.bucketNotValid,
    });
  });

  test('"Invalid endpoint": an HTTP server that is not S3, a closed port, and a malformed URL', async () => {
    for (const endpoint_url of [platform.url, 'http://127.0.0.1:1', 'not a url']) {
      expect(await rejection(destination(keys(writer), { endpoint_url }))).toEqual({ status: 400, detail: DESTINATION_ERRORS.invalidEndpoint });
    }
  });

  test('error bodies never contain the secret (the answers as sent, not as the client shows them)', async () => {
    const wrongSecret = 'not-the-secret-111111111111111111111111';
    for (const credentials of [keys(readOnly), { access_key_id: writer.accessKeyId, secret_access_key: wrongSecret }]) {
      const response = await fetch(`${platform.url}/api/v1/bulk-exports/destinations`, {
        method: 'POST',
        headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(destination(credentials)),
      });
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(JSON.parse(text)).toEqual({ detail: DESTINATION_ERRORS.accessDenied });
      expect(text).not.toContain(credentials.secret_access_key);
    }
  });

  test('omitted credentials use the host environment (the SDK default chain)', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = writer.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = writer.secretAccessKey;
    try {
      const created = await platform.client.createDestination(destination(null, { prefix: 'env' }));
      expect(created.credentials_keys).toEqual([]);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });
});

describe('credential rotation (PATCH {credentials})', () => {
  test('new credentials are validated first: bad ones are refused and the old ones stay', async () => {
    const created = await platform.client.createDestination(destination(keys(putOnly), { prefix: 'rotate' }));
    await expect(platform.client.rotateDestinationCredentials(created.id, keys(readOnly))).rejects.toMatchObject({
      status: 400,
      body: { detail: DESTINATION_ERRORS.accessDenied },
    });
    const stored = platform.stores.destinations.resolve(created.id)!;
    expect(stored.credentials?.access_key_id).toBe(putOnly.accessKeyId);

    const rotated = await platform.client.rotateDestinationCredentials(created.id, { ...keys(writer), session_token: null });
    expect(rotated.credentials_keys).toEqual(['access_key_id', 'secret_access_key']);
    expect(platform.stores.destinations.resolve(created.id)!.credentials?.access_key_id).toBe(writer.accessKeyId);
  });

  test('credentials are stored encrypted', async () => {
    const created = await platform.client.createDestination(destination(keys(writer), { prefix: 'sealed' }));
    const db = platform.db;
    const row = db.prepare('SELECT * FROM bulk_export_destinations WHERE id = ?').get(created.id);
    expect(JSON.stringify(row)).not.toContain(writer.secretAccessKey);
    expect(JSON.stringify(row)).not.toContain(writer.accessKeyId);
  });
});

describe('failure table: storage and destination errors during an export are not retried', () => {
  let sessionId: string;

  beforeAll(async () => {
    sessionId = (await platform.client.createSession({ name: 'ceph-exports' })).id;
    generateSyntheticRuns(platform.stores.runs, {
      tenantId: platform.tenantId,
      sessionId,
      count: 200,
      startMicros: toMicros('2024-06-01T00:00:00Z'),
      endMicros: toMicros('2024-06-01T20:00:00Z'),
      payloadBytes: 200,
    });
  });

  async function failedRun(destinationId: string) {
    const exp = await platform.client.createExport({
      bulk_export_destination_id: destinationId,
      session_id: sessionId,
      start_time: '2024-06-01T00:00:00Z',
      end_time: '2024-06-02T00:00:00Z',
    });
    const done = await waitFor('the export to fail', async () => {
      const current = await platform.client.getExport(exp.id);
      return current.status === 'Running' || current.status === 'Created' ? undefined : current;
    });
    expect(done.status).toBe('Failed');
    const [run] = await platform.client.listExportRuns(exp.id);
    return run;
  }

  test('permission revoked after the destination was created: Failed at once, one error, no retry', async () => {
    const user = await ceph.createUser('revoked-user');
    await ceph.putUserPolicy('revoked-user', allow(['s3:PutObject', 's3:DeleteObject'], 'revoked'));
    const created = await platform.client.createDestination(destination(keys(user), { bucket_name: 'revoked' }));
    await ceph.deleteUserPolicy('revoked-user');
    const run = await failedRun(created.id);
    expect(run).toMatchObject({ status: 'Failed', retry_number: 0 });
    expect(Object.keys(run.errors)).toEqual(['retry_0']);
    expect(run.errors.retry_0).toContain('Storage or destination error (not retried): Access denied');
    // the name of the file it could not write was recorded first: its delete is refused too, which is logged
    const refused = await waitFor('the refused delete to be logged', () =>
      platform.logs.find((line) => line.includes('which its run left uncommitted, may stay in the bucket: AccessDenied')),
    );
    expect(refused).toContain('/part-00000.parquet');
  });

  test('destination deleted (bucket removed): Failed with "Bucket is not valid", no retry', async () => {
    await ceph.createBucket('short-lived');
    const user = await ceph.createUser('short-lived-user');
    await ceph.putUserPolicy('short-lived-user', allow(['s3:PutObject', 's3:DeleteObject'], 'short-lived'));
    const created = await platform.client.createDestination(destination(keys(user), { bucket_name: 'short-lived' }));
    await ceph.deleteBucket('short-lived');
    const run = await failedRun(created.id);
    expect(run).toMatchObject({ status: 'Failed', retry_number: 0 });
    expect(run.errors.retry_0).toContain('Bucket is not valid');
  });
});
