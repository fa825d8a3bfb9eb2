/**
 * The jsii-compiled package (`packages/cdktf/lib`, what `@agentplatform/cdktf` ships) synthesises a stack exactly as
 * the sources do: the same Terraform JSON, the same lock file, the same launcher; only the provider the launcher
 * runs differs (the bundle of the package, the compiled provider of this repository).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import * as sources from '../../lib/constructs';
import { ENTRY_FILE, terraformPlatform } from '../../lib/install/provider';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_VERSION } from '../../lib/provider/constants';
import { packageFolder, packageTarball } from '../support/packages';
import { fakeRelease } from '../provider/support/fake-release';

type Library = typeof sources;

/** A stack with every construct of the library, made with `lib`; returns the directory terraform would run in. */
function synthStack(lib: Library): string {
  const outdir = mkdtempSync(join(tmpdir(), 'jsii-synth-'));
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'agents');
  new lib.AgentPlatformProvider(stack, 'agentplatform', { maxRetries: 5, requestTimeout: lib.Duration.seconds(20) });
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  const project = new TerraformVariable(stack, 'tracing_project_id', { type: 'string' }).stringValue;
  const agent = new lib.Deployment(stack, 'Agent', {
    name: 'support-agent',
    source: lib.DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main' }),
    resources: { minScale: 1, maxScale: 3 },
  });
  new lib.DeploymentRevisions(stack, 'Revisions', { deployment: agent, statuses: ['DEPLOYED'] });
  new lib.SandboxTemplates(stack, 'Templates');
  const bucket = new lib.ExportBucket(stack, 'Traces', { prefix: 'agent-traces', lifecycle: { expireAfter: lib.Duration.days(30) } });
  const toBucket = new lib.ExportDestination(stack, 'ToBucket', {
    displayName: 'traces',
    target: lib.DestinationTarget.exportBucket(bucket, { credentials: lib.DestinationCredentials.fromExportAccessKey(bucket.withAccessKey()) }),
  });
  const toS3 = new lib.ExportDestination(stack, 'ToS3', {
    displayName: 'archive',
    target: lib.DestinationTarget.s3({
      bucketName: 'archive',
      prefix: 'runs',
      endpointUrl: 'http://127.0.0.1:4568',
      credentials: lib.DestinationCredentials.fromValues({ accessKeyId: 'S3RVER', secretAccessKey: new TerraformVariable(stack, 's3_secret', { type: 'string', sensitive: true }).stringValue }),
    }),
  });
  new lib.ScheduledExport(stack, 'Daily', {
    destination: toBucket,
    tracingProjectId: project,
    start: '2026-01-01T00:00:00Z',
    every: lib.Duration.hours(24),
    fields: ['id', 'name', 'run_type', 'start_time', 'end_time', 'status', 'total_tokens'],
    filter: lib.Filter.and(lib.Filter.eq('run_type', 'llm'), lib.Filter.eq('is_root', true)),
  });
  new lib.BulkExport(stack, 'Backfill', { destination: toS3, tracingProjectId: project, start: '2026-01-01T00:00:00Z', end: '2026-01-08T00:00:00Z' });
  app.synth();
  return join(outdir, 'stacks', 'agents');
}

const read = (dir: string, ...path: string[]): string => readFileSync(join(dir, ...path), 'utf8');
const launcher = (dir: string): string =>
  read(dir, 'terraform.d', 'plugins', ...PROVIDER_ADDRESS.split('/'), PROVIDER_VERSION, terraformPlatform(), `${PROVIDER_EXECUTABLE_PREFIX}_v${PROVIDER_VERSION}`);

describe('the jsii-compiled construct package', () => {
  let compiled: Library;
  beforeAll(() => {
    packageTarball('cdktf');
    compiled = require(join(packageFolder('cdktf'), 'lib', 'constructs', 'index.js')) as Library;
  }, 15 * 60_000);

  it('is not the sources', () => {
    expect(compiled.Deployment).not.toBe(sources.Deployment);
    expect(require.resolve(join(packageFolder('cdktf'), 'lib', 'constructs', 'deployment.js'))).toMatch(/packages\/cdktf\/lib\/constructs\/deployment\.js$/);
  });

  it('synthesises the same stack, lock file and launcher as the sources', () => {
    const fromSources = synthStack(sources);
    const fromPackage = synthStack(compiled);
    const json = JSON.parse(read(fromPackage, 'cdk.tf.json')) as { resource: Record<string, unknown> };
    expect(Object.keys(json.resource).sort()).toEqual(
      expect.arrayContaining(['agentplatform_bulk_export', 'agentplatform_deployment', 'agentplatform_export_destination', 'aws_iam_access_key', 'aws_s3_bucket']),
    );
    expect(json).toEqual(JSON.parse(read(fromSources, 'cdk.tf.json')));
    expect(read(fromPackage, '.terraform.lock.hcl')).toBe(read(fromSources, '.terraform.lock.hcl'));
    expect(launcher(fromPackage)).toBe(launcher(fromSources));
    expect(read(fromSources, 'terraform.d', ENTRY_FILE).trim()).toMatch(/\/dist\/lib\/provider\/main\.js$/);
    expect(read(fromPackage, 'terraform.d', ENTRY_FILE).trim()).toMatch(/\/packages\/cdktf\/provider\/agentplatform-provider\.js$/);
  });

  it('installs a provider release as the sources do, and refuses a platform the release lacks', async () => {
    const release = await fakeRelease(PROVIDER_VERSION, ['linux_amd64', 'darwin_arm64', 'windows_amd64']);
    const synthRelease = (lib: Library, providerPlatforms: string[]): string => {
      const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'jsii-synth-')) });
      new lib.AgentPlatformProvider(new TerraformStack(app, 'agents'), 'agentplatform', { providerRelease: release.dir, providerPlatforms });
      app.synth();
      return join(app.outdir, 'stacks', 'agents');
    };
    const fromSources = synthRelease(sources, ['darwin_arm64', 'windows_amd64']);
    const fromPackage = synthRelease(compiled, ['darwin_arm64', 'windows_amd64']);
    const packed = (dir: string): string[] => readdirSync(join(dir, 'terraform.d', 'plugins', ...PROVIDER_ADDRESS.split('/'))).sort();
    expect(packed(fromPackage)).toEqual([`${PROVIDER_EXECUTABLE_PREFIX}_${PROVIDER_VERSION}_darwin_arm64.zip`, `${PROVIDER_EXECUTABLE_PREFIX}_${PROVIDER_VERSION}_windows_amd64.zip`]);
    expect(packed(fromPackage)).toEqual(packed(fromSources));
    expect(read(fromPackage, '.terraform.lock.hcl')).toBe(read(fromSources, '.terraform.lock.hcl'));
    expect(read(fromPackage, '.terraform.lock.hcl')).toContain(release.archives.windows_amd64!.h1);
    expect(() => synthRelease(compiled, ['linux_arm64'])).toThrow(/providerPlatforms: .* has no zip for linux_arm64/);
  });
});
