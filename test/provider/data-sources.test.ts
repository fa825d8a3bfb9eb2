/**
 * The data sources through the real terraform return what the control plane returns: one page of revisions with
 * its filters, every page with `all`, and every field of every sandbox template.
 */
import type { Revision, SandboxTemplateRecord as SandboxTemplate } from '../../lib/api/schemas/control-plane';
import { TestPlatform, until } from './support/deployment-platform';

const REVISION_COUNT = 25;

/** A revision as the data source shows it (`terraform output -json`). */
const revisionOutput = (r: Revision) => ({
  id: r.id,
  status: r.status,
  source: r.source,
  source_revision_config: {
    repo_ref: r.source_revision_config.repo_ref ?? null,
    graph_config_path: r.source_revision_config.graph_config_path ?? null,
    image_uri: r.source_revision_config.image_uri ?? null,
    repo_commit_sha: r.source_revision_config.repo_commit_sha ?? null,
  },
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** A template as the data source shows it: every field, absent quantities as null. */
const templateOutput = (t: SandboxTemplate) => ({
  ...t,
  resources: { cpu: t.resources.cpu ?? null, memory: t.resources.memory ?? null, storage: t.resources.storage ?? null },
});

describe('data sources', () => {
  let lp: TestPlatform;
  let deploymentId: string;
  beforeAll(async () => {
    lp = await TestPlatform.start();
    const deployment = await lp.client.createDeployment({ name: lp.uniqueName('history'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
    deploymentId = deployment.id;
    for (let i = 1; i < REVISION_COUNT; i++) {
      await lp.client.updateDeployment(deploymentId, { source_revision_config: { repo_ref: `release-${i}` } });
    }
    const settled = await until(async () => (await lp.client.getDeployment(deploymentId)).active_revision_id !== null);
    expect(settled).toBe(true);
    lp.platform.admin.addSandboxTemplate(lp.platform.defaultTenantId, {
      name: 'browser',
      image: 'mcr.microsoft.com/playwright:v1.47.0',
      resources: { cpu: '2', memory: '4Gi' },
      volume_mounts: [{ volume_name: 'cache', mount_path: '/cache' }],
      proxy_config: {
        rules: [{ name: 'github', match_hosts: ['api.github.com'], inject_headers: { Authorization: 'token ${GITHUB_TOKEN}' }, match_paths: ['/repos/*'], enabled: true }],
        no_proxy: ['localhost'],
      },
    });
  });
  afterAll(() => lp.close());

  it('return what the API returns: a filtered page, every page, every template', async () => {
    const dir = lp.terraform();
    const revisions = (label: string, args: string) => `data "agentplatform_revisions" "${label}" {\n  deployment_id = "${deploymentId}"\n${args}}\n`;
    dir.configure(
      [
        revisions('all', '  all   = true\n  limit = 10\n'),
        revisions('page', '  limit  = 7\n  offset = 5\n'),
        revisions('deployed', '  status            = ["DEPLOYED"]\n  remote_reconciled = true\n  all               = true\n'),
        revisions('skipped', '  status = ["SKIPPED", "INTERRUPTED"]\n'),
        'data "agentplatform_sandbox_templates" "all" {}\n',
        ...['all', 'page', 'deployed', 'skipped'].map((l) => `output "${l}" {\n  value = data.agentplatform_revisions.${l}.revisions\n}\n`),
        'output "templates" {\n  value     = data.agentplatform_sandbox_templates.all.templates\n  sensitive = true\n}\n',
      ].join('\n'),
    );
    expect((await dir.init()).code).toBe(0);

    const applied = await dir.apply();
    expect(applied.stderr).toBe('');
    // the headers a sandbox's proxy adds often carry credentials: sensitive, so terraform prints none of them
    expect(applied.stdout).not.toContain('GITHUB_TOKEN');
    const templatesState = JSON.parse(dir.stateText()).resources.find((r: { type: string }) => r.type === 'agentplatform_sandbox_templates');
    expect(JSON.stringify(templatesState.instances[0].sensitive_attributes)).toContain('"inject_headers"');
    const output = JSON.parse((await dir.tf.run(['output', '-json'])).stdout) as Record<string, { value: unknown }>;

    const everyRevision: Revision[] = [];
    for await (const r of lp.client.iterateRevisions(deploymentId)) everyRevision.push(r);
    expect(everyRevision).toHaveLength(REVISION_COUNT);
    expect(output.all!.value).toEqual(everyRevision.map(revisionOutput));
    const page = await lp.client.listRevisions(deploymentId, { limit: 7, offset: 5 });
    expect(output.page!.value).toEqual(page.resources.map(revisionOutput));
    const deployed = await lp.client.listRevisions(deploymentId, { status: ['DEPLOYED'], remoteReconciled: true, limit: 100 });
    expect(deployed.resources.length).toBeGreaterThan(0);
    expect(output.deployed!.value).toEqual(deployed.resources.map(revisionOutput));
    const skipped = await lp.client.listRevisions(deploymentId, { status: ['SKIPPED', 'INTERRUPTED'] });
    expect(skipped.resources).toHaveLength(20);
    expect(output.skipped!.value).toEqual(skipped.resources.map(revisionOutput));

    const templates = await lp.client.listSandboxTemplates();
    expect(templates.map((t) => t.name)).toEqual(['python-3.12', 'node-22', 'browser']);
    expect(output.templates!.value).toEqual(templates.map(templateOutput));
  });

  it('reports an unknown deployment against deployment_id', async () => {
    const dir = lp.terraform();
    dir.configure('data "agentplatform_revisions" "missing" {\n  deployment_id = "6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24"\n}\n');
    expect((await dir.init()).code).toBe(0);

    const result = await dir.plan();

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: Deployment not found');
    expect(result.stderr).toMatch(/in data "agentplatform_revisions" "missing":\s+\d+:\s+deployment_id = /);
  });
});
