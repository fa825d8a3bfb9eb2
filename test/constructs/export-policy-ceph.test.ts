/**
 * The ExportBucket policy, proven on a real policy engine: the IAM policy document is taken from the synthesized
 * stack, put on a fresh Ceph RGW user (iam:PutUserPolicy), and the local platform validates a destination (its
 * PutObject under `<prefix>/tmp/`) and runs exports with that user's keys (a small file, and one larger than a
 * multipart chunk, which goes up in parts); the key deletes nothing but those test objects.
 */
import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { Testing, TerraformStack } from 'cdktf';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkExportClient } from '../../lib/api/bulk-export';
import { BadRequestError } from '../../lib/api/errors';
import { DESTINATION_ERRORS } from '../../lib/api/schemas/bulk-export';
import { ExportBucket, ExportPrincipal } from '../../lib/constructs/export-bucket';
import type { ExportPermissionOptions } from '../../lib/constructs/export-permissions';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { CEPH_START_TIMEOUT_MS, startCeph, type CephCluster, type S3Credentials } from '../support/ceph';

const BUCKET = 'agent-exports';

/** The error code a request failed with. */
async function errorCodeOf(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (err) {
    return (err as { Code?: string; name: string }).Code ?? (err as Error).name;
  }
  throw new Error('expected the request to fail');
}
const PREFIX = 'traces';

interface PolicyDocument {
  Version: string;
  Statement: Array<{ Effect: string; Action: string[]; Resource: string[] }>;
}

/** The policy document of a grant, as the synthesized stack has it. */
function synthesizedPolicy(options: ExportPermissionOptions = {}): PolicyDocument {
  const stack = new TerraformStack(Testing.app(), 'policy');
  new AwsProvider(stack, 'aws', { region: 'us-east-1' });
  ExportBucket.fromBucketName(stack, 'Bucket', BUCKET, { prefix: PREFIX }).grantExport(ExportPrincipal.user('exporter'), options);
  const json = JSON.parse(Testing.synth(stack)) as { resource: { aws_iam_user_policy: Record<string, { policy: string }> } };
  const [policy, ...others] = Object.values(json.resource.aws_iam_user_policy);
  if (!policy || others.length) throw new Error('expected exactly one aws_iam_user_policy in the synthesized stack');
  return JSON.parse(policy.policy) as PolicyDocument;
}

describe('the ExportBucket policy on Ceph RGW', () => {
  const work = mkdtempSync(join(tmpdir(), 'export-policy-'));
  let ceph: CephCluster;
  let platform: LocalPlatform;
  let tracing: BulkExportClient;
  let users = 0;

  beforeAll(async () => {
    ceph = await startCeph();
    await ceph.createBucket(BUCKET);
    platform = await startLocalPlatform({ dataDir: join(work, 'platform') });
    tracing = new BulkExportClient({ baseUrl: platform.url, auth: { kind: 'api-key', apiKey: platform.devApiKey } });
  }, CEPH_START_TIMEOUT_MS);

  afterAll(async () => {
    await tracing?.close();
    await platform?.close();
    await ceph?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** A new Ceph user (who owns no bucket) with `document` as its only policy. */
  async function userWithPolicy(document: PolicyDocument): Promise<S3Credentials> {
    const uid = `exporter-${++users}`;
    const keys = await ceph.createUser(uid);
    await ceph.putUserPolicy(uid, document);
    return keys;
  }

  const createDestination = (keys: S3Credentials, prefix = PREFIX) =>
    tracing.createDestination({
      display_name: `policy test ${users}`,
      config: { bucket_name: BUCKET, prefix, endpoint_url: ceph.endpoint, region: ceph.region },
      credentials: { access_key_id: keys.accessKeyId, secret_access_key: keys.secretAccessKey },
    });

  const validationObjects = async () => ceph.listObjects(BUCKET, `${PREFIX}/tmp/`);

  test('the synthesized policy lets the platform validate the destination, and the test object is deleted', async () => {
    const before = await validationObjects();
    const destination = await createDestination(await userWithPolicy(synthesizedPolicy()));
    expect(destination.config).toMatchObject({ bucket_name: BUCKET, prefix: PREFIX });
    expect(await validationObjects()).toEqual(before);
  });

  test('without s3:PutObject the platform refuses the destination: "Access denied"', async () => {
    const document = synthesizedPolicy();
    document.Statement = document.Statement.map((s) => ({ ...s, Action: s.Action.filter((a) => a !== 's3:PutObject') }));
    expect(document.Statement.map((s) => s.Action)).toEqual([['s3:GetObject', 's3:AbortMultipartUpload'], ['s3:DeleteObject']]);
    const refused = createDestination(await userWithPolicy(document));
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toThrow(DESTINATION_ERRORS.accessDenied);
  });

  test('with deleteObject turned off the validation object stays in the bucket', async () => {
    const document = synthesizedPolicy({ deleteObject: false });
    expect(document.Statement.flatMap((s) => s.Action)).not.toContain('s3:DeleteObject');
    const before = await validationObjects();
    await createDestination(await userWithPolicy(document));
    const after = await validationObjects();
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((key) => !before.includes(key))[0]).toMatch(new RegExp(`^${PREFIX}/tmp/`));
  });

  test('the key deletes the test objects of validation only, never an exported file', async () => {
    const keys = await userWithPolicy(synthesizedPolicy());
    const client = ceph.s3Client(keys);
    try {
      const exported = `${PREFIX}/export_id=kept/part-00000.parquet`;
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: exported, Body: 'parquet' }));
      expect(await errorCodeOf(client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: exported })))).toBe('AccessDenied');
      expect(await ceph.listObjects(BUCKET, exported)).toEqual([exported]);
      const testObject = `${PREFIX}/tmp/validation-by-hand.txt`;
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: testObject, Body: 'test' }));
      await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: testObject }));
      expect(await ceph.listObjects(BUCKET, testObject)).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  test('the grant is no wider than the export prefix: another prefix of the same bucket is refused', async () => {
    await expect(createDestination(await userWithPolicy(synthesizedPolicy()), 'elsewhere')).rejects.toThrow(DESTINATION_ERRORS.accessDenied);
  });

  /** Ingests runs of 2025-01-15 into a new project, exports that day with the destination, and returns its files. */
  async function exportDay(destinationId: string, project: string, inputs: (i: number) => Record<string, unknown> = () => ({})): Promise<string[]> {
    const session = await tracing.createSession({ name: project });
    const start = new Date(Date.UTC(2025, 0, 15, 12));
    for (const i of [0, 1, 2]) {
      await tracing.ingestRuns({
        post: [
          {
            name: `step-${i}`,
            run_type: 'llm',
            session_id: session.id,
            start_time: new Date(start.getTime() + i * 1000).toISOString(),
            end_time: new Date(start.getTime() + i * 1000 + 500).toISOString(),
            total_tokens: 10 * (i + 1),
            inputs: inputs(i),
          },
        ],
      });
    }
    const created = await tracing.createExport({
      bulk_export_destination_id: destinationId,
      session_id: session.id,
      start_time: '2025-01-15T00:00:00Z',
      end_time: '2025-01-16T00:00:00Z',
    });
    let status = created.status;
    for (const deadline = Date.now() + 60_000; !['Completed', 'Failed', 'Cancelled', 'TimedOut'].includes(status) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await tracing.getExport(created.id)).status;
    }
    expect(status).toBe('Completed');
    return ceph.listObjects(BUCKET, `${PREFIX}/export_id=${created.id}/`);
  }

  test('the synthesized policy is enough for a whole export: Parquet files land under the prefix', async () => {
    const destination = await createDestination(await userWithPolicy(synthesizedPolicy()));
    const files = await exportDay(destination.id, 'policy-replay');
    expect(files).toEqual([expect.stringMatching(/\/runs\/year=2025\/month=01\/day=15\/[^/]+\.parquet$/)]);
  });

  test('the synthesized policy is enough for a file larger than a multipart chunk (5 MiB): it goes up in parts', async () => {
    const keys = await userWithPolicy(synthesizedPolicy());
    const destination = await createDestination(keys);
    // 2.4 MB of text a run that Snappy cannot shrink: a file of about 7 MB
    const files = await exportDay(destination.id, 'policy-replay-multipart', () => ({ blob: randomBytes(1_200_000).toString('hex') }));
    expect(files).toHaveLength(1);
    // read with the export's own keys (s3:GetObject, for the size check): the object is that user's
    const client = ceph.s3Client(keys);
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: files[0] }));
      expect(head.ContentLength).toBeGreaterThan(5 * 1024 * 1024);
      // the ETag of an object made by a multipart upload ends with the number of its parts
      expect(head.ETag).toMatch(/-\d+"?$/);
    } finally {
      client.destroy();
    }
  });
});
