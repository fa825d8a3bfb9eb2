import { TerraformOutput, TerraformVariable } from 'cdktf';
import { Cron } from '../../lib/constructs/cron';
import { Deployment } from '../../lib/constructs/deployment';
import { onlyResource, providerStack, synthesized, violationsOf, warningsOf } from './support/synth';

describe('Cron', () => {
  test('synthesizes agentplatform_cron: the deployment by reference, the objects as JSON text', () => {
    const stack = providerStack();
    const agent = Deployment.fromDeploymentId(stack, 'Agent', '6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24');
    const cron = new Cron(stack, 'Digest', {
      deployment: agent,
      assistantId: 'agent',
      schedule: '0 9 * * mon-fri',
      input: { messages: [{ role: 'user', content: 'Summarise.' }] },
      metadata: { team: 'support' },
    });
    new TerraformOutput(stack, 'cron_id', { value: cron.cronId });
    const json = synthesized(stack);
    const resource = onlyResource(json, 'agentplatform_cron');
    expect(resource).toEqual({
      deployment_id: '6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24',
      assistant_id: 'agent',
      schedule: '0 9 * * mon-fri',
      input: '{"messages":[{"role":"user","content":"Summarise."}]}',
      metadata: '{"team":"support"}',
    });
    expect((json as unknown as { output: Record<string, { value: string }> }).output.cron_id!.value).toMatch(/^\$\{agentplatform_cron\.[A-Za-z0-9_]+\.cron_id\}$/);
  });

  test('an object holding values known at apply is written with jsonencode; a thread is passed on', () => {
    const stack = providerStack();
    const agent = Deployment.fromDeploymentId(stack, 'Agent', 'd-1');
    const region = new TerraformVariable(stack, 'region', { type: 'string' }).stringValue;
    new Cron(stack, 'Watch', { deployment: agent, assistantId: 'agent', schedule: '*/15 * * * *', threadId: 't-1', config: { configurable: { region } } });
    const resource = onlyResource(synthesized(stack), 'agentplatform_cron');
    expect(resource).toMatchObject({ thread_id: 't-1', config: '${jsonencode({"configurable" = {"region" = var.region}})}' });
  });

  test('refuses at synth a schedule that is not five fields in range, naming the field', () => {
    const stack = providerStack();
    const agent = Deployment.fromDeploymentId(stack, 'Agent', 'd-1');
    expect(violationsOf(() => new Cron(stack, 'Bad', { deployment: agent, assistantId: 'agent', schedule: '0 24 * * *' }))).toEqual([
      { prop: 'schedule', message: expect.stringContaining('invalid hour field "24": values go from 0 to 23') },
    ]);
    expect(violationsOf(() => new Cron(stack, 'Short', { deployment: agent, assistantId: 'agent', schedule: '0 9 * *' }))).toEqual([
      { prop: 'schedule', message: expect.stringContaining('a cron expression has 5 fields') },
    ]);
  });

  test('warns of, and never refuses, a schedule in a syntax it does not read, which an agent server may accept', () => {
    const stack = providerStack();
    const agent = Deployment.fromDeploymentId(stack, 'Agent', 'd-1');
    const last = new Cron(stack, 'MonthEnd', { deployment: agent, assistantId: 'agent', schedule: '0 0 L * *' });
    expect(warningsOf(last)).toEqual([expect.stringMatching(/^schedule: invalid day of month field "L".*does not check\. The platform may refuse it\.$/)]);
    expect(onlyResource(synthesized(stack), 'agentplatform_cron')).toMatchObject({ schedule: '0 0 L * *' });
    expect(warningsOf(new Cron(stack, 'Weekdays', { deployment: agent, assistantId: 'agent', schedule: '0 9 * * mon-fri' }))).toEqual([]);
  });
});
