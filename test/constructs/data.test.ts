import { Testing, TerraformOutput } from 'cdktf';
import { DeploymentRevisions, SandboxTemplates } from '../../lib/constructs/data';
import { Deployment, DeploymentSource } from '../../lib/constructs/deployment';
import { DataAgentplatformRevisions } from '../../lib/constructs/generated/data-agentplatform-revisions';
import { DataAgentplatformSandboxTemplates } from '../../lib/constructs/generated/data-agentplatform-sandbox-templates';
import { providerStack, violationsOf } from './support/synth';

type Outputs = { output: Record<string, { value: string }>; data: Record<string, Record<string, unknown>> };

describe('DeploymentRevisions', () => {
  test('lists a deployment\'s revisions and exposes the newest one', () => {
    const stack = providerStack();
    const agent = new Deployment(stack, 'Agent', { name: 'agent', source: DeploymentSource.image('registry.example.com/agent:1') });
    const revisions = new DeploymentRevisions(stack, 'Revisions', { deployment: agent, statuses: ['DEPLOYED', 'BUILD_FAILED'], limit: 5, all: true });
    new TerraformOutput(stack, 'newest', { value: revisions.newestRevisionId });
    new TerraformOutput(stack, 'second_status', { value: revisions.revisions.get(1).status });
    const synth = Testing.synth(stack);
    expect(synth).toHaveDataSourceWithProperties(DataAgentplatformRevisions, { status: ['DEPLOYED', 'BUILD_FAILED'], limit: 5, all: true });
    const json = JSON.parse(synth) as Outputs;
    const [address] = Object.keys(json.data.agentplatform_revisions!);
    expect(json.data.agentplatform_revisions![address!]).toMatchObject({ deployment_id: expect.stringMatching(/^\$\{agentplatform_deployment\.\w+\.id\}$/) });
    expect(json.output.newest!.value).toBe(`\${data.agentplatform_revisions.${address}.revisions[0].id}`);
    expect(json.output.second_status!.value).toBe(`\${data.agentplatform_revisions.${address}.revisions[1].status}`);
  });

  test.each([
    ['a limit of 0', { limit: 0 }, 'limit'],
    ['a limit of 101', { limit: 101 }, 'limit'],
    ['a negative offset', { offset: -1 }, 'offset'],
    ['an unknown status', { statuses: ['DONE'] as never }, 'statuses[0]'],
  ])('%s is refused at synth', (_, props, prop) => {
    const stack = providerStack();
    const deployment = Deployment.fromDeploymentId(stack, 'Agent', '0b6f5a4e-0000-4000-8000-000000000001');
    expect(violationsOf(() => new DeploymentRevisions(stack, 'Revisions', { deployment, ...props })).map((v) => v.prop)).toEqual([prop]);
  });
});

describe('SandboxTemplates', () => {
  test('reads the workspace\'s templates, each field addressable', () => {
    const stack = providerStack();
    const templates = new SandboxTemplates(stack, 'Templates');
    new TerraformOutput(stack, 'memory', { value: templates.templates.get(0).resources.memory });
    new TerraformOutput(stack, 'mount', { value: templates.templates.get(0).volumeMounts.get(1).mountPath });
    const synth = Testing.synth(stack);
    expect(synth).toHaveDataSource(DataAgentplatformSandboxTemplates);
    const json = JSON.parse(synth) as Outputs;
    const [address] = Object.keys(json.data.agentplatform_sandbox_templates!);
    expect(json.output.memory!.value).toBe(`\${data.agentplatform_sandbox_templates.${address}.templates[0].resources.memory}`);
    expect(json.output.mount!.value).toBe(`\${data.agentplatform_sandbox_templates.${address}.templates[0].volume_mounts[1].mount_path}`);
  });
});
