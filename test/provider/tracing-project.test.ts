/**
 * `agentplatform_tracing_project` (resource and data source) through the real terraform against the local platform:
 * create, an empty plan, a rename and changed description and metadata in place, import, destroy that deletes the
 * project; the data source by name, and its error for a name no project has; an export declared in the same apply as
 * its project, before any run is traced into it; a synthesized `ScheduledExport` given `TracingProject.fromName`.
 */
import { Testing, TerraformStack } from 'cdktf';
import { NotFoundError } from '../../lib/api/errors';
import { AgentPlatformProvider, Duration, ExportDestination, ScheduledExport, TracingProject } from '../../lib/constructs';
import { startTestS3, type TestS3 } from '../tracing/support/s3';
import type { DeploymentDir } from './support/deployment-platform';
import { ExportTestPlatform, bulkExport, diagnostic, flat } from './support/export-platform';

const TYPE = 'agentplatform_tracing_project';

/** A test of several terraform runs, each a few seconds on a loaded machine. */
const TERRAFORM_TEST_MS = 240_000;

let lp: ExportTestPlatform;
let s3: TestS3;

beforeAll(async () => {
  lp = await ExportTestPlatform.start();
  s3 = await startTestS3(['exports']);
});

afterAll(async () => {
  await lp?.close();
  await s3?.close();
});

function project(label: string, attributes: { name: string; description?: string; metadata?: Record<string, string> }): string {
  const lines = [`  name = ${JSON.stringify(attributes.name)}`];
  if (attributes.description !== undefined) lines.push(`  description = ${JSON.stringify(attributes.description)}`);
  if (attributes.metadata) lines.push(`  metadata = ${JSON.stringify(attributes.metadata).replace(/":/g, '" =')}`);
  return `resource "${TYPE}" "${label}" {\n${lines.join('\n')}\n}\n`;
}

async function applied(dir: DeploymentDir): Promise<void> {
  const result = await dir.apply();
  expect(result.stderr + result.stdout).toMatch(/Apply complete!/);
}

test('a project is created, planned unchanged, changed in place, imported and deleted by destroy', async () => {
  const dir = lp.terraform();
  dir.configure(project('p', { name: 'tf-lifecycle', description: 'first', metadata: { team: 'a', env: 'dev' } }));
  expect((await dir.init()).code).toBe(0);
  await applied(dir);
  const { id } = dir.instance(`${TYPE}.p`).attributes as { id: string };
  const made = await lp.client.getSession(id);
  expect(made).toMatchObject({ name: 'tf-lifecycle', description: 'first', extra: { metadata: { team: 'a', env: 'dev' } } });
  expect(dir.instance(`${TYPE}.p`).attributes).toMatchObject({ tenant_id: lp.platform.defaultTenantId, created_at: made.created_at });
  expect((await dir.plan()).code).toBe(0);

  // another client's key in extra stays when the metadata changes
  await lp.client.updateSession(id, { extra: { metadata: { team: 'a', env: 'dev' }, kept: 'by another client' } });
  dir.configure(project('p', { name: 'tf-lifecycle-renamed', metadata: { team: 'b' } }));
  const plan = await dir.plan();
  expect(plan.code).toBe(2);
  expect(plan.stdout).toMatch(/1 to change, 0 to destroy/);
  await applied(dir);
  expect(await lp.client.getSession(id)).toMatchObject({
    id,
    name: 'tf-lifecycle-renamed',
    description: null,
    extra: { metadata: { team: 'b' }, kept: 'by another client' },
  });
  expect((await dir.plan()).code).toBe(0);

  const fresh = lp.terraform();
  fresh.configure(project('q', { name: 'tf-lifecycle-renamed', metadata: { team: 'b' } }));
  expect((await fresh.init()).code).toBe(0);
  const imported = await fresh.tf.run(['import', '-input=false', '-no-color', `${TYPE}.q`, id.toUpperCase()]);
  expect(imported.code).toBe(0);
  expect(fresh.instance(`${TYPE}.q`).attributes).toMatchObject({ id, name: 'tf-lifecycle-renamed', metadata: { team: 'b' } });
  expect((await fresh.plan()).code).toBe(0);
  const missing = await fresh.tf.run(['import', '-input=false', '-no-color', `${TYPE}.q`, '00000000-0000-4000-8000-000000000000']);
  expect(missing.code).not.toBe(0);

  expect((await dir.destroy()).code).toBe(0);
  await expect(lp.client.getSession(id)).rejects.toBeInstanceOf(NotFoundError);
  // the other state's project is gone too: its next plan creates it anew
  expect(flat((await fresh.plan()).stdout)).toMatch(/1 to add, 0 to change, 0 to destroy/);
}, TERRAFORM_TEST_MS);

test('a name another project holds is refused with that project\'s id to import', async () => {
  const holder = await lp.client.createSession({ name: 'tf-taken' });
  const dir = lp.terraform();
  dir.configure(project('p', { name: 'tf-taken' }));
  expect((await dir.init()).code).toBe(0);
  const result = await dir.apply();
  expect(result.code).toBe(1);
  const error = flat(diagnostic(result.stderr, 'A tracing project named "tf-taken" already exists'));
  expect(error).toContain(holder.id);
  expect(error).toContain('terraform import');
});

test('the data source finds a project by name, and says how to create one it cannot find', async () => {
  const made = await lp.client.createSession({ name: 'tf-lookup', description: 'made elsewhere', extra: { metadata: { owner: 'agents', n: 3 } } });
  const dir = lp.terraform();
  dir.configure(`data "${TYPE}" "p" {\n  name = "tf-lookup"\n}\n\noutput "p" {\n  value = data.${TYPE}.p\n}\n`);
  expect((await dir.init()).code).toBe(0);
  await applied(dir);
  const output = JSON.parse((await dir.tf.run(['output', '-json', 'p'])).stdout) as Record<string, unknown>;
  expect(output).toEqual({ name: 'tf-lookup', id: made.id, description: 'made elsewhere', metadata: { owner: 'agents', n: '3' }, created_at: made.created_at });

  dir.configure(`data "${TYPE}" "p" {\n  name = "tf-nowhere"\n}\n`);
  const result = await dir.plan();
  expect(result.code).toBe(1);
  const error = flat(diagnostic(result.stderr, 'No tracing project named "tf-nowhere"'));
  expect(error).toContain('agentplatform_tracing_project');
}, TERRAFORM_TEST_MS);

test('an export is declared in the same apply as its project, before any run is traced into it', async () => {
  const dir = lp.terraform({ TF_VAR_key_id: s3.credentials.access_key_id, TF_VAR_secret: s3.credentials.secret_access_key });
  dir.configure(
    [
      'variable "key_id" {\n  type = string\n  ephemeral = true\n}\n',
      'variable "secret" {\n  type = string\n  sensitive = true\n  ephemeral = true\n}\n',
      `resource "agentplatform_export_destination" "d" {
  display_name = "project exports"
  bucket_name  = "exports"
  endpoint_url = "${s3.server.endpoint}"
  region       = "${s3.server.region}"
  credentials = {
    access_key_id     = var.key_id
    secret_access_key = var.secret
  }
  credentials_version = 1
}
`,
      project('p', { name: 'tf-exported' }),
      bulkExport('daily', {
        destination_id: 'agentplatform_export_destination.d.id',
        session_id: `${TYPE}.p.id`,
        start_time: new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
        interval_hours: 24,
      }),
    ].join('\n'),
  );
  expect((await dir.init()).code).toBe(0);
  await applied(dir);
  const { id } = dir.instance(`${TYPE}.p`).attributes as { id: string };
  const exportId = (dir.instance('agentplatform_bulk_export.daily').attributes as { id: string }).id;
  expect((await lp.client.getExport(exportId)).session_id).toBe(id);
  expect(await lp.client.findSessionByName('tf-exported')).toMatchObject({ id });
  expect((await dir.plan()).code).toBe(0);
  expect((await dir.destroy()).code).toBe(0);
  await expect(lp.client.getSession(id)).rejects.toBeInstanceOf(NotFoundError);
  expect((await lp.client.getExport(exportId)).status).toBe('Cancelled');
}, TERRAFORM_TEST_MS);

test('a synthesized ScheduledExport given TracingProject.fromName applies against the platform', async () => {
  const session = await lp.client.createSession({ name: 'cdk-traced' });
  const destination = await lp.client.createDestination({
    display_name: 'cdk exports',
    config: { bucket_name: 'exports', prefix: 'cdk', endpoint_url: s3.server.endpoint, region: s3.server.region },
    credentials: s3.credentials,
  });
  const stack = new TerraformStack(Testing.app(), 'cdk');
  new AgentPlatformProvider(stack, 'agentplatform');
  new ScheduledExport(stack, 'Daily', {
    destination: ExportDestination.fromDestinationId(stack, 'Destination', destination.id),
    tracingProject: TracingProject.fromName(stack, 'Project', 'cdk-traced'),
    start: new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    every: Duration.hours(24),
  });
  const dir = lp.terraform();
  dir.tf.write('main.tf.json', Testing.synth(stack));
  expect((await dir.init()).code).toBe(0);
  await applied(dir);
  const made = (await lp.client.listExports()).filter((e) => e.session_id === session.id);
  expect(made).toHaveLength(1);
  expect(made[0]).toMatchObject({ bulk_export_destination_id: destination.id, interval_hours: 24 });
  expect((await dir.plan()).code).toBe(0);
  expect((await dir.destroy()).code).toBe(0);
  expect((await lp.client.getExport(made[0]!.id)).status).toBe('Cancelled');
  expect(await lp.client.getSession(session.id)).toMatchObject({ name: 'cdk-traced' });
}, TERRAFORM_TEST_MS);
