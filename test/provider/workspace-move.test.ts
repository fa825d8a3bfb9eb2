/**
 * The workspace of each object in state, through the real terraform against the local platform: a deployment and an
 * export destination record the workspace they are in (`tenant_id`); when the provider is set to another workspace,
 * the plan replaces them there (the deployment deleted in its own workspace, nothing left running unknown to the
 * state) rather than reading them as deleted; with no workspace set, they stay where they are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneClient } from '../../lib/api/control-plane';
import { startInProcessS3, type InProcessS3 } from '../../lib/local/s3';
import { TestPlatform, githubDeployment } from './support/deployment-platform';
import { providerConfig } from './support/terraform';
import { diagnostic, flat } from './support/export-platform';

const BUCKET = 'traces';

let lp: TestPlatform;
let s3: InProcessS3;
let s3Dir: string;

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), 'workspace-move-s3-'));
  s3 = await startInProcessS3({ directory: s3Dir, buckets: [BUCKET] });
  lp = await TestPlatform.start();
});
afterAll(async () => {
  await lp?.close();
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const destination = `resource "agentplatform_export_destination" "d" {
  display_name        = "moving"
  bucket_name         = "${BUCKET}"
  endpoint_url        = "__ENDPOINT__"
  credentials         = { access_key_id = "S3RVER", secret_access_key = "S3RVER" }
  credentials_version = 1
}
`;

/** The deployments of `name` in a workspace, with their status. */
async function deploymentsIn(tenantId: string, name: string): Promise<{ id: string; status: string | undefined }[]> {
  const client = new ControlPlaneClient({ baseUrl: lp.platform.url, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey, tenantId } });
  try {
    const page = await client.listDeployments({ nameContains: name });
    return page.resources.filter((d) => d.name === name).map((d) => ({ id: d.id, status: d.status }));
  } finally {
    await client.transport.close();
  }
}

test('a change of the provider workspace replaces the objects there; with none set they stay where they are', async () => {
  const home = lp.platform.defaultTenantId;
  const staging = lp.platform.admin.createWorkspace(lp.platform.defaultOrganizationId, 'staging');
  const name = lp.uniqueName('moving');
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: lp.platform.url });
  dir.configure(githubDeployment('agent', { name }) + destination.replace('__ENDPOINT__', s3.endpoint));
  expect((await dir.init()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  const first = dir.instance('agentplatform_deployment.agent').attributes;
  expect(first.tenant_id).toBe(home);
  expect(dir.instance('agentplatform_export_destination.d').attributes.tenant_id).toBe(home);

  dir.tf.env.AGENTPLATFORM_TENANT_ID = staging.toUpperCase();
  const plan = await dir.plan();
  expect(plan.code).toBe(2);
  const output = plan.stdout + plan.stderr;
  expect(output).toMatch(new RegExp(`tenant_id\\s+= "${home}" -> "${staging}" # forces replacement`));
  expect(output).toContain('Plan: 2 to add, 0 to change, 2 to destroy.');
  expect(flat(diagnostic(output, 'The deployment moves to another workspace'))).toContain(`It is in workspace ${home}, and the provider is set to workspace ${staging}`);

  const apply = await dir.apply();
  expect(apply.code).toBe(0);
  const moved = dir.instance('agentplatform_deployment.agent').attributes;
  expect(moved.tenant_id).toBe(staging);
  expect(moved.id).not.toBe(first.id);
  // the one of the home workspace was deleted there (the destroy waits until it is gone), none is left unknown to the state
  expect(await deploymentsIn(home, name)).toEqual([]);
  expect(await deploymentsIn(staging, name)).toEqual([{ id: moved.id, status: 'READY' }]);
  expect(dir.instance('agentplatform_export_destination.d').attributes.tenant_id).toBe(staging);
  expect((await dir.plan()).code).toBe(0);

  // with no workspace set, each object is read, and stays, where it is
  delete dir.tf.env.AGENTPLATFORM_TENANT_ID;
  expect((await dir.plan()).code).toBe(0);
  expect((await dir.destroy()).code).toBe(0);
  expect(await deploymentsIn(staging, name)).toEqual([]);
});

test('a state written before tenant_id was kept is read in the provider workspace and gets it', async () => {
  const name = lp.uniqueName('older');
  const dir = lp.terraform();
  dir.configure(githubDeployment('agent', { name }));
  expect((await dir.init()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  // the state as an older provider wrote it: no tenant_id
  const state = JSON.parse(dir.stateText()) as { resources: { instances: { attributes: Record<string, unknown> }[] }[] };
  delete state.resources[0]!.instances[0]!.attributes.tenant_id;
  dir.tf.write('terraform.tfstate', JSON.stringify(state));

  expect((await dir.plan()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  expect(dir.instance('agentplatform_deployment.agent').attributes.tenant_id).toBe(lp.platform.defaultTenantId);
});

test('a provider tenant_id known only after apply: the plan of an object in state stops rather than guess whether it moves', async () => {
  const name = lp.uniqueName('unknown-ws');
  const dir = lp.terraform();
  dir.configure(githubDeployment('agent', { name }));
  expect((await dir.init()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  const workspaceFromResource = `resource "terraform_data" "ws" {\n  input = "${lp.platform.defaultTenantId}"\n}\n`;
  dir.tf.write('main.tf', `${providerConfig('  tenant_id = terraform_data.ws.output')}\n${workspaceFromResource}\n${githubDeployment('agent', { name })}`);

  const plan = await dir.plan('-refresh=false');

  expect(plan.code).toBe(1);
  expect(flat(diagnostic(plan.stderr, 'Provider tenant_id not known yet'))).toContain(
    `cannot tell whether this deployment stays in its workspace (${lp.platform.defaultTenantId}) or moves to another one`,
  );
});
