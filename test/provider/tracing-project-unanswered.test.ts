/**
 * `agentplatform_tracing_project` creates whose outcome the platform does not tell, through the real terraform: the
 * connection closed once the request was sent, a gateway's 502, a 201 cut short. The project the platform made all
 * the same is found by its name and taken into state; the next plan has nothing to do, and no second project is made.
 * When no look-up is answered either, the apply fails, and the next one's create, under the same `Idempotency-Key`,
 * takes the project the first made.
 */
import { startFaultProxy, type FaultProxy, type ProxyMode } from '../tracing/support/fault-proxy';
import { ExportTestPlatform, diagnostic, flat } from './support/export-platform';

let lp: ExportTestPlatform;
let proxy: FaultProxy;

beforeAll(async () => {
  lp = await ExportTestPlatform.start();
  proxy = await startFaultProxy(lp.platform.url);
});

afterAll(async () => {
  await proxy?.close();
  await lp?.close();
});

test.each<[ProxyMode, string]>([
  ['drop-responses', 'The platform did not answer the create of tracing project'],
  ['bad-gateway-responses', 'The platform did not answer the create of tracing project'],
  ['cut-responses', "The platform's answer to the create of tracing project"],
])('a create answered by %s is found by its name and kept in state', async (mode, summary) => {
  const name = `unanswered-${mode}`;
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.configure(`resource "agentplatform_tracing_project" "p" {\n  name = "${name}"\n  metadata = { kind = "${mode}" }\n}\n`);
  expect((await dir.init()).code).toBe(0);
  proxy.setMode(mode, '/api/v1/sessions', 'POST');
  try {
    const applied = await dir.apply();
    expect([applied.code, applied.stderr]).toEqual([0, expect.any(String)]);
    const made = await lp.client.findSessionByName(name);
    expect(made).toMatchObject({ extra: { metadata: { kind: mode } } });
    const warning = flat(diagnostic(applied.stdout + applied.stderr, summary));
    expect(warning).toContain(`It had created project ${made!.id} with this name: it is kept in state.`);
    expect(dir.instance('agentplatform_tracing_project.p').attributes).toMatchObject({ id: made!.id, name });
  } finally {
    proxy.setMode('pass');
  }
  expect((await dir.plan()).code).toBe(0);
  expect((await lp.client.listSessions()).filter((s) => s.name === name)).toHaveLength(1);
}, 240_000);

test('when no look-up is answered either, the next apply\'s create, under the same key, takes the project the first made', async () => {
  const name = 'unanswered-twice';
  const dir = lp.terraform({ AGENTPLATFORM_TRACING_URL: proxy.endpoint });
  dir.configure(`resource "agentplatform_tracing_project" "p" {\n  name = "${name}"\n}\n`);
  expect((await dir.init()).code).toBe(0);
  // the create and every look-up reach the platform, and no answer comes back
  proxy.setMode('drop-responses', '/api/v1/sessions');
  let failed;
  try {
    failed = await dir.apply();
  } finally {
    proxy.setMode('pass');
  }
  expect(failed.code).toBe(1);
  expect(flat(diagnostic(failed.stderr, 'The platform did not answer the create of tracing project'))).toContain('The projects could not be listed');
  const made = await lp.client.findSessionByName(name);
  expect(made).toBeDefined();

  const again = await dir.apply();
  expect([again.code, again.stderr]).toEqual([0, '']);
  expect(dir.instance('agentplatform_tracing_project.p').attributes).toMatchObject({ id: made!.id });
  expect((await dir.plan()).code).toBe(0);
}, 240_000);
