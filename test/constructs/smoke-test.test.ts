/**
 * `Deployment`'s `smokeTest` prop: what it synthesizes into the resource's `smoke_test` (the input as JSON text, by
 * `jsonencode` when references are inside it) and what synth refuses.
 */
import { TerraformVariable } from 'cdktf';
import { Deployment, DeploymentSource, type DeploymentProps } from '../../lib/constructs/deployment';
import { Duration } from '../../lib/constructs/duration';
import { onlyResource, providerStack, synthesized, violationsOf } from './support/synth';

const github = DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main' });
const PING = { messages: [{ role: 'user', content: 'ping' }] };

function deploy(props: Partial<DeploymentProps>, stack = providerStack()): Deployment {
  return new Deployment(stack, 'Agent', { name: 'support-agent', source: github, ...props });
}

describe('Deployment smokeTest', () => {
  test('synthesizes smoke_test with the input as JSON text and the timeout as a duration', () => {
    const stack = providerStack();
    deploy({ smokeTest: { assistantId: 'chat', input: PING, expectContains: 'You said: ping', timeout: Duration.seconds(90) } }, stack);
    const check = onlyResource(synthesized(stack), 'agentplatform_deployment').smoke_test as Record<string, unknown>;
    expect(check).toEqual({ assistant_id: 'chat', input: JSON.stringify(PING), expect_contains: 'You said: ping', timeout: '90s' });
    expect(JSON.parse(check.input as string)).toEqual(PING);
  });

  test('an input with references inside is encoded by Terraform; without the prop, no smoke_test', () => {
    const stack = providerStack();
    const question = new TerraformVariable(stack, 'question', { type: 'string' });
    const agent = deploy({ smokeTest: { assistantId: 'chat', input: { messages: [{ role: 'user', content: question.stringValue }] } } }, stack);
    const check = onlyResource(synthesized(stack), 'agentplatform_deployment').smoke_test as Record<string, unknown>;
    expect(check.input).toMatch(/^\$\{jsonencode\(.*var\.question.*\)\}$/s);
    expect(check).not.toHaveProperty('timeout');
    expect(agent.smokeTestRevisionId).toMatch(/TfToken/);

    const plain = providerStack();
    deploy({}, plain);
    expect(onlyResource(synthesized(plain), 'agentplatform_deployment')).not.toHaveProperty('smoke_test');
  });

  test('refuses an empty assistant and a timeout of zero', () => {
    const violations = violationsOf(() => deploy({ smokeTest: { assistantId: ' ', input: PING, timeout: Duration.seconds(0) } }));
    expect(violations.map((v) => v.prop)).toEqual(['smokeTest.assistantId', 'smokeTest.timeout']);
  });
});
