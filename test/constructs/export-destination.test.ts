import { createHash } from 'node:crypto';
import { Testing, TerraformVariable, type TerraformStack } from 'cdktf';
import { ExportBucket, ExportPrincipal } from '../../lib/constructs/export-bucket';
import { DestinationCredentials, DestinationTarget, ExportDestination, type S3DestinationSettings } from '../../lib/constructs/export-destination';
import { ExportDestination as ExportDestinationResource } from '../../lib/constructs/generated/export-destination';
import { exportStack, onlyResource, providerStack, resourcesOf, synthesized, violationsOf, warningsOf } from './support/synth';

const secretVariable = (stack: TerraformStack, name: string) => new TerraformVariable(stack, name, { type: 'string', sensitive: true }).stringValue;

describe('ExportDestination', () => {
  test('on an ExportBucket: settings and the access key wired by reference, created after the grant', () => {
    const stack = exportStack();
    const bucket = new ExportBucket(stack, 'Traces', { prefix: 'agent-traces' });
    new ExportDestination(stack, 'Destination', { displayName: 'traces', target: DestinationTarget.exportBucket(bucket) });
    const json = synthesized(stack);
    const [bucketAddress] = Object.keys(resourcesOf(json, 'aws_s3_bucket'));
    const [keyAddress] = Object.keys(resourcesOf(json, 'aws_iam_access_key'));
    const [policyAddress] = Object.keys(resourcesOf(json, 'aws_iam_user_policy'));
    expect(onlyResource(json, 'agentplatform_export_destination')).toMatchObject({
      display_name: 'traces',
      bucket_name: `\${aws_s3_bucket.${bucketAddress}.bucket}`,
      prefix: 'agent-traces',
      region: `\${aws_s3_bucket.${bucketAddress}.region}`,
      credentials: { access_key_id: `\${aws_iam_access_key.${keyAddress}.id}`, secret_access_key: `\${aws_iam_access_key.${keyAddress}.secret}` },
      // made of the key's id, so a replaced key is sent: write-only credentials go out only when the version changes
      credentials_version: `\${parseint(substr(sha256(aws_iam_access_key.${keyAddress}.id), 0, 8), 16)}`,
      depends_on: [`aws_iam_user_policy.${policyAddress}`],
    });
  });

  test('on a self-hosted installation: environment credentials, created after the grants of both roles', () => {
    const stack = exportStack();
    const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces', { region: 'eu-west-1' });
    bucket.grantExport(ExportPrincipal.selfHosted({ backendRoleName: 'backend', queueRoleName: 'queue' }));
    new ExportDestination(stack, 'Destination', { displayName: 'traces', target: DestinationTarget.exportBucket(bucket, { credentials: DestinationCredentials.environment() }) });
    const json = synthesized(stack);
    const destination = onlyResource(json, 'agentplatform_export_destination');
    expect(destination).toMatchObject({ bucket_name: 'acme-traces', region: 'eu-west-1' });
    expect(destination).not.toHaveProperty('credentials');
    expect(destination).not.toHaveProperty('credentials_version');
    expect(destination.depends_on).toEqual(Object.keys(resourcesOf(json, 'aws_iam_role_policy')).map((a) => `aws_iam_role_policy.${a}`));
    expect(resourcesOf(json, 'aws_iam_user')).toEqual({});
  });

  test('is created after the grants of its bucket also when they come after it in the code', () => {
    const stack = exportStack();
    const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces', { region: 'eu-west-1' });
    const destination = new ExportDestination(stack, 'Destination', { displayName: 'traces', target: DestinationTarget.exportBucket(bucket, { credentials: DestinationCredentials.environment() }) });
    bucket.grantExport(ExportPrincipal.selfHosted({ backendRoleName: 'backend', queueRoleName: 'queue' }));
    // a dependency set on the resource itself (an escape hatch) is kept
    destination.resource.dependsOn = ['terraform_data.network'];
    const json = synthesized(stack);
    const policies = Object.keys(resourcesOf(json, 'aws_iam_role_policy')).map((a) => `aws_iam_role_policy.${a}`);
    expect(policies).toHaveLength(2);
    expect(onlyResource(json, 'agentplatform_export_destination').depends_on).toEqual(['terraform_data.network', ...policies]);
    // synthesized again: the same dependencies, once
    expect(onlyResource(synthesized(stack), 'agentplatform_export_destination').depends_on).toEqual(['terraform_data.network', ...policies]);
  });

  test('keys given without credentialsVersion take a version made of the access key id: another key id is another version', () => {
    const versionOf = (accessKeyId: string): unknown => {
      const stack = providerStack();
      new ExportDestination(stack, 'Destination', {
        displayName: 'local',
        target: DestinationTarget.s3({
          bucketName: 'exports',
          endpointUrl: 'http://127.0.0.1:9000',
          credentials: DestinationCredentials.fromValues({ accessKeyId, secretAccessKey: secretVariable(stack, 'secret') }),
        }),
      });
      return onlyResource(synthesized(stack), 'agentplatform_export_destination').credentials_version;
    };
    // what Terraform's parseint(substr(sha256("S3RVER"), 0, 8), 16) gives
    expect(versionOf('S3RVER')).toBe(Number.parseInt(createHash('sha256').update('S3RVER').digest('hex').slice(0, 8), 16));
    expect(versionOf('S3RVER')).not.toBe(versionOf('S3RVER2'));
  });

  test('on any S3-compatible store, with keys from sensitive variables', () => {
    const stack = providerStack();
    new ExportDestination(stack, 'Destination', {
      displayName: 'local',
      credentialsVersion: 3,
      target: DestinationTarget.s3({
        bucketName: 'exports',
        prefix: 'traces',
        endpointUrl: 'http://127.0.0.1:9000',
        includeBucketInPrefix: true,
        credentials: DestinationCredentials.fromValues({ accessKeyId: 'S3RVER', secretAccessKey: secretVariable(stack, 'secret') }),
      }),
    });
    expect(Testing.synth(stack)).toHaveResourceWithProperties(ExportDestinationResource, {
      bucket_name: 'exports',
      prefix: 'traces',
      endpoint_url: 'http://127.0.0.1:9000',
      include_bucket_in_prefix: true,
      credentials: { access_key_id: 'S3RVER', secret_access_key: '${var.secret}' },
      credentials_version: 3,
    });
  });

  test('no secret reaches the synthesized JSON: every credential value is a reference', () => {
    const stack = exportStack();
    new ExportDestination(stack, 'Destination', { displayName: 'traces', target: DestinationTarget.exportBucket(new ExportBucket(stack, 'Traces')) });
    const credentials = onlyResource(synthesized(stack), 'agentplatform_export_destination').credentials as Record<string, string>;
    for (const value of Object.values(credentials)) expect(value).toMatch(/^\$\{[^}]+\}$/);
  });

  describe('validation', () => {
    const raw = (stack: TerraformStack, settings: Partial<S3DestinationSettings>): DestinationTarget =>
      DestinationTarget.s3({ bucketName: 'exports', region: 'eu-west-1', credentials: DestinationCredentials.fromValues({ accessKeyId: 'AKIA', secretAccessKey: secretVariable(stack, 's') }), ...settings });

    test.each([
      [
        "an ExportBucket's key with the bucket name in the prefix, where the key may not write",
        (s: TerraformStack) => {
          const bucket = ExportBucket.fromBucketName(s, 'Bucket', 'exports', { prefix: 'traces' });
          return {
            displayName: 'd',
            target: raw(s, { prefix: 'traces', includeBucketInPrefix: true, credentials: DestinationCredentials.fromExportAccessKey(bucket.withAccessKey()) }),
          };
        },
        'target.includeBucketInPrefix',
      ],
      [
        'a literal secret key',
        (s: TerraformStack) => ({ displayName: 'd', target: raw(s, { credentials: DestinationCredentials.fromValues({ accessKeyId: 'AKIA', secretAccessKey: 'wJalr' }) }) }),
        'target.credentials.secretAccessKey',
      ],
      ['credentialsVersion 0', (s: TerraformStack) => ({ displayName: 'd', credentialsVersion: 0, target: raw(s, {}) }), 'credentialsVersion'],
      [
        'credentialsVersion with environment credentials',
        (s: TerraformStack) => ({ displayName: 'd', credentialsVersion: 2, target: raw(s, { credentials: DestinationCredentials.environment() }) }),
        'credentialsVersion',
      ],
    ])('%s', (_, props, prop) => {
      const stack = providerStack();
      expect(violationsOf(() => new ExportDestination(stack, 'Destination', props(stack))).map((v) => v.prop)).toEqual([prop]);
    });

    // forms the spec does not rule out: the real platform may take them
    test.each([
      ['an endpoint that is not a URL', { endpointUrl: 's3.local' }, 'target.endpointUrl: "s3.local" is not an absolute http:// or https:// URL'],
      ['a region that no host name can hold', { region: 'eu west 1' }, 'target.region: "eu west 1" is not a region name'],
      ['an empty region', { region: '' }, 'target.region: "" is not a region name'],
      ['an empty bucket name', { bucketName: '' }, 'target.bucketName: is empty (is its variable set?).'],
    ] as const)('%s is warned of, and synthesized', (_, settings, warning) => {
      const stack = providerStack();
      const destination = new ExportDestination(stack, 'Destination', { displayName: 'd', target: raw(stack, settings) });
      expect(warningsOf(destination)).toEqual([expect.stringContaining(warning)]);
      expect(warningsOf(destination)[0]).toMatch(/The platform may refuse it\.$/);
    });

    // the spec lets the region be left out when an endpoint is given, and states no rule for leaving both out
    test('neither region nor endpoint is warned of, as the provider does, and synthesized', () => {
      const stack = providerStack();
      const destination = new ExportDestination(stack, 'Destination', { displayName: 'd', target: raw(stack, { region: undefined }) });
      expect(warningsOf(destination)).toEqual([expect.stringContaining('target.region: neither region nor endpointUrl is set: the platform writes to Amazon S3')]);
      expect(onlyResource(synthesized(stack), 'agentplatform_export_destination')).not.toHaveProperty('region');
    });

    test('an existing bucket of unknown region is warned of, naming where its region goes', () => {
      const stack = exportStack();
      const bucket = ExportBucket.fromBucketName(stack, 'Existing', 'acme-traces');
      const destination = new ExportDestination(stack, 'Destination', { displayName: 'd', target: DestinationTarget.exportBucket(bucket) });
      expect(warningsOf(destination)).toEqual([expect.stringContaining('ExportBucket.fromBucketName, pass its region there')]);
    });

    test('an endpoint with a user name or password is refused however malformed, and its password is never quoted', () => {
      for (const endpointUrl of ['https://user:TOKEN_E@s3.example.com/a b', 'http:/user:TOKEN_E@s3.example.com']) {
        const stack = providerStack();
        const violations = violationsOf(() => new ExportDestination(stack, 'Destination', { displayName: 'd', target: raw(stack, { endpointUrl }) }));
        expect(violations).toEqual([{ prop: 'target.endpointUrl', message: expect.stringContaining('must not carry a user name or password') }]);
        expect(JSON.stringify(violations)).not.toContain('TOKEN_E');
      }
      const stack = providerStack();
      const destination = new ExportDestination(stack, 'Destination', { displayName: 'd', target: raw(stack, { endpointUrl: 'key:TOKEN_E@s3.example.com' }) });
      expect(warningsOf(destination)).toEqual([expect.stringContaining('target.endpointUrl: "key:***@s3.example.com" is not an absolute')]);
    });

    test('every violation at once, never quoting the secret', () => {
      const stack = providerStack();
      let message = '';
      try {
        new ExportDestination(stack, 'Destination', {
          displayName: '',
          target: DestinationTarget.s3({ bucketName: '', credentials: DestinationCredentials.fromValues({ accessKeyId: 'AKIA', secretAccessKey: 'wJalrXUtnFEMI', sessionToken: 'FwoGZX' }) }),
        });
      } catch (error) {
        message = (error as Error).message;
      }
      // the two literal secrets; the empty names and the region left out with no endpoint are warnings
      expect(message).toMatch(/\(2 problems\)/);
      expect(message).not.toMatch(/wJalrXUtnFEMI|FwoGZX/);
    });
  });
});
