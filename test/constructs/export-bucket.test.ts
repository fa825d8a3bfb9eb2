import { IamAccessKey } from '@cdktf/provider-aws/lib/iam-access-key';
import { IamUser } from '@cdktf/provider-aws/lib/iam-user';
import { S3BucketLifecycleConfiguration } from '@cdktf/provider-aws/lib/s3-bucket-lifecycle-configuration';
import { S3BucketOwnershipControls } from '@cdktf/provider-aws/lib/s3-bucket-ownership-controls';
import { S3BucketPublicAccessBlock } from '@cdktf/provider-aws/lib/s3-bucket-public-access-block';
import { S3BucketServerSideEncryptionConfigurationA } from '@cdktf/provider-aws/lib/s3-bucket-server-side-encryption-configuration';
import { Testing } from 'cdktf';
import { Duration } from '../../lib/constructs/duration';
import { ExportBucket, ExportPrincipal } from '../../lib/constructs/export-bucket';
import { DestinationTarget, ExportDestination } from '../../lib/constructs/export-destination';
import { EXPORT_PERMISSIONS, exportActions, type ExportPermissionOptions } from '../../lib/constructs/export-permissions';
import { exportStack, messageOf, onlyResource, resourcesOf, synthesized, violationsOf } from './support/synth';

interface PolicyDocument {
  Version: string;
  Statement: Array<{ Effect: string; Action: string[]; Resource: string[] }>;
}

type SynthesizedPolicy = Record<string, unknown> & { document: PolicyDocument };

const policiesOf = (json: ReturnType<typeof synthesized>, type: 'aws_iam_user_policy' | 'aws_iam_role_policy'): SynthesizedPolicy[] =>
  Object.values(resourcesOf(json, type)).map((p) => ({ ...p, document: JSON.parse(p.policy as string) as PolicyDocument }));

/** The actions of a policy, statement by statement, each with the keys it covers. */
const grantsOf = (document: PolicyDocument) => document.Statement.map((statement) => [statement.Action, statement.Resource]);

describe('ExportBucket', () => {
  test('a new bucket blocks public access, is encrypted and enforces object ownership', () => {
    const stack = exportStack();
    new ExportBucket(stack, 'Traces');
    const synth = Testing.synth(stack);
    expect(onlyResource(synthesized(stack), 'aws_s3_bucket')).toMatchObject({ bucket_prefix: 'agentplatform-exports-' });
    expect(synth).toHaveResourceWithProperties(S3BucketPublicAccessBlock, { block_public_acls: true, block_public_policy: true, ignore_public_acls: true, restrict_public_buckets: true });
    expect(synth).toHaveResourceWithProperties(S3BucketServerSideEncryptionConfigurationA, { rule: [{ apply_server_side_encryption_by_default: { sse_algorithm: 'AES256' } }] });
    expect(synth).toHaveResourceWithProperties(S3BucketOwnershipControls, { rule: { object_ownership: 'BucketOwnerEnforced' } });
    expect(synth).not.toHaveResource(S3BucketLifecycleConfiguration);
  });

  test('the optional lifecycle expires exported files under the prefix', () => {
    const stack = exportStack();
    new ExportBucket(stack, 'Traces', { bucketName: 'acme-traces', prefix: 'exports/prod', lifecycle: { expireAfter: Duration.days(90) } });
    expect(onlyResource(synthesized(stack), 'aws_s3_bucket')).toMatchObject({ bucket: 'acme-traces' });
    expect(Testing.synth(stack)).toHaveResourceWithProperties(S3BucketLifecycleConfiguration, {
      rule: [{ id: 'agentplatform-exports', status: 'Enabled', filter: [{ prefix: 'exports/prod/' }], expiration: [{ days: 90 }], abort_incomplete_multipart_upload: [{ days_after_initiation: 7 }] }],
    });
  });

  test('grantExport gives exactly the export actions on the export prefix, nothing wider', () => {
    const stack = exportStack();
    new ExportBucket(stack, 'Traces').grantExport(ExportPrincipal.user('exporter'));
    const json = synthesized(stack);
    const bucketAddress = Object.keys(resourcesOf(json, 'aws_s3_bucket'))[0];
    const [policy, ...others] = policiesOf(json, 'aws_iam_user_policy');
    expect(others).toEqual([]);
    expect(policy).toMatchObject({ user: 'exporter', name_prefix: 'agentplatform-export-' });
    const objects = `\${aws_s3_bucket.${bucketAddress}.arn}/agent-traces`;
    expect(policy!.document).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Sid: 'AgentPlatformBulkExport', Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'], Resource: [`${objects}/*`] },
        // the key deletes nothing but the test objects of destination validation: never an exported file
        { Sid: 'AgentPlatformDestinationTestObject', Effect: 'Allow', Action: ['s3:DeleteObject'], Resource: [`${objects}/tmp/*`] },
      ],
    });
  });

  test('the granted actions are the permissions table, in its order', () => {
    expect(exportActions()).toEqual(EXPORT_PERMISSIONS.map((p) => p.action));
    expect(EXPORT_PERMISSIONS.filter((p) => p.option === undefined).map((p) => p.action)).toEqual(['s3:PutObject']);
  });

  test.each([
    [{ deleteObject: false }, [['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload']]],
    [{ readObject: false }, [['s3:PutObject', 's3:AbortMultipartUpload'], ['s3:DeleteObject']]],
    [{ abortMultipartUpload: false }, [['s3:PutObject', 's3:GetObject'], ['s3:DeleteObject']]],
    [{ deleteObject: false, readObject: false, abortMultipartUpload: false }, [['s3:PutObject']]],
  ])('options %j turn actions off, never s3:PutObject', (options, actions) => {
    const stack = exportStack();
    new ExportBucket(stack, 'Traces').grantExport(ExportPrincipal.role('writer'), options);
    expect(policiesOf(synthesized(stack), 'aws_iam_role_policy')[0]!.document.Statement.map((statement) => statement.Action)).toEqual(actions);
  });

  test('a self-hosted installation grants both the backend and the queue service roles', () => {
    const stack = exportStack();
    const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces', { prefix: '' });
    bucket.grantExport(ExportPrincipal.selfHosted({ backendRoleName: 'platform-backend', queueRoleName: 'platform-queue' }));
    const policies = policiesOf(synthesized(stack), 'aws_iam_role_policy');
    expect(policies.map((p) => String(p.role)).sort()).toEqual(['platform-backend', 'platform-queue']);
    for (const p of policies) {
      expect(grantsOf(p.document)).toEqual([
        [['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'], ['arn:aws:s3:::acme-traces/*']],
        [['s3:DeleteObject'], ['arn:aws:s3:::acme-traces/tmp/*']],
      ]);
    }
  });

  test("a grant's policies keep their addresses when other grants are added, removed or reordered", () => {
    const addresses = (roles: readonly string[], keyFirst: boolean) => {
      const stack = exportStack();
      const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces');
      if (keyFirst) bucket.withAccessKey();
      for (const role of roles) bucket.grantExport(ExportPrincipal.role(role));
      if (!keyFirst) bucket.withAccessKey();
      const json = synthesized(stack);
      const byRole = Object.fromEntries(Object.entries(resourcesOf(json, 'aws_iam_role_policy')).map(([address, p]) => [p.role as string, address]));
      return { byRole, user: Object.keys(resourcesOf(json, 'aws_iam_user_policy')) };
    };
    const all = addresses(['reader', 'writer', 'auditor'], false);
    const fewer = addresses(['auditor', 'writer'], true);
    expect(fewer.byRole.writer).toBe(all.byRole.writer);
    expect(fewer.byRole.auditor).toBe(all.byRole.auditor);
    expect(fewer.user).toEqual(all.user);
    expect(new Set(Object.values(all.byRole)).size).toBe(3);
  });

  test("a grant's address depends on its identities, not on the grants of others", () => {
    const addresses = (grants: readonly [string, ExportPermissionOptions][]) => {
      const stack = exportStack();
      const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces');
      for (const [role, options] of grants) bucket.grantExport(ExportPrincipal.role(role), options);
      return Object.entries(resourcesOf(synthesized(stack), 'aws_iam_role_policy')).map(([address, p]) => `${p.role as string} ${JSON.parse(p.policy as string).Statement.length} ${address}`);
    };
    const noGet = { readObject: false };
    // the same role granted twice (with other permissions, in the same order), and two names that read alike once made
    // safe for an id; the grants of other identities come and go around them
    const one = addresses([['r1', {}], ['r2', {}], ['r1', noGet], ['a_b', {}], ['a.b', {}]]);
    const other = addresses([['a_b', {}], ['r1', {}], ['a.b', {}], ['r1', noGet]]);
    for (const line of other) expect(one).toContain(line);
    expect(new Set(one.map((line) => line.split(' ')[2])).size).toBe(5);
    // granting the very same thing twice is a mistake, said as such
    expect(() => addresses([['r1', {}], ['r1', {}]])).toThrow('role r1 is already granted these permissions');
  });

  test('withAccessKey makes one IAM user with an access key and the export grant', () => {
    const stack = exportStack();
    const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces');
    const key = bucket.withAccessKey({ deleteObject: false });
    expect(bucket.withAccessKey({ deleteObject: false })).toBe(key);
    const json = synthesized(stack);
    const userAddress = Object.keys(resourcesOf(json, 'aws_iam_user'))[0];
    expect(Testing.synth(stack)).toHaveResourceWithProperties(IamAccessKey, { user: `\${aws_iam_user.${userAddress}.name}` });
    expect(Testing.synth(stack)).toHaveResource(IamUser);
    const [policy] = policiesOf(json, 'aws_iam_user_policy');
    expect(policy).toMatchObject({ user: `\${aws_iam_user.${userAddress}.name}` });
    expect(policy!.document.Statement[0]).toMatchObject({ Action: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'], Resource: ['arn:aws:s3:::acme-traces/agent-traces/*'] });
    expect(() => bucket.withAccessKey()).toThrow('was already called with other options');
  });

  test('withAccessKey options that grant the same actions ask for the same key; a destination uses the key made', () => {
    const stack = exportStack();
    const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces', { region: 'eu-west-1' });
    const key = bucket.withAccessKey({ readObject: false });
    expect(bucket.exportAccessKey).toBe(key);
    expect(bucket.withAccessKey({ readObject: false, deleteObject: true })).toBe(key);
    new ExportDestination(stack, 'Destination', { displayName: 'traces', target: DestinationTarget.exportBucket(bucket) });
    const json = synthesized(stack);
    expect(Object.keys(resourcesOf(json, 'aws_iam_access_key'))).toHaveLength(1);
    expect(policiesOf(json, 'aws_iam_user_policy').map((p) => grantsOf(p.document))).toEqual([
      [
        [['s3:PutObject', 's3:AbortMultipartUpload'], ['arn:aws:s3:::acme-traces/agent-traces/*']],
        [['s3:DeleteObject'], ['arn:aws:s3:::acme-traces/agent-traces/tmp/*']],
      ],
    ]);
  });

  describe('validation', () => {
    test.each([
      ['an upper-case bucket name', { bucketName: 'Acme-Traces' }, 'bucketName'],
      ['a bucket name with ".."', { bucketName: 'acme..traces' }, 'bucketName'],
      ['an IP address as bucket name', { bucketName: '10.0.0.1' }, 'bucketName'],
      ['a prefix with a leading slash', { prefix: '/exports' }, 'prefix'],
      ['a prefix with a wildcard', { prefix: 'exports/*' }, 'prefix'],
      ['expiry in hours', { lifecycle: { expireAfter: Duration.hours(36) } }, 'lifecycle.expireAfter'],
      ['no time for unfinished uploads', { lifecycle: { abortIncompleteUploadsAfter: Duration.days(0) } }, 'lifecycle.abortIncompleteUploadsAfter'],
    ])('%s', (_, props, prop) => {
      expect(violationsOf(() => new ExportBucket(exportStack(), 'Traces', props)).map((v) => v.prop)).toEqual([prop]);
    });

    test('every violation at once, for new and existing buckets alike', () => {
      const message = messageOf(() => new ExportBucket(exportStack(), 'Traces', { bucketName: 'A', prefix: 'x//y', lifecycle: { expireAfter: Duration.hours(1) } }));
      expect(message).toMatch(/^Invalid ExportBucket "test\/Traces" \(3 problems\)/);
      expect(violationsOf(() => ExportBucket.fromBucketName(exportStack(), 'Existing', 'Bad_Name', { prefix: 'a/' })).map((v) => v.prop)).toEqual(['bucketName', 'prefix']);
    });
  });
});
