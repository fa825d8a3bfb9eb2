/**
 * A base URL that does not serve the API (a path too many: the platform's router answers 404 `Not Found` to every
 * request) must not read as "every object deleted": through the real terraform, plan, apply and destroy (with or
 * without a refresh) stop with an error naming the URL setting, keep every object in the state and leave it on the
 * platform; the right URL then plans nothing, and a deployment that is really gone still reads as gone.
 */
import { startTestS3, type TestS3 } from '../tracing/support/s3';
import { ExportTestPlatform, bulkExport, diagnostics, flat } from './support/export-platform';
import { until, type DeploymentDir } from './support/deployment-platform';
import { providerConfig } from './support/terraform';

let lp: ExportTestPlatform;
let s3: TestS3;
let sessionId: string;

beforeAll(async () => {
  lp = await ExportTestPlatform.start();
  s3 = await startTestS3(['exports']);
  sessionId = await lp.seedRuns('wrong-url', ['2025-01-01T12:00:00Z']);
});

afterAll(async () => {
  await lp?.close();
  await s3?.close();
});

const ADDRESSES = ['agentplatform_deployment.agent', 'agentplatform_export_destination.bucket', 'agentplatform_bulk_export.daily'];

function configuration(): string {
  return `${providerConfig()}
variable "secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "agentplatform_deployment" "agent" {
  name              = "wrong-url-agent"
  source            = "external_docker"
  image_uri         = "registry.example.com/agent:1"
  wait_for_deployed = false
}

resource "agentplatform_export_destination" "bucket" {
  display_name = "wrong-url"
  bucket_name  = "exports"
  endpoint_url = "${s3.server.endpoint}"
  credentials = {
    access_key_id     = "${s3.credentials.access_key_id}"
    secret_access_key = var.secret
  }
  credentials_version = 1
}

${bulkExport('daily', { destination_id: 'agentplatform_export_destination.bucket.id', session_id: sessionId, start_time: '2040-01-01T00:00:00Z', interval_hours: 24 })}`;
}

/** The ids in state of every resource of the configuration. */
function idsInState(dir: DeploymentDir): unknown[] {
  return ADDRESSES.map((address) => dir.instance(address).attributes.id);
}

test('plan, apply and destroy at a URL that answers 404 to everything stop with an error and keep the state', async () => {
  const right = { AGENTPLATFORM_CONTROL_PLANE_URL: lp.platform.url, TF_VAR_secret: s3.credentials.secret_access_key };
  const wrong = { AGENTPLATFORM_CONTROL_PLANE_URL: `${lp.platform.url}/api`, AGENTPLATFORM_TRACING_URL: `${lp.platform.url}/api` };
  const dir = lp.terraform(right);
  dir.tf.write('main.tf', configuration());
  expect((await dir.init()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  const ids = idsInState(dir);

  // without a refresh, destroy goes straight to the deletes
  for (const command of [['plan'], ['apply', '-auto-approve'], ['destroy', '-auto-approve'], ['destroy', '-auto-approve', '-refresh=false']]) {
    const result = await dir.tf.run([...command, '-input=false', '-no-color'], wrong);
    expect([command[0], result.code]).toEqual([command[0], 1]);
    const controlPlane = diagnostics(result.stderr, 'Not found, and `control_plane_url` may not point at the control plane').map(flat);
    const tracing = diagnostics(result.stderr, 'Not found, and `tracing_url` may not point at the tracing API').map(flat);
    expect([controlPlane.length, tracing.length > 0]).toEqual([1, true]);
    expect(controlPlane[0]).toMatch(new RegExp(`(GET|DELETE) ${lp.platform.url}/api/v2/deployments/${ids[0]}: 404 Not Found`));
    expect(controlPlane[0]).toContain('Check `control_plane_url` in the provider block or the AGENTPLATFORM_CONTROL_PLANE_URL environment variable');
    expect(tracing[0]).toContain('Check `tracing_url` in the provider block or the AGENTPLATFORM_TRACING_URL environment variable');
    expect(idsInState(dir)).toEqual(ids);
  }
  expect((await lp.client.getExport(ids[2] as string)).status).not.toBe('Cancelled');

  expect((await dir.plan()).code).toBe(0);
  // gone for real: the same URL lists deployments, so the 404 is believed and the plan creates it again
  const deleted = ids[0] as string;
  const { ControlPlaneClient } = await import('../../lib/api/control-plane');
  const controlPlane = new ControlPlaneClient({ baseUrl: lp.platform.url, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey } });
  try {
    await controlPlane.deleteDeployment(deleted);
    expect(await until(async () => (await controlPlane.getDeployment(deleted).then(() => false, () => true)), 15_000)).toBe(true);
  } finally {
    await controlPlane.close();
  }
  const replanned = await dir.plan();
  expect(replanned.code).toBe(2);
  expect(replanned.stdout).toContain('agentplatform_deployment.agent will be created');
}, 120_000);
