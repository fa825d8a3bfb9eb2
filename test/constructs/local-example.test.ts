/**
 * `cdktf deploy` and `cdktf destroy` of `examples/local`, for real: the cdktf CLI, terraform, the provider installed
 * at synth, the local platform and the in-process S3 server, with no CLI configuration and no network.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkExportClient } from '../../lib/api/bulk-export';
import { ControlPlaneClient } from '../../lib/api/control-plane';
import { NotFoundError } from '../../lib/api/errors';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { startInProcessS3, type InProcessS3 } from '../../lib/local/s3';
import { PROVIDER_EXECUTABLE_PREFIX, PROVIDER_VERSION } from '../../lib/provider/constants';
import { LocalExampleProject, utcMidnight } from '../../scripts/demo';

jest.setTimeout(180_000);

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

describe('examples/local with cdktf', () => {
  const work = mkdtempSync(join(tmpdir(), 'cdktf-local-example-'));
  const secret = `s3-secret-${randomBytes(8).toString('hex')}`;
  let platform: LocalPlatform;
  let s3: InProcessS3;
  let controlPlane: ControlPlaneClient;
  let tracing: BulkExportClient;
  let project: LocalExampleProject;
  let projectId: string;

  beforeAll(async () => {
    platform = await startLocalPlatform({ dataDir: join(work, 'platform'), timings: { creatingMs: 20, queuedMs: 20, awaitingBuildMs: 20, buildingMs: 20, awaitingDeployMs: 20, deployingMs: 20, deleteDelayMs: 20 } });
    s3 = await startInProcessS3({ directory: join(work, 's3'), buckets: ['agent-traces'] });
    const auth = { kind: 'api-key' as const, apiKey: platform.devApiKey };
    controlPlane = new ControlPlaneClient({ baseUrl: platform.url, auth });
    tracing = new BulkExportClient({ baseUrl: platform.url, auth });
    projectId = (await tracing.createSession({ name: 'demo-agent' })).id;
    project = new LocalExampleProject(work, {
      platformUrl: platform.url,
      apiKey: platform.devApiKey,
      tracingProjectId: projectId,
      s3: { endpoint: s3.endpoint, bucket: 'agent-traces', accessKeyId: s3.accessKeyId, secretAccessKey: secret },
      exportStart: utcMidnight(new Date(Date.now() + 86_400_000)),
    });
  });

  afterAll(async () => {
    await Promise.all([controlPlane?.close(), tracing?.close()]);
    await s3?.close();
    await platform?.close();
    rmSync(work, { recursive: true, force: true });
  });

  let outputs: Record<string, string>;
  let deployOutput = '';

  test('cdktf deploy creates the deployment (DEPLOYED), the destination and the daily export', async () => {
    outputs = await project.deploy((line) => (deployOutput += `${line}\n`));

    const deployment = await controlPlane.getDeployment(outputs.deployment_id!);
    expect(deployment).toMatchObject({ name: 'demo-agent', source: 'github', latest_revision_id: outputs.deployed_revision_id });
    expect(outputs.revision_status).toBe('DEPLOYED');
    expect((await controlPlane.getRevision(deployment.id, deployment.latest_revision_id!)).status).toBe('DEPLOYED');
    expect(outputs.url).toBe(deployment.url);
    expect(outputs.first_sandbox_template).toBe((await controlPlane.listSandboxTemplates())[0]!.name);

    const destination = await tracing.getDestination(outputs.destination_id!);
    expect(destination.config).toMatchObject({ bucket_name: 'agent-traces', prefix: 'agent-traces', endpoint_url: s3.endpoint });
    const schedule = await tracing.getExport(outputs.scheduled_export_id!);
    expect(schedule).toMatchObject({ session_id: projectId, interval_hours: 24, filter: 'eq(is_root, true)', bulk_export_destination_id: destination.id });
  });

  test('the provider came from the stack directory, and the S3 secret is nowhere on disk or in the output', () => {
    const stackDir = join(work, 'cdktf.out', 'stacks', 'local');
    const files = filesUnder(stackDir);
    expect(files.some((f) => f.endsWith(`${PROVIDER_EXECUTABLE_PREFIX}_v${PROVIDER_VERSION}`))).toBe(true);
    expect(existsSync(join(stackDir, '.terraform.lock.hcl'))).toBe(true);
    const written = [...files, ...filesUnder(work).filter((f) => f.endsWith('.tfstate'))];
    for (const file of written) expect(readFileSync(file).includes(secret)).toBe(false);
    expect(deployOutput).not.toContain(secret);
  });

  test('a second synth and plan find nothing to change', async () => {
    const diff = await project.run(['diff', '--no-color']);
    expect(diff.code).toBe(0);
    expect(diff.output).toMatch(/No changes/);
  });

  test('cdktf destroy removes the deployment, cancels the schedule and forgets the destination', async () => {
    const result = await project.destroy();
    expect(result.output).toMatch(/Destroy complete! Resources: 3 destroyed/);
    expect(result.output).toMatch(/removed from state only/);
    await expect(controlPlane.getDeployment(outputs.deployment_id!)).rejects.toBeInstanceOf(NotFoundError);
    expect((await tracing.getExport(outputs.scheduled_export_id!)).status).toBe('Cancelled');
  });
});
