/**
 * A cron create whose answer is lost: the agent server made the cron, the connection broke before the answer came.
 * The provider finds the cron by the create key its metadata carries, keeps it in state, and makes no second one.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentServerClient } from '../../lib/api/agent-server';
import { TestPlatform, until } from './support/deployment-platform';

let lp: TestPlatform;
let proxy: Server;
let agent: AgentServerClient;
let deploymentId: string;
/** How many cron creates the proxy forwarded and then cut off before their answer. */
let cutOff = 0;

/** Forwards every request to the platform; the first cron create reaches it, but its answer never comes back. */
function startProxy(upstream: string): Promise<Server> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const cut = req.method === 'POST' && /\/runs\/crons$/.test(req.url ?? '') && cutOff === 0;
    const forwarded = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      if (cut) {
        cutOff += 1;
        answer.resume();
        answer.once('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  lp = await TestPlatform.start();
  proxy = await startProxy(lp.platform.url);
  const { port } = proxy.address() as AddressInfo;
  const created = await lp.client.createDeployment({ name: lp.uniqueName('cron-lost'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
  deploymentId = created.id;
  // the provider reaches the agent server at the deployment's URL: here, the proxy in front of it
  await lp.client.updateDeployment(deploymentId, {
    source_config: { repo_url: 'https://github.com/acme/agent', custom_url: `http://127.0.0.1:${port}/deployments/${deploymentId}` },
  });
  const served = await until(async () => (await lp.client.getDeployment(deploymentId)).active_revision_id !== null, 30_000);
  expect(served).toBe(true);
  agent = new AgentServerClient({ baseUrl: `${lp.platform.url}/deployments/${deploymentId}`, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey } });
});
afterAll(async () => {
  await agent.close();
  await new Promise((resolve) => proxy.close(resolve));
  await lp.close();
});

test('a create whose answer was lost keeps the cron it made, and only that one', async () => {
  const thread = await agent.threads.create();
  const dir = lp.terraform();
  dir.configure(`
resource "agentplatform_cron" "nightly" {
  deployment_id = "${deploymentId}"
  assistant_id  = "chat"
  thread_id     = "${thread.thread_id}"
  schedule      = "0 3 * * *"
  metadata      = jsonencode({ purpose = "nightly" })
}
`);
  expect((await dir.init()).code).toBe(0);
  const result = await dir.apply();
  expect(result.code).toBe(0);
  expect(cutOff).toBe(1);
  expect(`${result.stdout}${result.stderr}`).toContain('did not answer the create of the cron');

  const crons = await agent.crons.search({ thread_id: thread.thread_id });
  expect(crons).toHaveLength(1);
  const state = dir.instance('agentplatform_cron.nightly').attributes;
  expect(state).toMatchObject({ cron_id: crons[0]!.cron_id, metadata: '{"purpose":"nightly"}' });
  expect((await dir.plan()).code).toBe(0);

  expect((await dir.destroy()).code).toBe(0);
  expect(await agent.crons.search({ thread_id: thread.thread_id })).toEqual([]);
});

test('a later apply takes the cron an earlier create made, unless it was changed since', async () => {
  const thread = await agent.threads.create();
  const dir = lp.terraform();
  const configure = (schedule: string) =>
    dir.configure(`
resource "agentplatform_cron" "hourly" {
  deployment_id = "${deploymentId}"
  assistant_id  = "chat"
  thread_id     = "${thread.thread_id}"
  schedule      = "${schedule}"
}
`);
  configure('0 * * * *');
  expect((await dir.init()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  const [made] = await agent.crons.search({ thread_id: thread.thread_id });

  // the state lost (as after a create whose answer never came): the same configuration takes the same cron
  expect((await dir.tf.run(['state', 'rm', '-no-color', 'agentplatform_cron.hourly'])).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  expect((await agent.crons.search({ thread_id: thread.thread_id })).map((cron) => cron.cron_id)).toEqual([made!.cron_id]);
  expect(dir.instance('agentplatform_cron.hourly').attributes.cron_id).toBe(made!.cron_id);

  // changed in place, then lost: it no longer is what the first configuration asks for, and a new one is made
  configure('30 * * * *');
  expect((await dir.apply()).code).toBe(0);
  expect((await dir.tf.run(['state', 'rm', '-no-color', 'agentplatform_cron.hourly'])).code).toBe(0);
  configure('0 * * * *');
  expect((await dir.apply()).code).toBe(0);
  const crons = await agent.crons.search({ thread_id: thread.thread_id });
  expect(crons.map((cron) => cron.schedule)).toEqual(['30 * * * *', '0 * * * *']);
  expect(dir.instance('agentplatform_cron.hourly').attributes.cron_id).toBe(crons[1]!.cron_id);
  for (const cron of crons) await agent.crons.delete(cron.cron_id);
});
