/**
 * Props given as tokens: objects, maps and lists that are variables are passed to Terraform as they are (the provider
 * checks them at plan), and secrets given as tokens are checked at synth, once the stack's variables and locals
 * exist: a token that is literal text in disguise would write the secret into the synthesized JSON.
 */
import { Fn, TerraformLocal, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { AgentPlatformProvider } from '../../lib/constructs/provider';
import { Deployment, DeploymentSource } from '../../lib/constructs/deployment';
import { DeploymentRevisions } from '../../lib/constructs/data';
import { DestinationCredentials, DestinationTarget, ExportDestination } from '../../lib/constructs/export-destination';
import { ScheduledExport } from '../../lib/constructs/scheduled-export';
import { Duration } from '../../lib/constructs/duration';
import type { ExportableFieldName } from '../../lib/api/schemas/trace-fields';
import { exportStack, onlyResource, providerStack, synthesized, warningsOf } from './support/synth';

/** The synth-time validation errors of a stack (Testing.synth runs them when asked). */
function validationErrors(stack: ReturnType<typeof providerStack>): string {
  try {
    Testing.synth(stack, true);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

const source = DeploymentSource.image('registry.example.com/agent:1');

describe('objects, maps and lists given as tokens', () => {
  test('resources given as a variable of object type go to the resource as the variable', () => {
    const stack = providerStack();
    const spec = new TerraformVariable(stack, 'spec', { type: 'object({min_scale=number,max_scale=number})' });
    new Deployment(stack, 'Agent', { name: 'agent', source, resources: spec.value });
    expect(onlyResource(synthesized(stack), 'agentplatform_deployment').resource_spec).toBe('${var.spec}');
  });

  test('secrets given as a variable of map type are accepted and sent as the variable', () => {
    const stack = providerStack();
    const secrets = new TerraformVariable(stack, 'agent_secrets', { type: 'map(string)', sensitive: true });
    new Deployment(stack, 'Agent', { name: 'agent', source, secrets: Token.asStringMap(secrets.value), secretsVersion: 1 });
    expect(onlyResource(synthesized(stack), 'agentplatform_deployment').secrets).toBe('${var.agent_secrets}');
    expect(validationErrors(stack)).toBe('');
  });

  test('export fields and revision statuses given as list variables are passed on', () => {
    const stack = exportStack();
    const fields = new TerraformVariable(stack, 'fields', { type: 'list(string)' });
    const statuses = new TerraformVariable(stack, 'statuses', { type: 'list(string)' });
    const destination = ExportDestination.fromDestinationId(stack, 'Destination', '0b7e4a6c-3f21-4d8e-9c55-2a1f6e9b3d70');
    new ScheduledExport(stack, 'Daily', {
      destination,
      tracingProjectId: '3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68',
      start: '2030-01-01T00:00:00Z',
      every: Duration.hours(24),
      fields: fields.listValue as ExportableFieldName[],
    });
    const agent = new Deployment(stack, 'Agent', { name: 'agent', source });
    new DeploymentRevisions(stack, 'Revisions', { deployment: agent, statuses: statuses.listValue as never });
    const json = synthesized(stack);
    expect(onlyResource(json, 'agentplatform_bulk_export').export_fields).toBe('${var.fields}');
    expect(Object.values(json.data?.agentplatform_revisions ?? {})[0]).toMatchObject({ status: '${var.statuses}' });
  });
});

describe('secrets given as tokens, checked at synth', () => {
  test('literal text in disguise is refused: a function of literals, a local holding one, a variable with a default', () => {
    const stack = providerStack();
    const withDefault = new TerraformVariable(stack, 'with_default', { type: 'string', default: 'sk-live-in-the-json' });
    const local = new TerraformLocal(stack, 'key_local', 'sk-live-local-literal');
    new Deployment(stack, 'Agent', {
      name: 'agent',
      source,
      secrets: { JOINED: Fn.join('', ['sk-live-joined']), LOCAL: local.asString, DEFAULTED: withDefault.stringValue },
      secretsVersion: 1,
    });
    const errors = validationErrors(stack);
    expect(errors).toContain('secrets.JOINED is built from literal text only');
    expect(errors).toContain('secrets.LOCAL comes from local "key_local", which is literal text in the synthesized JSON');
    expect(errors).toContain('secrets.DEFAULTED comes from variable "with_default", whose default is written into the synthesized JSON');
  });

  test('a reference after an object inside the same expression is still seen (braces are matched, not cut at the first)', () => {
    const stack = providerStack();
    const withDefault = new TerraformVariable(stack, 'fallback', { type: 'string', default: 'sk-live-in-the-json' });
    const picked = Fn.lookup({ a: '1' }, 'b', withDefault.stringValue);
    new Deployment(stack, 'Agent', { name: 'agent', source, secrets: { PICKED: Token.asString(picked) }, secretsVersion: 1 });
    expect(validationErrors(stack)).toContain('secrets.PICKED comes from variable "fallback", whose default is written into the synthesized JSON');
  });

  test('a reference whose expression may give literal text is refused: a conditional with a quoted branch, a quoted fallback', () => {
    const stack = providerStack();
    const prod = new TerraformVariable(stack, 'prod', { type: 'bool' });
    const key = new TerraformVariable(stack, 'key', { type: 'string', sensitive: true });
    const keys = new TerraformVariable(stack, 'keys', { type: 'map(string)', sensitive: true });
    new Deployment(stack, 'Agent', {
      name: 'agent',
      source,
      secrets: {
        BRANCH: Token.asString(Fn.conditional(prod.booleanValue, key.stringValue, 'dev-secret')),
        FALLBACK: Fn.coalesce([key.stringValue, 'fallback-secret']),
        SEPARATOR: Fn.replace(key.stringValue, ':', '-'),
        FIRST: Fn.try([Fn.element(Fn.split(',', key.stringValue), 0), key.stringValue]),
        KEYED: Token.asString(Fn.lookup(keys.value, 'open:ai', key.stringValue)),
      },
      secretsVersion: 1,
    });
    const errors = validationErrors(stack);
    expect(errors).toContain('secrets.BRANCH may be literal text: a branch or a fallback of its expression is a quoted string');
    expect(errors).toContain('secrets.FALLBACK may be literal text');
    // quoted strings that are no outcome (a separator, a nested call's argument, a map key) are no secret
    expect(errors).not.toMatch(/secrets\.(SEPARATOR|FIRST|KEYED)/);
  });

  test('the references of a template string inside an expression are seen', () => {
    const stack = providerStack();
    const user = new TerraformVariable(stack, 'user', { type: 'string' });
    const password = new TerraformVariable(stack, 'password', { type: 'string', sensitive: true });
    const defaulted = new TerraformVariable(stack, 'defaulted', { type: 'string', default: 'sk-live-in-the-json' });
    new Deployment(stack, 'Agent', {
      name: 'agent',
      source,
      secrets: { BASIC: Fn.base64encode(`${user.stringValue}:${password.stringValue}`), HIDDEN: Fn.trimspace(`${defaulted.stringValue}\n`) },
      secretsVersion: 1,
    });
    const errors = validationErrors(stack);
    expect(errors).not.toContain('secrets.BASIC');
    expect(errors).toContain('secrets.HIDDEN comes from variable "defaulted"');
  });

  test("the provider's API key from a variable with a default is warned of, as a literal key is", () => {
    const stack = new TerraformStack(Testing.app(), 'keys');
    const withDefault = new TerraformVariable(stack, 'api_key', { type: 'string', default: 'lp_in_the_json' });
    const provider = new AgentPlatformProvider(stack, 'agentplatform', { apiKey: withDefault.stringValue, installLauncher: false });
    Testing.synth(stack, true);
    Testing.synth(stack, true);
    expect(warningsOf(provider)).toEqual(['apiKey comes from variable "api_key", whose default is written into the synthesized JSON: drop the default and give the value at apply (TF_VAR_api_key).']);
  });

  test("a variable of another copy of cdktf (the app's own, when the package is installed from a linked folder) is still seen", () => {
    let Foreign: typeof TerraformVariable | undefined;
    jest.isolateModules(() => {
      Foreign = (require('cdktf') as typeof import('cdktf')).TerraformVariable;
    });
    expect(Foreign).not.toBe(TerraformVariable);
    const stack = providerStack();
    const withDefault = new Foreign!(stack, 'foreign_default', { type: 'string', default: 'sk-live-in-the-json' });
    new Deployment(stack, 'Agent', { name: 'agent', source, secrets: { DEFAULTED: withDefault.stringValue }, secretsVersion: 1 });
    expect(validationErrors(stack)).toContain('secrets.DEFAULTED comes from variable "foreign_default", whose default is written into the synthesized JSON');
  });

  test('a variable given at apply, a local built from one, and another resource\'s attribute are accepted', () => {
    const stack = exportStack();
    const key = new TerraformVariable(stack, 'openai_key', { type: 'string', sensitive: true });
    const local = new TerraformLocal(stack, 'bearer', `Bearer ${key.stringValue}`);
    const agent = new Deployment(stack, 'Agent', { name: 'agent', source, secrets: { OPENAI_API_KEY: key.stringValue, AUTH: local.asString }, secretsVersion: 1 });
    new Deployment(stack, 'Other', { name: 'other', source, secrets: { UPSTREAM_URL: agent.url }, secretsVersion: 1 });
    // a local holding a map of references, given whole
    const map = new TerraformLocal(stack, 'agent_secrets', { OPENAI_API_KEY: key.stringValue });
    new Deployment(stack, 'Third', { name: 'third', source, secrets: map.asStringMap, secretsVersion: 1 });
    expect(validationErrors(stack)).toBe('');
    // ... and one holding a literal among them
    new Deployment(stack, 'Fourth', { name: 'fourth', source, secrets: new TerraformLocal(stack, 'mixed', { A: key.stringValue, B: 'sk-literal' }).asStringMap, secretsVersion: 1 });
    expect(validationErrors(stack)).toContain('secrets comes from local "mixed", which is literal text');
  });

  test("a destination's secret key from a local holding a literal is refused", () => {
    const stack = exportStack();
    const local = new TerraformLocal(stack, 's3_secret', 'plaintext-s3-secret');
    new ExportDestination(stack, 'Destination', {
      displayName: 'traces',
      target: DestinationTarget.s3({
        bucketName: 'agent-traces',
        region: 'eu-west-1',
        credentials: DestinationCredentials.fromValues({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: local.asString }),
      }),
    });
    expect(validationErrors(stack)).toContain('target.credentials.secretAccessKey comes from local "s3_secret", which is literal text');
  });
});
