/**
 * `agentplatform_assistant` through the real terraform against the local platform's agent server: create → no-op
 * plan (also for the same JSON in other text) → update in place (a new version) → drift → import → destroy; a create
 * whose answers are lost converges on one assistant; arguments that are not JSON objects, and import ids that are
 * not `<deployment_id>/<assistant_id>`, are refused with messages that say so, as is a graph the agent server refuses.
 */
import { AgentServerClient } from '../../lib/api/agent-server';
import { startFaultProxy } from '../tracing/support/fault-proxy';
import { TestPlatform, githubDeployment, until, type DeploymentDir } from './support/deployment-platform';
import { diagnostic, flat } from './support/export-platform';

// each test runs terraform many times over (a provider process each)
jest.setTimeout(240_000);

let lp: TestPlatform;
beforeAll(async () => {
  lp = await TestPlatform.start();
});
afterAll(() => lp.close());

/** A client of the agent server at `url`, with the platform's dev key. */
const agentServer = (url: string): AgentServerClient => new AgentServerClient({ baseUrl: url, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey } });

/** An assistant block; `attributes` are HCL expressions. */
function assistant(label: string, attributes: Record<string, string>): string {
  const lines = Object.entries(attributes).map(([key, value]) => `  ${key} = ${value}`);
  return `resource "agentplatform_assistant" "${label}" {\n${lines.join('\n')}\n}\n`;
}

const state = (dir: DeploymentDir, label = 'support') => dir.instance(`agentplatform_assistant.${label}`).attributes;

describe('agentplatform_assistant', () => {
  it('creates, plans nothing, updates in place, notices drift, imports and destroys', async () => {
    const dir = lp.terraform();
    const deployment = githubDeployment('agent', { name: lp.uniqueName('assistant') });
    const configure = (attributes: Record<string, string>) =>
      dir.configure(deployment + assistant('support', { deployment_id: 'agentplatform_deployment.agent.id', graph_id: '"chat"', ...attributes }));
    configure({
      name: '"support"',
      config: 'jsonencode({ configurable = { reply_tokens = 3 }, tags = ["support"] })',
      metadata: 'jsonencode({ team = "support", owner = "platform" })',
    });
    expect((await dir.init()).code).toBe(0);
    const created = await dir.apply();
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('Apply complete! Resources: 2 added');
    const first = state(dir);
    const deploymentId = dir.instance('agentplatform_deployment.agent').attributes.id as string;
    const server = agentServer(dir.instance('agentplatform_deployment.agent').attributes.url as string);
    const assistantId = first.assistant_id as string;
    expect(first).toMatchObject({ id: `${deploymentId}/${assistantId}`, deployment_id: deploymentId, graph_id: 'chat', name: 'support', version: 1, context: null, description: null });
    const onServer = await server.assistants.get(assistantId);
    expect(onServer).toMatchObject({ graph_id: 'chat', name: 'support', version: 1, metadata: { team: 'support', owner: 'platform' } });
    expect(onServer.config).toEqual({ configurable: { reply_tokens: 3 }, tags: ['support'] });

    expect((await dir.plan()).code).toBe(0);
    // the same objects written otherwise: no change
    configure({
      name: '"support"',
      config: '"{ \\"tags\\": [\\"support\\"], \\"configurable\\": { \\"reply_tokens\\": 3.0 } }"',
      metadata: 'jsonencode({ owner = "platform", team = "support", gone = null })',
    });
    const samePlan = await dir.plan();
    expect(samePlan.code).toBe(0);
    expect(samePlan.stdout).toContain('No changes.');

    // name, context and metadata change in place: one PATCH, a new version; a metadata member taken out is removed
    configure({
      name: '"support-v2"',
      config: 'jsonencode({ configurable = { reply_tokens = 3 }, tags = ["support"] })',
      context: 'jsonencode({ language = "en" })',
      metadata: 'jsonencode({ team = "support" })',
    });
    const updatePlan = await dir.plan();
    expect(updatePlan.code).toBe(2);
    expect(updatePlan.stdout).toContain('agentplatform_assistant.support will be updated in-place');
    expect(updatePlan.stdout).toMatch(/version\s+= 1 -> \(known after apply\)/);
    expect(updatePlan.stdout).not.toContain('must be replaced');
    expect((await dir.apply()).code).toBe(0);
    expect(state(dir)).toMatchObject({ assistant_id: assistantId, name: 'support-v2', version: 2 });
    const updated = await server.assistants.get(assistantId);
    expect(updated).toMatchObject({ name: 'support-v2', version: 2, context: { language: 'en' } });
    expect(updated.metadata?.owner ?? null).toBeNull();
    expect((await dir.plan()).code).toBe(0);

    // a change outside Terraform is drift, put back by the next apply
    await server.assistants.update(assistantId, { name: 'renamed' });
    const driftPlan = await dir.plan();
    expect(driftPlan.code).toBe(2);
    expect(driftPlan.stdout).toMatch(/name\s+= "renamed" -> "support-v2"/);
    expect((await dir.apply()).code).toBe(0);
    expect((await server.assistants.get(assistantId)).name).toBe('support-v2');

    // import into a fresh state: the same configuration plans nothing
    const imported = lp.terraform();
    imported.configure(
      `import {\n  to = agentplatform_assistant.support\n  id = "${deploymentId}/${assistantId}"\n}\n` +
        assistant('support', {
          deployment_id: `"${deploymentId}"`,
          graph_id: '"chat"',
          name: '"support-v2"',
          config: 'jsonencode({ configurable = { reply_tokens = 3 }, tags = ["support"] })',
          context: 'jsonencode({ language = "en" })',
          metadata: 'jsonencode({ team = "support" })',
        }),
    );
    expect((await imported.init()).code).toBe(0);
    const importPlan = await imported.plan();
    expect(importPlan.stdout).toContain('1 to import, 0 to add, 0 to change, 0 to destroy');
    expect((await imported.apply()).code).toBe(0);
    expect(state(imported)).toMatchObject({ assistant_id: assistantId, version: 4 });
    expect((await imported.plan()).code).toBe(0);

    // deleted outside Terraform: the refresh drops it and the plan creates it again
    await server.assistants.delete(assistantId);
    const gonePlan = await imported.plan();
    expect(gonePlan.code).toBe(2);
    expect(gonePlan.stdout).toContain('agentplatform_assistant.support will be created');

    // destroy deletes it on the agent server
    expect((await dir.apply()).code).toBe(0);
    const again = state(dir).assistant_id as string;
    expect((await server.assistants.get(again)).name).toBe('support-v2');
    expect((await dir.destroy()).code).toBe(0);
    await expect(server.assistants.get(again)).rejects.toMatchObject({ status: 404 });
    await server.close();
  });

  it('converges on one assistant when the answers to its create are lost', async () => {
    const deployment = await lp.client.createDeployment({ name: lp.uniqueName('lost'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
    expect(await until(async () => (await lp.client.getDeployment(deployment.id)).active_revision_id !== null)).toBe(true);
    const proxy = await startFaultProxy(lp.platform.url);
    try {
      // the provider reaches the agent server through the proxy: the deployment is served at the proxy's address
      await lp.client.updateDeployment(deployment.id, { source_config: { custom_url: `${proxy.endpoint}/deployments/${deployment.id}` } });
      const dir = lp.terraform();
      dir.configure(assistant('support', { deployment_id: `"${deployment.id}"`, graph_id: '"research"', name: '"lost-answers"' }));
      expect((await dir.init()).code).toBe(0);
      // the agent server makes the assistant, and the answers of the create and the next four sent are lost
      proxy.setMode('drop-responses', '/assistants', 'POST', 5);
      const applied = await dir.apply();
      expect(applied.code).toBe(0);
      expect(flat(diagnostic(applied.stdout + applied.stderr, 'The platform did not answer the create of assistant'))).toContain('kept in state');
      expect(proxy.seen.filter((line) => line.startsWith('POST') && line.endsWith('/assistants')).length).toBe(6);
      const server = agentServer(`${lp.platform.url}/deployments/${deployment.id}`);
      const named = (await server.assistants.search({ graph_id: 'research', limit: 100 })).filter((a) => a.name === 'lost-answers');
      expect(named.map((a) => a.assistant_id)).toEqual([state(dir).assistant_id]);
      expect((await dir.plan()).code).toBe(0);

      // an apply whose create the state never recorded, the assistant changed since: the next create of the same
      // configuration takes that assistant back, with the configured settings, and makes no second one
      const assistantId = state(dir).assistant_id as string;
      expect((await dir.tf.run(['state', 'rm', '-no-color', 'agentplatform_assistant.support'])).code).toBe(0);
      await server.assistants.update(assistantId, { name: 'changed-meanwhile' });
      const again = await dir.apply();
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('Apply complete! Resources: 1 added');
      expect(state(dir).assistant_id).toBe(assistantId);
      expect(await server.assistants.get(assistantId)).toMatchObject({ name: 'lost-answers', version: 3 });
      const all = await server.assistants.search({ graph_id: 'research', limit: 100 });
      expect(all.filter((a) => a.name === 'lost-answers' || a.name === 'changed-meanwhile').map((a) => a.assistant_id)).toEqual([assistantId]);
      expect((await dir.plan()).code).toBe(0);
      await server.close();
    } finally {
      await proxy.close();
    }
  });

  it('refuses arguments that are not JSON objects, import ids that are not <deployment_id>/<assistant_id>, and says what the agent server refuses', async () => {
    const dir = lp.terraform();
    dir.configure(
      assistant('support', {
        deployment_id: '"6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24"',
        graph_id: '"chat"',
        config: 'jsonencode(["not", "an", "object"])',
        metadata: '"{not json"',
      }),
    );
    expect((await dir.init()).code).toBe(0);
    const invalid = await dir.plan();
    expect(invalid.code).toBe(1);
    const output = invalid.stdout + invalid.stderr;
    expect(flat(diagnostic(output, 'Invalid config'))).toContain('must be a JSON object');
    expect(flat(diagnostic(output, 'Invalid metadata'))).toContain('must be a JSON object');

    dir.configure(
      `import {\n  to = agentplatform_assistant.support\n  id = "chat"\n}\n` +
        assistant('support', { deployment_id: '"6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24"', graph_id: '"chat"' }),
    );
    const badImport = await dir.plan();
    expect(badImport.code).toBe(1);
    expect(flat(diagnostic(badImport.stdout + badImport.stderr, 'Invalid import id'))).toContain('`<deployment_id>/<assistant_id>`');

    // the agent server's refusal, against the attribute it names
    const deployment = await lp.client.createDeployment({ name: lp.uniqueName('refused'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
    expect(await until(async () => (await lp.client.getDeployment(deployment.id)).active_revision_id !== null)).toBe(true);
    dir.configure(assistant('support', { deployment_id: `"${deployment.id}"`, graph_id: '"no-such-graph"' }));
    const refused = await dir.apply();
    expect(refused.code).toBe(1);
    const block = diagnostic(refused.stdout + refused.stderr, 'The agent server refused to create an assistant of graph "no-such-graph"');
    expect(flat(block)).toContain('Graph no-such-graph is not served by this deployment');
    expect(block).toMatch(/graph_id\s+=/);
  });
});
