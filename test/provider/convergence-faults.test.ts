/**
 * Convergence through an unreliable network, with the real terraform: a chaos proxy (seeded: requests refused with 503
 * and `Retry-After`, answered 502 or reset after the platform acted on them, delayed) stands between the provider
 * and the local platform, for a configuration of 12 deployments, 2 export destinations and 3 scheduled exports; once
 * more in front of a platform that ignores `Idempotency-Key`, where only the search within each apply can converge. For
 * each seed: at most 3 applies reach a clean apply; the platform then holds exactly what the configuration declares
 * (no duplicate, nothing that no state holds); the plan without faults is empty; destroy, through the same faults,
 * leaves no deployment and no live export (destinations stay: the platform cannot delete them, see
 * docs/resources/export_destination.md), and no second destination was ever made.
 */
import { BulkExportClient } from '../../lib/api/bulk-export';
import type { BulkExportRecord as BulkExport, DestinationRecord as Destination } from '../../lib/api/schemas/bulk-export';
import type { Deployment } from '../../lib/api/schemas/control-plane';
import { startTestS3, type TestS3 } from '../tracing/support/s3';
import { localBulkExport, type LocalBulkExportClient } from '../support/complete-answers';
import { startChaosProxy, type ChaosProxy } from './support/chaos-proxy';
import { TestPlatform, type DeploymentDir } from './support/deployment-platform';
import { providerConfig, type TerraformResult } from './support/terraform';

/** Seeds of the faults, the last in front of a platform that ignores `Idempotency-Key` (as the real one may). */
const CASES = [
  { seed: 11, stripIdempotencyKey: false },
  { seed: 23, stripIdempotencyKey: false },
  { seed: 47, stripIdempotencyKey: false },
  { seed: 71, stripIdempotencyKey: true },
];
const DEPLOYMENTS = 12;
const DESTINATIONS = 2;
const EXPORTS = 3;
/** Applies (and destroys) allowed to get through the faults. */
const ATTEMPTS = 3;

let lp: TestPlatform;
let s3: TestS3;
let tracing: LocalBulkExportClient;
let sessionId: string;

beforeAll(async () => {
  lp = await TestPlatform.start();
  s3 = await startTestS3(['exports']);
  tracing = localBulkExport(new BulkExportClient({ baseUrl: lp.platform.url, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey } }));
  sessionId = (await tracing.createSession({ name: 'convergence' })).id;
});

afterAll(async () => {
  await tracing?.close();
  await lp?.close();
  await s3?.close();
});

/** The configuration of one seed: every name carries `prefix`, so that seeds share the platform apart. */
function configuration(prefix: string): string {
  const deployments = Array.from({ length: DEPLOYMENTS }, (_, i) => `
resource "agentplatform_deployment" "d${i}" {
  name     = "${prefix}-d${i}"
  source   = "github"
  repo_url = "https://github.com/acme/agent-${i}"
}`);
  const destinations = Array.from({ length: DESTINATIONS }, (_, i) => `
resource "agentplatform_export_destination" "s${i}" {
  display_name = "${prefix}-s${i}"
  bucket_name  = "exports"
  prefix       = "${prefix}/s${i}"
  endpoint_url = "${s3.server.endpoint}"
  credentials = {
    access_key_id     = "${s3.credentials.access_key_id}"
    secret_access_key = var.secret
  }
  credentials_version = 1
}`);
  const exports = Array.from({ length: EXPORTS }, (_, i) => `
resource "agentplatform_bulk_export" "e${i}" {
  destination_id            = agentplatform_export_destination.s${i % DESTINATIONS}.id
  session_id                = "${sessionId}"
  start_time                = "2031-0${i + 1}-01T00:00:00Z"
  interval_hours            = ${6 * (i + 1)}
  cancel_spawned_on_destroy = true
}`);
  // as a user on a network this bad would: more retries than the default 3 for the requests that may be retried
  return `${providerConfig('  request_timeout = "5s"\n  max_retries = 6')}
variable "secret" {
  type      = string
  sensitive = true
  ephemeral = true
}
${[...deployments, ...destinations, ...exports].join('\n')}
`;
}

/** Runs `command` until it succeeds, at most {@link ATTEMPTS} times; the last result (its errors, when it failed). */
async function untilClean(command: () => Promise<TerraformResult>): Promise<{ code: number | null; errors: string }> {
  let last: TerraformResult | undefined;
  for (let attempt = 0; attempt < ATTEMPTS && last?.code !== 0; attempt++) last = await command();
  return { code: last!.code, errors: last!.code === 0 ? '' : last!.stderr };
}

/** The ids of every instance of `type` in the state. */
function stateIds(dir: DeploymentDir, type: string): string[] {
  const state = JSON.parse(dir.stateText()) as { resources: { type: string; instances: { attributes: { id: string } }[] }[] };
  return state.resources.filter((r) => r.type === type).flatMap((r) => r.instances.map((instance) => instance.attributes.id)).sort();
}

/**
 * What the platform holds of one seed's configuration: deployments by name, destinations, top-level exports (every
 * one, and the live ones: not cancelled).
 */
async function held(prefix: string): Promise<{ deployments: Deployment[]; destinations: Destination[]; everyExport: BulkExport[]; exports: BulkExport[] }> {
  const deployments = (await lp.client.listDeployments({ nameContains: prefix, limit: 100 })).resources;
  const destinations = (await tracing.listDestinations()).filter((d) => d.display_name.startsWith(`${prefix}-`));
  const ids = new Set(destinations.map((d) => d.id));
  const everyExport = (await tracing.listExports()).filter((e) => ids.has(e.bulk_export_destination_id) && e.source_bulk_export_id === null);
  return { deployments, destinations, everyExport, exports: everyExport.filter((e) => e.status !== 'Cancelled') };
}

const sortedIds = (objects: readonly { id: string }[]): string[] => objects.map((o) => o.id).sort();

describe.each(CASES)('through faults of seed $seed (Idempotency-Key stripped: $stripIdempotencyKey)', ({ seed, stripIdempotencyKey }) => {
  const prefix = `chaos-${seed}`;
  let proxy: ChaosProxy;
  let dir: DeploymentDir;

  beforeAll(async () => {
    // four requests in ten meet a fault, one in five is delayed
    proxy = await startChaosProxy(lp.platform.url, { seed, refused: 0.1, badGateway: 0.15, reset: 0.15, delayed: 0.2, stripIdempotencyKey });
    dir = lp.terraform({
      AGENTPLATFORM_CONTROL_PLANE_URL: proxy.endpoint,
      AGENTPLATFORM_TRACING_URL: proxy.endpoint,
      TF_VAR_secret: s3.credentials.secret_access_key,
    });
    dir.tf.write('main.tf', configuration(prefix));
    expect((await dir.init()).code).toBe(0);
  });

  afterAll(async () => {
    await proxy?.close();
  });

  test('at most 3 applies converge, and the platform holds exactly what the configuration declares', async () => {
    expect(await untilClean(() => dir.apply())).toEqual({ code: 0, errors: '' });
    // the faults did happen: requests were refused, and answers lost after the platform acted
    expect(proxy.fates.refused + proxy.fates['bad-gateway'] + proxy.fates.reset).toBeGreaterThan(0);
    const { deployments, destinations, everyExport, exports } = await held(prefix);
    expect(deployments.map((d) => d.name).sort()).toEqual(Array.from({ length: DEPLOYMENTS }, (_, i) => `${prefix}-d${i}`).sort());
    expect(deployments.filter((d) => d.status === 'AWAITING_DELETE')).toEqual([]);
    expect(sortedIds(deployments)).toEqual(stateIds(dir, 'agentplatform_deployment'));
    expect(sortedIds(destinations)).toEqual(stateIds(dir, 'agentplatform_export_destination'));
    expect(destinations).toHaveLength(DESTINATIONS);
    expect(sortedIds(exports)).toEqual(stateIds(dir, 'agentplatform_bulk_export'));
    // none made twice, none replaced
    expect(everyExport).toHaveLength(EXPORTS);
    proxy.faults = false;
    try {
      const plan = await dir.plan();
      expect([plan.code, plan.stderr]).toEqual([0, '']);
    } finally {
      proxy.faults = true;
    }
  }, 600_000);

  test('destroy through the faults leaves no deployment and no live export, and no second destination', async () => {
    expect(await untilClean(() => dir.destroy())).toEqual({ code: 0, errors: '' });
    const { deployments, destinations, exports } = await held(prefix);
    expect(deployments).toEqual([]);
    expect(exports).toEqual([]);
    expect(destinations).toHaveLength(DESTINATIONS);
  }, 600_000);
});
