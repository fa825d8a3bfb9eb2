import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TerraformDataSource, TerraformResource, Testing, TerraformStack } from 'cdktf';
import * as bindings from '../../lib/constructs/generated';
import { packageRoot } from '../../lib/provider/constants';
import type { Attribute, Attributes, Schema } from '../../lib/provider/framework/schema';
import { providerSchema } from '../../lib/provider/provider-config';
import { registry } from '../../lib/provider/registry';
import { BINDINGS_DIR, bindingFiles } from '../../scripts/generate-bindings';
import { checkDistFresh } from '../provider/support/terraform';

const REGENERATE = 'the provider schema changed: run `npm run generate:bindings` and commit the result';

type BindingClass = new (scope: TerraformStack, id: string, config: Record<string, unknown>) => unknown;

const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const settable = (a: Attribute): boolean => a.kind === 'block' || Boolean(a.required || a.optional);

/** A config value of the right type for every settable attribute, keyed the way the bindings take it. */
function sampleConfig(attributes: Attributes): Record<string, unknown> {
  const value = (a: Attribute): unknown => {
    switch (a.kind) {
      case 'string':
        return 'text';
      case 'number':
        return 1;
      case 'bool':
        return true;
      case 'list':
      case 'set':
        return a.element.cty.kind === 'number' ? [1] : ['item'];
      case 'map':
        return { KEY: 'value' };
      default:
        return a.nesting === 'single' ? sampleConfig(a.attributes) : [sampleConfig(a.attributes)];
    }
  };
  return Object.fromEntries(Object.entries(attributes).filter(([, a]) => settable(a)).map(([k, a]) => [camel(k), value(a)]));
}

/** The snake_case keys, recursively, of what the sample config should synthesize to. */
function expectedJson(attributes: Attributes): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attributes)
      .filter(([, a]) => settable(a))
      .map(([k, a]) => [k, a.kind === 'nested' || a.kind === 'block' ? (a.nesting === 'single' ? expectedJson(a.attributes) : [expectedJson(a.attributes)]) : expect.anything()]),
  );
}

/** The binding class of a resource or data source type, found by its Terraform type, whatever cdktf named it. */
function bindingClass(kind: 'resource' | 'data-source', typeName: string): BindingClass {
  const base = kind === 'resource' ? TerraformResource : TerraformDataSource;
  const classes = Object.values(bindings).flatMap((module) => Object.values(module) as unknown[]);
  const found = classes.filter(
    (c): c is BindingClass & { tfResourceType: string } =>
      typeof c === 'function' && c.prototype instanceof base && (c as { tfResourceType?: string }).tfResourceType === typeName,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The files under a folder, by path from it. */
const filesUnder = (dir: string, from = ''): string[] =>
  readdirSync(join(dir, from), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, join(from, entry.name)) : [join(from, entry.name).split('\\').join('/')],
  );

describe('generated bindings', () => {
  // cdktf get, run once: it installs the built provider from a mirror and reads its schema with terraform
  checkDistFresh();
  const generated = bindingFiles();

  test.each(generated.map((f) => [f.path, f.content]))('%s is what cdktf get makes of the provider schema', (path, content) => {
    const onDisk = existsSync(join(packageRoot(), path)) ? readFileSync(join(packageRoot(), path), 'utf8') : '(missing)';
    if (onDisk !== content) throw new Error(`${path} is out of date: ${REGENERATE}`);
  });

  test('the bindings folder holds nothing but generated files', () => {
    const expected = generated.map((f) => f.path.slice(BINDINGS_DIR.length + 1));
    expect(filesUnder(join(packageRoot(), BINDINGS_DIR)).sort()).toEqual(expected.sort());
  });

  const types: Array<[string, 'resource' | 'data-source', Schema]> = [
    ...Object.entries(registry.resources).map(([t, load]) => [t, 'resource', load().schema] as [string, 'resource', Schema]),
    ...Object.entries(registry.dataSources).map(([t, load]) => [t, 'data-source', load().schema] as [string, 'data-source', Schema]),
  ];

  test.each(types)('%s: every settable attribute synthesizes under its Terraform name', (typeName, kind, schema) => {
    const Binding = bindingClass(kind, typeName);
    const stack = new TerraformStack(Testing.app(), 'test');
    new bindings.provider.AgentplatformProvider(stack, 'agentplatform');
    new Binding(stack, 'subject', sampleConfig(schema.attributes));
    const json = JSON.parse(Testing.synth(stack)) as Record<'resource' | 'data', Record<string, Record<string, Record<string, unknown>>>>;
    const synthesized = json[kind === 'resource' ? 'resource' : 'data'][typeName]!.subject!;
    const { ['//']: _metadata, ...attributes } = synthesized;
    expect(attributes).toEqual(expectedJson(schema.attributes));
  });

  test('the provider block takes every provider setting', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    new bindings.provider.AgentplatformProvider(stack, 'agentplatform', sampleConfig(providerSchema.attributes));
    const json = JSON.parse(Testing.synth(stack)) as { provider: { agentplatform: Array<Record<string, unknown>> } };
    expect(json.provider.agentplatform[0]).toEqual(expectedJson(providerSchema.attributes));
  });
});
