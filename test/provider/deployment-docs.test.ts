/**
 * The provider's documentation and examples stay true: the docs in `docs/` are what the schemas render (regenerate
 * with `node dist/scripts/generate-provider-docs.js`), their HCL examples pass `terraform validate`, and
 * `examples/hcl/deployment` applies, plans nothing more, and destroys against the local platform.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../lib/provider/constants';
import { registry } from '../../lib/provider/registry';
import { providerDocExamples, providerDocFiles } from '../../scripts/generate-provider-docs';
import { TestPlatform } from './support/deployment-platform';

const ROOT = packageRoot();

describe('provider documentation and examples', () => {
  let lp: TestPlatform;
  beforeAll(async () => {
    lp = await TestPlatform.start();
  });
  afterAll(() => lp.close());

  it('matches the schemas (run the generator after changing one)', () => {
    const files = providerDocFiles();
    const documented = files.map((f) => f.path);
    for (const typeName of Object.keys(registry.resources)) expect(documented).toContain(`docs/resources/${typeName.replace(/^agentplatform_/, '')}.md`);
    for (const typeName of Object.keys(registry.dataSources)) expect(documented).toContain(`docs/data-sources/${typeName.replace(/^agentplatform_/, '')}.md`);
    for (const file of files) {
      expect({ path: file.path, content: readFileSync(join(ROOT, file.path), 'utf8') }).toEqual(file);
    }
  });

  it('has examples terraform accepts', async () => {
    const dir = lp.terraform();
    dir.tf.write('main.tf', providerDocExamples().join('\n'));
    expect((await dir.init()).code).toBe(0);

    const result = await dir.tf.run(['validate', '-no-color']);

    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('The configuration is valid.');
  });

  it('applies examples/hcl/deployment against the local platform', async () => {
    const dir = lp.terraform();
    dir.tf.write('main.tf', readFileSync(join(ROOT, 'examples', 'hcl', 'deployment', 'main.tf'), 'utf8'));
    expect((await dir.init()).code).toBe(0);

    const applied = await dir.apply();
    expect(applied.stderr).toBe('');
    const output = JSON.parse((await dir.tf.run(['output', '-json'])).stdout) as Record<string, { value: unknown }>;
    expect(output.revision!.value).toMatch(/^[0-9a-f-]{36} \(DEPLOYED\)$/);
    expect(output.revision_count!.value).toBe(1);
    // its smoke_test passed on that revision
    const agent = dir.instance('agentplatform_deployment.agent').attributes;
    expect(agent.smoke_test_revision_id).toBe(agent.latest_revision_id);
    expect(output.sandbox_templates!.value).toEqual((await lp.client.listSandboxTemplates()).map((t) => t.name));
    expect(dir.stateText()).not.toContain('sk-local-placeholder');
    expect((await dir.plan()).code).toBe(0);

    const destroyed = await dir.destroy();
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    expect((await lp.client.listDeployments({ nameContains: 'hcl-example-agent' })).resources).toEqual([]);
  });
});
