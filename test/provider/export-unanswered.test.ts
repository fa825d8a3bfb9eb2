/**
 * Creates whose outcome the platform does not tell, through the real terraform: an `agentplatform_bulk_export` create
 * that gets no answer in `request_timeout`, whose connection drops once it was sent, that a gateway answers 502, or
 * whose 201 comes cut short: the export the platform made all the same is found and taken into state, so no running
 * schedule is left outside the state and another apply makes none; when the platform has made none yet, the error
 * says so and what to do, and Ctrl-C ends that search within seconds. An `agentplatform_export_destination` create
 * whose answer is lost is taken into state the same way, never an older one of the same settings. When nothing tells
 * within `timeouts.create`, the next apply's create, under the same `Idempotency-Key`, adopts what the first made.
 */
import type { BulkExport } from '../../lib/api/schemas/bulk-export';
import { startFaultProxy, type FaultProxy, type ProxyMode } from '../tracing/support/fault-proxy';
import { destinationOn, startTestS3, type TestS3 } from '../tracing/support/s3';
import { ExportTestPlatform, diagnostic, flat } from './support/export-platform';
import { collect, providerConfig } from './support/terraform';

let lp: ExportTestPlatform;
let s3: TestS3;
let proxy: FaultProxy;
let destinationId: string;
let sessionId: string;

beforeAll(async () => {
  lp = await ExportTestPlatform.start();
  s3 = await startTestS3(['exports']);
  proxy = await startFaultProxy(lp.platform.url);
  destinationId = (await lp.client.createDestination(destinationOn(s3, 'unanswered'))).id;
  sessionId = await lp.seedRuns('unanswered', ['2025-01-01T12:00:00Z']);
});

afterAll(async () => {
  await proxy?.close();
  await lp?.close();
  await s3?.close();
});

/** A configuration of one scheduled export through the proxy, with a 2 s request timeout. */
function scheduled(startTime: string): string {
  return `${providerConfig('  request_timeout = "2s"')}
resource "agentplatform_bulk_export" "daily" {
  destination_id = "${destinationId}"
  session_id     = "${sessionId}"
  start_time     = "${startTime}"
  interval_hours = 24
}
`;
}

const schedulesFrom = async (startTime: string): Promise<BulkExport[]> =>
  (await lp.client.listExports()).filter((e) => e.source_bulk_export_id === null && Date.parse(e.start_time) === Date.parse(startTime));

test('the export a create without answer made is taken into state, and the next plan has nothing to do', async () => {
  const startTime = '2030-01-01T00:00:00Z';
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.tf.write('main.tf', scheduled(startTime));
  expect((await dir.init()).code).toBe(0);
  // an export of the very same settings made earlier (such as one this resource replaces) is not the one
  const earlier = await lp.client.createExport({ bulk_export_destination_id: destinationId, session_id: sessionId, start_time: startTime, interval_hours: 24 });
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  // the platform creates the export, and its answer waits in the proxy beyond request_timeout
  proxy.setMode('hold-responses', '/api/v1/bulk-exports', 'POST');
  try {
    const applied = await dir.apply();
    expect([applied.code, applied.stderr]).toEqual([0, expect.any(String)]);
    const warning = flat(diagnostic(applied.stdout + applied.stderr, 'The platform did not answer the create of the bulk export'));
    const [made, ...more] = (await schedulesFrom(startTime)).filter((e) => e.id !== earlier.id);
    expect(more).toEqual([]);
    expect(warning).toContain(`It had created export ${made!.id} with exactly these settings: it is kept in state.`);
    expect(dir.instance('agentplatform_bulk_export.daily').attributes).toMatchObject({ id: made!.id, status: made!.status });
  } finally {
    proxy.setMode('pass');
    proxy.release();
  }
  expect((await dir.plan()).code).toBe(0);
  expect(await schedulesFrom(startTime)).toHaveLength(2);
});

test('a create the platform has not acted on yet is an error that says it may still appear, and how to find and cancel it', async () => {
  const startTime = '2031-01-01T00:00:00Z';
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.tf.write('main.tf', scheduled(startTime));
  expect((await dir.init()).code).toBe(0);
  proxy.setMode('hold-requests', '/api/v1/bulk-exports', 'POST');
  try {
    const applied = await dir.apply();
    expect(applied.code).toBe(1);
    const error = flat(diagnostic(applied.stderr, 'The platform did not answer the create of the bulk export'));
    expect(error).toContain('It may have created the export all the same; none with these settings is listed yet.');
    expect(error).toContain('{"status": "Cancelled"}');
    expect(await schedulesFrom(startTime)).toEqual([]);
  } finally {
    proxy.dropHeld();
    proxy.setMode('pass');
  }
});

test.each<[ProxyMode, string, string]>([
  ['drop-responses', '2032-01-01T00:00:00Z', 'The platform did not answer the create of the bulk export'],
  ['bad-gateway-responses', '2033-01-01T00:00:00Z', 'The platform did not answer the create of the bulk export'],
  ['cut-responses', '2034-01-01T00:00:00Z', "The platform's answer to the create of the bulk export could not be read"],
])('the export of a create whose answer is lost (%s) is taken into state, and no second one is made', async (mode, startTime, summary) => {
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.tf.write('main.tf', scheduled(startTime));
  expect((await dir.init()).code).toBe(0);
  // the platform creates the export; its answer is lost, or spoilt, on the way back
  proxy.setMode(mode, '/api/v1/bulk-exports', 'POST');
  try {
    const applied = await dir.apply();
    expect([applied.code, applied.stderr]).toEqual([0, expect.any(String)]);
    const [made, ...more] = await schedulesFrom(startTime);
    expect(more).toEqual([]);
    expect(flat(diagnostic(applied.stdout + applied.stderr, summary))).toContain(`It had created export ${made!.id} with exactly these settings: it is kept in state.`);
    expect(dir.instance('agentplatform_bulk_export.daily').attributes).toMatchObject({ id: made!.id });
  } finally {
    proxy.setMode('pass');
  }
  expect((await dir.plan()).code).toBe(0);
  expect(await schedulesFrom(startTime)).toHaveLength(1);
});

test('Ctrl-C during a create that gets no answer ends the search for its export within seconds', async () => {
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.tf.write('main.tf', scheduled('2035-01-01T00:00:00Z').replace('request_timeout = "2s"', 'request_timeout = "30s"'));
  expect((await dir.init()).code).toBe(0);
  expect((await dir.tf.run(['plan', '-input=false', '-no-color', '-out=tfplan'])).code).toBe(0);
  // the create and the list of exports that looks for it both wait in the proxy, unanswered
  proxy.setMode('hold-requests', '/api/v1/bulk-exports');
  try {
    const child = dir.tf.start(['apply', '-input=false', '-no-color', 'tfplan']);
    const done = collect(child);
    for (let i = 0; i < 400 && proxy.held === 0; i++) await new Promise((wait) => setTimeout(wait, 50));
    expect(proxy.held).toBe(1);
    // Ctrl-C in a terminal signals the whole process group
    process.kill(-child.pid!, 'SIGINT');
    const interrupted = Date.now();
    const result = await done;
    // a bound for a hang, not a measure: the lookup has seconds once terraform stops, the 30 s request timeout otherwise
    expect(Date.now() - interrupted).toBeLessThan(25_000);
    // the create and one list, still waiting when the seconds after the stop ran out
    expect(proxy.held).toBe(2);
    expect(result.code).toBe(1);
    expect(flat(diagnostic(result.stderr, 'The platform did not answer the create of the bulk export'))).toContain(
      'request aborted by the caller. It may have created the export all the same; the exports could not be listed (',
    );
  } finally {
    proxy.dropHeld();
    proxy.setMode('pass');
  }
}, 90_000);

test('the destination of a create whose answer is lost is taken into state, never an older one of the same settings', async () => {
  const settings = { display_name: 'lost-answer', config: { bucket_name: 'exports', prefix: 'lost', endpoint_url: s3.server.endpoint }, credentials: s3.credentials };
  const older = await lp.client.createDestination(settings);
  // made well before the request (the platform's time is known to the second)
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint, TF_VAR_secret: s3.credentials.secret_access_key });
  dir.tf.write(
    'main.tf',
    `${providerConfig()}
variable "secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "agentplatform_export_destination" "lost" {
  display_name = "${settings.display_name}"
  bucket_name  = "exports"
  prefix       = "lost"
  endpoint_url = "${s3.server.endpoint}"
  credentials = {
    access_key_id     = "${s3.credentials.access_key_id}"
    secret_access_key = var.secret
  }
  credentials_version = 1
}
`,
  );
  expect((await dir.init()).code).toBe(0);
  proxy.setMode('drop-responses', '/api/v1/bulk-exports/destinations', 'POST');
  try {
    const applied = await dir.apply();
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    const [made, ...more] = (await lp.client.listDestinations()).filter((d) => d.display_name === settings.display_name && d.id !== older.id);
    expect(more).toEqual([]);
    const warning = flat(diagnostic(applied.stdout, 'The platform did not answer the create of export destination "lost-answer"'));
    expect(warning).toContain(`It had created destination ${made!.id} with this name, bucket and prefix: it is kept in state.`);
    expect(warning).not.toContain(s3.credentials.secret_access_key);
    expect(dir.instance('agentplatform_export_destination.lost').attributes).toMatchObject({ id: made!.id });
  } finally {
    proxy.setMode('pass');
  }
  expect((await dir.plan()).code).toBe(0);
});

test('a create that nothing answers within timeouts.create fails, and the next apply adopts what it made', async () => {
  const startTime = '2036-01-01T00:00:00Z';
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.tf.write('main.tf', scheduled(startTime).replace('  interval_hours = 24\n', '  interval_hours = 24\n  timeouts = { create = "3s" }\n'));
  expect((await dir.init()).code).toBe(0);
  // the platform creates the export, and every answer about exports is lost: the create's and the look-ups'
  proxy.setMode('drop-responses', '/api/v1/bulk-exports');
  let failed;
  try {
    failed = await dir.apply();
  } finally {
    proxy.setMode('pass');
  }
  expect(failed.code).toBe(1);
  const error = flat(diagnostic(failed.stderr, 'The platform did not answer the create of the bulk export'));
  expect(error).toContain('the exports could not be listed (');
  expect(error).toContain('Applying again sends the same create, with the same `Idempotency-Key`');
  const [made, ...more] = await schedulesFrom(startTime);
  expect(more).toEqual([]);
  const applied = await dir.apply();
  expect([applied.code, applied.stderr]).toEqual([0, '']);
  expect(dir.instance('agentplatform_bulk_export.daily').attributes).toMatchObject({ id: made!.id });
  expect(await schedulesFrom(startTime)).toHaveLength(1);
  expect((await dir.plan()).code).toBe(0);
});
