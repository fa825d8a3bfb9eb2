/**
 * A create of `agentplatform_bulk_export` that gets no answer in `request_timeout`, through the real terraform: the
 * export the platform made all the same is found and taken into state, so no running schedule is left outside the
 * state and another apply makes none; when the platform has made none yet, the error says so and what to do.
 */
import type { BulkExport } from '../../lib/api/schemas/bulk-export';
import { startFaultProxy, type FaultProxy } from '../tracing/support/fault-proxy';
import { destinationOn, startTestS3, type TestS3 } from '../tracing/support/s3';
import { ExportTestPlatform, diagnostic, flat } from './support/export-platform';
import { providerConfig } from './support/terraform';

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
