/**
 * The provider reads the platform tolerantly: through a proxy that reshapes every answer of the local platform (fields
 * it does not know in every object, statuses and a deployment type it does not know, optional fields left out, URLs
 * with a trailing slash, numbers as strings, instants in another notation, lists reversed), a deployment, an export
 * destination and a one-off bulk export go through create → empty plan → update → import → destroy with the real
 * terraform, and no apply ends in "inconsistent result".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkExportClient } from '../../lib/api/bulk-export';
import { ControlPlaneClient } from '../../lib/api/control-plane';
import type { RunCreate } from '../../lib/api/schemas/tracing';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { startTestS3, type TestS3 } from '../tracing/support/s3';
import { DeploymentDir } from './support/deployment-platform';
import { UNKNOWN_VALUES, startReshapingProxy, type ReshapingProxy } from './support/reshaping-proxy';
import { DIST_ENTRY, TerraformDir, providerConfig, type TerraformResult } from './support/terraform';

const BUCKET = 'exports';
const NAME = `reshaped-${process.pid}`;
/** Slow enough steps that the waits see revisions on their way (and the proxy renames those statuses). */
const TIMINGS = { creatingMs: 150, queuedMs: 150, awaitingBuildMs: 150, buildingMs: 150, awaitingDeployMs: 150, deployingMs: 150, deleteDelayMs: 200 };

let dataDir: string;
let platform: LocalPlatform;
let s3: TestS3;
let proxy: ReshapingProxy;
let tf: DeploymentDir;
let sessionId: string;
let controlPlane: ControlPlaneClient;

interface Settings {
  readonly repoRef: string;
  readonly credentialsVersion: number;
  readonly startTime: string;
  readonly secretsVersion: number;
}

function configuration(s: Settings): string {
  return `${providerConfig()}
resource "agentplatform_deployment" "agent" {
  name            = "${NAME}"
  source          = "github"
  repo_url        = "https://github.com/acme/agent"
  repo_ref        = "${s.repoRef}"
  custom_url      = "https://agent.example.com/v1"
  resource_spec   = { min_scale = 1, max_scale = 2, cpu = 0.5, memory_mb = 512 }
  secrets         = { OPENAI_API_KEY = "sk-reshaped", ANTHROPIC_API_KEY = "sk-other" }
  secrets_version = ${s.secretsVersion}
}

resource "agentplatform_export_destination" "bucket" {
  display_name = "reshaped"
  bucket_name  = "${BUCKET}"
  prefix       = "reshaped"
  region       = "${s3.server.region}"
  endpoint_url = "${s3.server.endpoint}"
  credentials = {
    access_key_id     = "${s3.credentials.access_key_id}"
    secret_access_key = "${s3.credentials.secret_access_key}"
  }
  credentials_version = ${s.credentialsVersion}
}

resource "agentplatform_bulk_export" "runs" {
  destination_id      = agentplatform_export_destination.bucket.id
  session_id          = "${sessionId}"
  start_time          = "${s.startTime}"
  end_time            = "2025-03-03T00:00:00Z"
  export_fields       = ["id", "name", "run_type", "start_time"]
  wait_for_completion = true
}
`;
}

const FIRST: Settings = { repoRef: 'main', credentialsVersion: 1, startTime: '2025-03-01T00:00:00Z', secretsVersion: 1 };
const CHANGED: Settings = { repoRef: 'release', credentialsVersion: 2, startTime: '2025-03-01T00:00:00+00:00', secretsVersion: 1 };

/** Fails with terraform's output when a command did not end as expected. */
function expectCode(result: TerraformResult, code: number): void {
  if (result.code !== code) throw new Error(`terraform exited ${result.code}, expected ${code}\n${result.stdout}\n${result.stderr}`);
  expect(result.stdout + result.stderr).not.toContain('inconsistent result');
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'reshaped-platform-'));
  platform = await startLocalPlatform({ dataDir, port: 0, timings: TIMINGS });
  s3 = await startTestS3([BUCKET]);
  proxy = await startReshapingProxy(platform.url);
  controlPlane = new ControlPlaneClient({ baseUrl: platform.url, auth: { kind: 'api-key', apiKey: platform.devApiKey } });
  const tracing = new BulkExportClient({ baseUrl: platform.url, auth: { kind: 'api-key', apiKey: platform.devApiKey } });
  const runs: RunCreate[] = ['2025-03-01T10:00:00Z', '2025-03-02T10:00:00Z'].map((start, i) => ({
    name: `step-${i}`,
    run_type: 'chain',
    start_time: start,
    end_time: start.replace('10:00:00', '10:00:01'),
    session_name: 'reshaped-project',
    inputs: { question: `question ${i}` },
  }));
  await tracing.ingestRuns({ post: runs });
  sessionId = (await tracing.findSessionByName('reshaped-project'))!.id;
  await tracing.close();
  tf = new DeploymentDir(
    TerraformDir.create(DIST_ENTRY, {
      AGENTPLATFORM_CONTROL_PLANE_URL: proxy.url,
      AGENTPLATFORM_TRACING_URL: proxy.url,
      AGENTPLATFORM_API_KEY: platform.devApiKey,
    }),
  );
  tf.tf.write('main.tf', configuration(FIRST));
  expectCode(await tf.init(), 0);
}, 60_000);

afterAll(async () => {
  tf?.remove();
  await controlPlane?.close();
  await proxy?.close();
  await s3?.close();
  await platform?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const attributes = (address: string) => tf.instance(address).attributes;

test('create through reshaped answers: the state holds what was configured, and what the platform added', async () => {
  expectCode(await tf.apply(), 0);

  expect(attributes('agentplatform_deployment.agent')).toMatchObject({
    name: NAME,
    repo_url: 'https://github.com/acme/agent',
    custom_url: 'https://agent.example.com/v1',
    url: 'https://agent.example.com/v1',
    resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.5, memory_mb: 512 },
    secret_names: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'],
    revision_status: 'DEPLOYED',
    // a kind of deployment the provider does not know, kept as the platform named it
    deployment_type: UNKNOWN_VALUES.deploymentType!.prod,
  });
  expect(attributes('agentplatform_export_destination.bucket')).toMatchObject({ endpoint_url: s3.server.endpoint, prefix: 'reshaped' });
  expect(attributes('agentplatform_bulk_export.runs')).toMatchObject({
    start_time: FIRST.startTime,
    end_time: '2025-03-03T00:00:00Z',
    export_fields: ['id', 'name', 'run_type', 'start_time'],
    status: 'Completed',
  });
  // every rule reshaped something the provider read
  for (const [rule, count] of Object.entries(proxy.reshaped)) if (rule !== 'values') expect([rule, count]).not.toEqual([rule, 0]);
  const seen = [...proxy.reshaped.values];
  expect(seen).toEqual(expect.arrayContaining(['deployment_type=dev_free', 'destination_type=s3_compatible']));
  expect(seen.some((value) => Object.values(UNKNOWN_VALUES.deployment!).some((status) => value === `status=${status}`))).toBe(true);
  expect(seen.some((value) => Object.values(UNKNOWN_VALUES.revision!).some((status) => value === `status=${status}`))).toBe(true);
  expect(seen.some((value) => Object.values(UNKNOWN_VALUES.export!).some((status) => value === `status=${status}`))).toBe(true);

  expectCode(await tf.plan(), 0);
}, 180_000);

test('update through reshaped answers: a new revision, rotated credentials, an instant written otherwise', async () => {
  tf.tf.write('main.tf', configuration(CHANGED));
  const before = attributes('agentplatform_deployment.agent').latest_revision_id;

  expectCode(await tf.apply(), 0);

  expect(attributes('agentplatform_deployment.agent')).toMatchObject({ repo_ref: 'release', revision_status: 'DEPLOYED' });
  expect(attributes('agentplatform_deployment.agent').latest_revision_id).not.toBe(before);
  expect(attributes('agentplatform_export_destination.bucket')).toMatchObject({ credentials_version: 2 });
  expect(attributes('agentplatform_bulk_export.runs')).toMatchObject({ start_time: CHANGED.startTime });
  expectCode(await tf.plan(), 0);
}, 180_000);

test('import through reshaped answers, then an apply converges and the plan is empty', async () => {
  const ids = Object.fromEntries(
    ['agentplatform_deployment.agent', 'agentplatform_export_destination.bucket', 'agentplatform_bulk_export.runs'].map((address) => [address, attributes(address).id as string]),
  );
  for (const [address, id] of Object.entries(ids)) {
    expectCode(await tf.tf.run(['state', 'rm', '-no-color', address]), 0);
    const imported = await tf.tf.run(['import', '-input=false', '-no-color', address, id]);
    expectCode(imported, 0);
    expect(imported.stdout).toContain('Import successful!');
  }
  expect(attributes('agentplatform_deployment.agent')).toMatchObject({ name: NAME, repo_ref: 'release', deployment_type: 'dev_free' });

  // what only Terraform keeps (secrets_version, credentials_version) is set by one apply
  expectCode(await tf.apply(), 0);
  expectCode(await tf.plan(), 0);
  expect(Object.values(ids)).toEqual([
    attributes('agentplatform_deployment.agent').id,
    attributes('agentplatform_export_destination.bucket').id,
    attributes('agentplatform_bulk_export.runs').id,
  ]);
}, 240_000);

test('destroy through reshaped answers removes the deployment', async () => {
  const id = attributes('agentplatform_deployment.agent').id as string;

  expectCode(await tf.destroy(), 0);

  await expect(controlPlane.getDeployment(id)).rejects.toMatchObject({ status: 404 });
}, 120_000);
