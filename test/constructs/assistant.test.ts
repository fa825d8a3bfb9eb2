import { TerraformOutput, TerraformVariable } from 'cdktf';
import { Assistant, Deployment, DeploymentSource } from '../../lib/constructs';
import { onlyResource, providerStack, resourcesOf, synthesized } from './support/synth';

const agent = (stack: ReturnType<typeof providerStack>) =>
  new Deployment(stack, 'Agent', { name: 'support-agent', source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent' }) });

describe('Assistant', () => {
  test('deployment.addAssistant: the deployment by reference, objects as JSON text, nothing left out sent', () => {
    const stack = providerStack();
    const deployment = agent(stack);
    const support = deployment.addAssistant('Support', {
      graphId: 'agent',
      name: 'support',
      config: { configurable: { model: 'gpt-4o-mini', temperature: 0.2 }, tags: ['support'] },
      metadata: { team: 'support' },
    });
    new TerraformOutput(stack, 'assistant', { value: support.assistantId });
    const json = synthesized(stack);
    const [deploymentAddress] = Object.keys(resourcesOf(json, 'agentplatform_deployment'));
    const assistant = onlyResource(json, 'agentplatform_assistant');
    expect(assistant).toEqual({
      deployment_id: `\${agentplatform_deployment.${deploymentAddress}.id}`,
      graph_id: 'agent',
      name: 'support',
      config: JSON.stringify({ configurable: { model: 'gpt-4o-mini', temperature: 0.2 }, tags: ['support'] }),
      metadata: '{"team":"support"}',
    });
    expect(JSON.parse(assistant.config as string)).toEqual({ configurable: { model: 'gpt-4o-mini', temperature: 0.2 }, tags: ['support'] });
    const [assistantAddress] = Object.keys(resourcesOf(json, 'agentplatform_assistant'));
    expect((json as unknown as { output: Record<string, { value: string }> }).output.assistant.value).toBe(`\${agentplatform_assistant.${assistantAddress}.assistant_id}`);
    expect(assistantAddress).toContain('Support');
  });

  test('an object that holds references is jsonencode()d for Terraform to resolve', () => {
    const stack = providerStack();
    const model = new TerraformVariable(stack, 'model', { type: 'string' });
    new Assistant(stack, 'Support', { deployment: Deployment.fromDeploymentId(stack, 'Existing', '6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24'), graphId: 'agent', context: { model: model.stringValue } });
    const assistant = onlyResource(synthesized(stack), 'agentplatform_assistant');
    expect(assistant.deployment_id).toBe('6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24');
    expect(assistant.context).toBe('${jsonencode({"model" = var.model})}');
    expect(assistant).not.toHaveProperty('config');
    expect(assistant).not.toHaveProperty('name');
  });
});
