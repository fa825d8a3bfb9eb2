/**
 * Plans that must say exactly what will happen, through the real terraform against the local platform (the in-process
 * S3 server as the bucket): an argument taken out of a deployment goes back to its default; a state without
 * `secret_names` (written before it existed) sends no secrets until `secrets_version` changes; keys of a destination
 * changed outside Terraform are sent again; a filter written with `\u` escapes is the same argument as the text an
 * earlier version of the constructs wrote; a null key inside `credentials` is refused at plan, on its field; a change
 * of Terraform's own settings of a bulk export shows no platform value as unknown; a workspace id that is no UUID is
 * refused before anything is sent (the schema's check of the block's `tenant_id` is the same function).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcessS3, type InProcessS3 } from '../../lib/local/s3';
import { TestPlatform, githubDeployment } from './support/deployment-platform';
import { ExportTestPlatform, diagnostic, flat } from './support/export-platform';

const BUCKET = 'traces';

describe('agentplatform_deployment arguments taken out', () => {
  let lp: TestPlatform;
  beforeAll(async () => (lp = await TestPlatform.start()));
  afterAll(() => lp.close());

  it('plans repo_ref and graph_config_path back to the platform defaults, and deploys them', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('defaults');
    dir.configure(githubDeployment('agent', { name, repo_ref: 'dev', graph_config_path: 'graphs/g.json' }));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const id = dir.instance('agentplatform_deployment.agent').attributes.id as string;

    dir.configure(githubDeployment('agent', { name }));
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/repo_ref\s+= "dev" -> "main"/);
    expect(plan.stdout).toMatch(/graph_config_path\s+= "graphs\/g\.json" -> "langgraph\.json"/);
    expect(flat(diagnostic(plan.stdout + plan.stderr, 'repo_ref goes back to its default'))).toContain('To keep "dev", write it in the configuration.');
    expect((await dir.apply()).code).toBe(0);
    const deployment = await lp.client.getDeployment(id);
    const revision = await lp.client.getRevision(id, deployment.latest_revision_id!);
    expect(revision.source_revision_config).toMatchObject({ repo_ref: 'main', graph_config_path: 'langgraph.json' });
    expect((await dir.plan()).code).toBe(0);
  });

  it('a state written before secret_names existed plans no change without a refresh, and sends no secrets', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('names');
    dir.configure(githubDeployment('agent', { name, secrets_version: 1 }, '  secrets = { OPENAI_API_KEY = "sk-first" }\n'));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const state = JSON.parse(dir.stateText()) as { resources: { instances: { attributes: Record<string, unknown> }[] }[] };
    delete state.resources[0]!.instances[0]!.attributes.secret_names;
    dir.tf.write('terraform.tfstate', JSON.stringify(state));

    const unrefreshed = await dir.plan('-refresh=false');
    expect([unrefreshed.code, unrefreshed.stderr]).toEqual([0, '']);
    const sent = lp.requests.filter((line) => line.startsWith('PATCH ')).length;
    expect((await dir.apply('-refresh=false')).code).toBe(0);
    expect(lp.requests.filter((line) => line.startsWith('PATCH ')).length).toBe(sent);
    // a refresh reads the names
    expect((await dir.plan()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    expect(dir.instance('agentplatform_deployment.agent').attributes.secret_names).toEqual(['OPENAI_API_KEY']);
  });

  it('warns at plan of a workspace id that is no UUID (the spec does not type it), and the local platform refuses it', async () => {
    const dir = lp.terraform({ AGENTPLATFORM_TENANT_ID: 'not-a-uuid' });
    dir.configure(githubDeployment('agent', { name: lp.uniqueName('tenant') }));
    expect((await dir.init()).code).toBe(0);
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(flat(diagnostic(plan.stdout, 'Unusual AGENTPLATFORM_TENANT_ID'))).toContain('"not-a-uuid" is not a UUID');
    expect(flat(diagnostic(plan.stdout, 'Unusual AGENTPLATFORM_TENANT_ID'))).toContain('the platform may refuse it.');
    expect((await dir.apply()).code).toBe(1);
    expect((await lp.client.listDeployments({ nameContains: 'tenant' })).resources).toEqual([]);
  });
});

describe('export resources against the in-process S3 server', () => {
  let lp: ExportTestPlatform;
  let s3: InProcessS3;
  let s3Dir: string;
  beforeAll(async () => {
    s3Dir = mkdtempSync(join(tmpdir(), 'plan-drift-s3-'));
    s3 = await startInProcessS3({ directory: s3Dir, buckets: [BUCKET] });
    lp = await ExportTestPlatform.start();
  });
  afterAll(async () => {
    await lp?.close();
    await s3?.close();
    rmSync(s3Dir, { recursive: true, force: true });
  });

  const destination = (keyId: string, extra = '', version = 1): string => `variable "key_id" {
  type      = string
  default   = ${keyId}
  ephemeral = true
}

resource "agentplatform_export_destination" "d" {
  display_name        = "drift"
  bucket_name         = "${BUCKET}"
  endpoint_url        = "${s3.endpoint}"
  credentials         = { access_key_id = var.key_id, secret_access_key = "S3RVER" }
  credentials_version = ${version}
}
${extra}`;

  it('refuses a null key inside credentials at plan, naming it', async () => {
    const dir = lp.terraform();
    dir.configure(destination('null'));
    expect((await dir.init()).code).toBe(0);
    const plan = await dir.plan();
    expect(plan.code).toBe(1);
    const block = diagnostic(plan.stderr, 'Missing credentials.access_key_id');
    expect(flat(block)).toContain('is required, and its value is null: give it a value (is its variable set?)');
    expect(lp.requests.filter((line) => line.startsWith('POST /api/v1/bulk-exports/destinations'))).toEqual([]);
  });

  it('sends the configured keys again when the platform holds other ones, changed outside Terraform', async () => {
    const dir = lp.terraform();
    dir.configure(destination('"S3RVER"'));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const id = dir.instance('agentplatform_export_destination.d').attributes.id as string;
    expect((await dir.plan()).code).toBe(0);

    await lp.client.rotateDestinationCredentials(id, { access_key_id: 'S3RVER', secret_access_key: 'S3RVER', session_token: 'out-of-band' });
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('agentplatform_export_destination.d will be updated in-place');
    expect(flat(plan.stdout + plan.stderr)).toContain('Warning: Export destination keys changed outside Terraform');
    expect(flat(plan.stdout + plan.stderr)).not.toContain('out-of-band');
    expect((await dir.apply()).code).toBe(0);
    expect((await lp.client.getDestination(id)).credentials_keys).toEqual(['access_key_id', 'secret_access_key']);
    expect((await dir.plan()).code).toBe(0);

    // a rotation whose key is null is refused at plan too (an update's write-only values are not checked with the rest)
    dir.configure(destination('null', '', 2));
    const rotation = await dir.plan();
    expect(rotation.code).toBe(1);
    expect(flat(diagnostic(rotation.stderr, 'Missing credentials.access_key_id'))).toContain('is required, and its value is null');
  });

  it('takes a credentials_version as large as the constructs make it of a key id (up to 2^32 - 1), and rotates on another', async () => {
    const dir = lp.terraform();
    dir.configure(destination('"S3RVER"', '', 4_294_967_295));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    expect(dir.instance('agentplatform_export_destination.d').attributes.credentials_version).toBe(4_294_967_295);
    expect((await dir.plan()).code).toBe(0);
    dir.configure(destination('"S3RVER"', '', 3_400_406_527));
    const rotation = await dir.plan();
    expect(rotation.code).toBe(2);
    expect(rotation.stdout).toContain('agentplatform_export_destination.d will be updated in-place');
  });

  it('warns that a destination keeps its keys when its configuration gives none and there is no version to change', async () => {
    const dir = lp.terraform();
    const config = (credentials: string): string => `
resource "agentplatform_export_destination" "d" {
  display_name = "drift"
  bucket_name  = "${BUCKET}"
  endpoint_url = "${s3.endpoint}"
  ${credentials}
}
`;
    dir.configure(config('credentials = { access_key_id = "S3RVER", secret_access_key = "S3RVER" }'));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const id = dir.instance('agentplatform_export_destination.d').attributes.id as string;
    dir.configure(config(''));
    const kept = await dir.plan();
    expect(kept.code).toBe(0);
    expect(flat(diagnostic(kept.stdout + kept.stderr, 'Export destination keeps its keys'))).toContain(
      'the platform holds the credential fields access_key_id, secret_access_key for this destination and keeps using them',
    );
    expect((await lp.client.getDestination(id)).credentials_keys).toEqual(['access_key_id', 'secret_access_key']);
    // with a version, taking both out replaces the destination, and the warning has nothing to say
    dir.configure(destination('"S3RVER"'));
    expect((await dir.apply()).code).toBe(0);
    dir.configure(config(''));
    const replaced = await dir.plan();
    expect(replaced.code).toBe(2);
    expect(replaced.stdout).toContain('agentplatform_export_destination.d must be replaced');
    expect(replaced.stdout + replaced.stderr).not.toContain('Export destination keeps its keys');
  });

  it('warns of a new destination with neither region nor endpoint_url, and names the workspace setting when an import finds nothing', async () => {
    const dir = lp.terraform();
    dir.configure(`
resource "agentplatform_export_destination" "aws" {
  display_name = "no-region"
  bucket_name  = "${BUCKET}"
}
`);
    expect((await dir.init()).code).toBe(0);
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(flat(diagnostic(plan.stdout + plan.stderr, 'Export destination without region'))).toContain(
      'Neither `region` nor `endpoint_url` is set: the platform writes to Amazon S3 with requests signed for us-east-1',
    );
    const missing = randomUUID();
    const imported = await dir.tf.run(['import', '-input=false', '-no-color', 'agentplatform_export_destination.aws', missing]);
    expect(imported.code).toBe(1);
    expect(flat(diagnostic(imported.stderr, 'Cannot import export destination'))).toContain(
      `There is no export destination ${missing} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`,
    );
  });

  it('takes a filter written as the constructs write it now (\\u escapes) as the one an earlier version wrote: changed in place', async () => {
    const projectId = await lp.seedRuns('plan-drift-filter', ['2025-01-01T00:00:00Z']);
    const dir = lp.terraform();
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const schedule = (filter: string): string => `
resource "agentplatform_bulk_export" "daily" {
  destination_id = agentplatform_export_destination.d.id
  session_id     = "${projectId}"
  start_time     = "${start}"
  interval_hours = 24
  filter         = ${JSON.stringify(filter).replace(/\$\{/g, () => '$${')}
}
`;
    // as an earlier version of the constructs wrote it: "${" as text, and a decomposed character (Terraform makes it NFC)
    dir.configure(destination('"S3RVER"', schedule('eq(name, "${x} Cafe\u0301")')));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const id = dir.instance('agentplatform_bulk_export.daily').attributes.id as string;
    expect((await lp.client.getExport(id)).filter).toBe('eq(name, "${x} Caf\u00e9")');

    const escaped = String.raw`eq(name, "\u0024{x} Cafe\u0301")`;
    dir.configure(destination('"S3RVER"', schedule(escaped)));
    const plan = await dir.plan();
    expect(plan.stdout).toContain('# agentplatform_bulk_export.daily will be updated in-place');
    expect(plan.stdout).not.toContain('must be replaced');
    expect((await dir.apply()).code).toBe(0);
    expect(dir.instance('agentplatform_bulk_export.daily').attributes).toMatchObject({ id, filter: escaped });
    expect((await dir.plan()).code).toBe(0);
    expect((await lp.client.listExports()).filter((e) => e.session_id === projectId).map((e) => e.id)).toEqual([id]);
    expect((await dir.destroy()).code).toBe(0);
  });

  it("changes a schedule's Terraform settings in place without showing the platform's values as unknown", async () => {
    const projectId = await lp.seedRuns('plan-drift', ['2025-01-01T00:00:00Z']);
    const dir = lp.terraform();
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const schedule = (cancelSpawned: boolean): string => `
resource "agentplatform_bulk_export" "daily" {
  destination_id            = agentplatform_export_destination.d.id
  session_id                = "${projectId}"
  start_time                = "${start}"
  interval_hours            = 24
  cancel_spawned_on_destroy = ${cancelSpawned}
}
`;
    dir.configure(destination('"S3RVER"', schedule(false)));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const before = dir.instance('agentplatform_bulk_export.daily').attributes;
    expect(before.finished_at).toBeNull();

    dir.configure(destination('"S3RVER"', schedule(true)));
    const plan = await dir.plan();
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/cancel_spawned_on_destroy\s+= false -> true/);
    expect(plan.stdout).not.toContain('known after apply');
    expect((await dir.apply()).code).toBe(0);
    expect(dir.instance('agentplatform_bulk_export.daily').attributes).toMatchObject({ id: before.id, cancel_spawned_on_destroy: true, finished_at: null });
    expect((await dir.destroy()).code).toBe(0);
  });
});
