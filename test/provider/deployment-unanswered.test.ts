/**
 * A create of `agentplatform_deployment` whose outcome the platform does not tell, through the real terraform: the
 * connection drops once the request was sent, a gateway answers 502, the 201 comes cut short, or the request never
 * arrives. The create is sent again under the same `Idempotency-Key`, which the local platform answers with the
 * deployment the first request made (or makes it then): that deployment is taken into state with a warning and waited
 * for, as a create that was answered; in front of a platform that ignores the key, the create sent again is refused on
 * the name, and the deployment of that name made since the first request is taken. One of that name made before the
 * request is not taken, and the error gives the command to import it. When no answer comes within `timeouts.create`,
 * the apply fails, and the next one adopts what the first made. None of these says to check `control_plane_url`.
 */
import type { Deployment } from '../../lib/api/schemas/control-plane';
import { startFaultProxy, type FaultProxy, type ProxyMode } from '../tracing/support/fault-proxy';
import { diagnostic, flat } from './support/export-platform';
import { TestPlatform, githubDeployment, type DeploymentDir } from './support/deployment-platform';
import { collect } from './support/terraform';
import { startChaosProxy } from './support/chaos-proxy';
import { isRequested } from '../../lib/provider/resources/deployment/find';

let lp: TestPlatform;
let proxy: FaultProxy;

beforeAll(async () => {
  lp = await TestPlatform.start();
  proxy = await startFaultProxy(lp.platform.url);
});

afterAll(async () => {
  await proxy?.close();
  await lp?.close();
});

/** A directory whose provider reaches the platform through the proxy, configured with one github deployment. */
async function throughProxy(name: string): Promise<DeploymentDir> {
  const dir = lp.terraform({ AGENTPLATFORM_CONTROL_PLANE_URL: proxy.endpoint });
  dir.configure(githubDeployment('agent', { name }));
  expect((await dir.init()).code).toBe(0);
  return dir;
}

const named = async (name: string): Promise<Deployment[]> =>
  (await lp.client.listDeployments({ nameContains: name, limit: 100 })).resources.filter((d) => d.name === name);

test.each<[ProxyMode, string]>([
  ['drop-responses', 'The platform did not answer the create of deployment'],
  ['bad-gateway-responses', 'The platform did not answer the create of deployment'],
  ['cut-responses', "The platform's answer to the create of deployment"],
])('the deployment of a create whose answer is lost (%s) is taken into state and waited for', async (mode, summary) => {
  const name = lp.uniqueName('lost');
  const dir = await throughProxy(name);
  // the answer of the first create only: the one sent again is answered
  proxy.setMode(mode, '/v2/deployments', 'POST', 1);
  let applied;
  try {
    applied = await dir.apply();
  } finally {
    proxy.setMode('pass');
  }
  expect([applied.code, applied.stderr]).toEqual([0, expect.any(String)]);
  const [made, ...more] = await named(name);
  expect(more).toEqual([]);
  const warning = flat(diagnostic(applied.stdout + applied.stderr, `${summary} "${name}"`));
  expect(warning).toContain(`Deployment ${made!.id} is the one this create made (learnt by sending it again under the same \`Idempotency-Key\`, or by its name): it is kept in state, and the create goes on.`);
  expect(warning).not.toContain('control_plane_url');
  expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ id: made!.id, revision_status: 'DEPLOYED' });
  expect((await dir.plan()).code).toBe(0);
});

test('a deployment of that name made before the request is not taken: the error gives the command to import it', async () => {
  const name = lp.uniqueName('taken');
  const existing = await lp.client.createDeployment({ name, source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
  // made well before the request (the platform's time is known to the second)
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const dir = await throughProxy(name);
  // the platform refuses the name (409), and that answer is lost; sent again, the create is refused the same way
  proxy.setMode('drop-responses', '/v2/deployments', 'POST', 1);
  let applied;
  try {
    applied = await dir.apply();
  } finally {
    proxy.setMode('pass');
  }
  expect(applied.code).toBe(1);
  const error = flat(diagnostic(applied.stderr, `The platform did not answer the create of deployment "${name}"`));
  expect(error).toContain(`A deployment named "${name}" exists (id ${existing.id}, created ${existing.created_at}), but it is not the one this request would have made`);
  expect(error).toContain(`terraform import agentplatform_deployment.<name> ${existing.id}`);
  expect(error).not.toContain('control_plane_url');
  expect(dir.stateText()).not.toContain('agentplatform_deployment');
});

test('a create that never reached the platform is sent again, and the deployment it makes is taken into state', async () => {
  const name = lp.uniqueName('unseen');
  const dir = await throughProxy(name);
  proxy.setMode('hold-requests', '/v2/deployments', 'POST', 1);
  try {
    const done = collect(dir.tf.start(['apply', '-auto-approve', '-input=false', '-no-color']));
    for (let i = 0; i < 400 && proxy.held === 0; i++) await new Promise((wait) => setTimeout(wait, 50));
    expect(proxy.held).toBe(1);
    // the request was sent, and its connection closes with no answer
    proxy.dropHeld();
    const applied = await done;
    expect(applied.code).toBe(0);
    const [made, ...more] = await named(name);
    expect(more).toEqual([]);
    expect(flat(diagnostic(applied.stdout, `The platform did not answer the create of deployment "${name}"`))).toContain(`Deployment ${made!.id} is the one this create made`);
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ id: made!.id, revision_status: 'DEPLOYED' });
  } finally {
    proxy.dropHeld();
    proxy.setMode('pass');
  }
});

test('in front of a platform that ignores Idempotency-Key, the create sent again is refused on the name, and the deployment is found by it', async () => {
  const ignoring = await startChaosProxy(lp.platform.url, { seed: 1, refused: 0, badGateway: 0, reset: 0, delayed: 0, stripIdempotencyKey: true });
  const front = await startFaultProxy(ignoring.endpoint);
  try {
    const name = lp.uniqueName('nokey');
    const dir = lp.terraform({ AGENTPLATFORM_CONTROL_PLANE_URL: front.endpoint });
    dir.configure(githubDeployment('agent', { name }));
    expect((await dir.init()).code).toBe(0);
    front.setMode('bad-gateway-responses', '/v2/deployments', 'POST', 1);
    const before = lp.requests.length;
    const applied = await dir.apply();
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    const [made, ...more] = await named(name);
    expect(more).toEqual([]);
    expect(flat(diagnostic(applied.stdout, `The platform did not answer the create of deployment "${name}"`))).toContain(`Deployment ${made!.id} is the one this create made`);
    // the create sent again was refused: the name was taken, by the deployment the first one made
    const creates = lp.requests.slice(before).filter((line) => line.startsWith('POST /v2/deployments '));
    expect(creates.map((line) => line.split(' ')[2])).toEqual(['201', '409']);
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ id: made!.id, revision_status: 'DEPLOYED' });
  } finally {
    await front.close();
    await ignoring.close();
  }
});

test('a create left without answer until timeouts.create fails the apply, and the next apply adopts what it made', async () => {
  const name = lp.uniqueName('later');
  const dir = lp.terraform({ AGENTPLATFORM_CONTROL_PLANE_URL: proxy.endpoint });
  dir.configure(githubDeployment('agent', { name }, '  timeouts = { create = "3s" }\n'));
  expect((await dir.init()).code).toBe(0);
  proxy.setMode('drop-responses', '/v2/deployments', 'POST');
  let failed;
  try {
    failed = await dir.apply();
  } finally {
    proxy.setMode('pass');
  }
  expect(failed.code).toBe(1);
  const error = flat(diagnostic(failed.stderr, `The platform did not answer the create of deployment "${name}"`));
  expect(error).toContain('the platform did not tell until the create\'s time limit');
  expect(error).toContain('Applying again sends the same create, with the same `Idempotency-Key`');
  const [made, ...more] = await named(name);
  expect(more).toEqual([]);
  expect(dir.stateText()).not.toContain('agentplatform_deployment');
  // answered this time: the platform knows the key, and answers with the deployment the first apply made
  const applied = await dir.apply();
  expect([applied.code, applied.stderr]).toEqual([0, '']);
  expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ id: made!.id, revision_status: 'DEPLOYED' });
  expect(await named(name)).toHaveLength(1);
  expect((await dir.plan()).code).toBe(0);
});

test('a deployment is taken for the one requested only when every setting the request sent is what it has', async () => {
  const name = lp.uniqueName('alike');
  const body = {
    name,
    source: 'github' as const,
    source_config: { repo_url: 'https://github.com/acme/agent', deployment_type: 'dev' as const, resource_spec: { min_scale: 2 } },
    source_revision_config: { repo_ref: 'release', graph_config_path: 'graphs/a.json' },
    secrets: [{ name: 'TOKEN', value: 'v' }],
  };
  const made = await lp.client.createDeployment(body);
  expect(isRequested(made, body)).toBe(true);
  // what the request left out is the platform's to fill in
  expect(isRequested(made, { ...body, source_config: { repo_url: body.source_config.repo_url } })).toBe(true);
  for (const other of [
    { ...body, source_revision_config: { ...body.source_revision_config, repo_ref: 'main' } },
    { ...body, source_config: { ...body.source_config, deployment_type: 'prod' as const } },
    { ...body, source_config: { ...body.source_config, resource_spec: { min_scale: 3 } } },
    { ...body, secrets: [] },
  ]) {
    expect(isRequested(made, other)).toBe(false);
  }
});
