/**
 * Writes the cdktf bindings of the provider (`lib/constructs/generated/`) from the provider's own schemas: one class
 * per resource and data source, as `cdktf get` would make them, with a config interface whose props are the
 * attributes in camelCase, getters that reference attributes, and `synthesizeAttributes` mapping back to snake_case.
 * The constructs build on these classes and never load the provider runtime; this build-time script is the one
 * place that reads the registry. A test fails when the files drift from the schemas.
 * Run: npm run build && node dist/scripts/generate-bindings.js
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROVIDER_TYPE_NAME, packageRoot } from '../lib/provider/constants';
import type { CtyType } from '../lib/provider/cty/types';
import type { Attribute, Schema } from '../lib/provider/framework/schema';
import { providerSchema } from '../lib/provider/provider-config';
import { registry } from '../lib/provider/registry';

/** One generated file: its path from the package root and its content. */
export interface BindingFile {
  readonly path: string;
  readonly content: string;
}

/** Where the bindings go. */
export const BINDINGS_DIR = 'lib/constructs/generated';

type Kind = 'resource' | 'data-source' | 'provider';

/** Members of the cdktf base classes an attribute getter must not shadow. */
const RESERVED = new Set(['node', 'fqn', 'friendlyUniqueId', 'stack', 'cdktfStack', 'provider', 'dependsOn', 'count', 'lifecycle', 'forEach', 'connection', 'provisioners', 'alias', 'terraformResourceType', 'terraformMetaArguments', 'terraformGeneratorMetadata', 'rawOverrides']);

const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const pascal = (name: string): string => camel(name).replace(/^./, (c) => c.toUpperCase());
const stripPrefix = (typeName: string): string => typeName.slice(PROVIDER_TYPE_NAME.length + 1);
const kebab = (name: string): string => name.replace(/_/g, '-');
const listName = (outputReference: string): string => outputReference.replace(/OutputReference$/, 'List');
const lowerFirst = (name: string): string => name.replace(/^./, (c) => c.toLowerCase());

function doc(text: string, indent = ''): string {
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */`;
  return [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`.trimEnd()), `${indent} */`].join('\n');
}

/** The name of a class, e.g. `TfDeployment`, `TfRevisionsDataSource`, `TfProvider`. */
export function bindingClassName(kind: Kind, typeName: string): string {
  if (kind === 'provider') return 'TfProvider';
  return `Tf${pascal(stripPrefix(typeName))}${kind === 'data-source' ? 'DataSource' : ''}`;
}

const settable = (a: Attribute): boolean => a.kind === 'block' || Boolean(a.required || a.optional);
const readable = (a: Attribute): boolean => a.kind === 'block' || !a.writeOnly;

const PRIMITIVE_TS: Record<string, string> = { string: 'string', number: 'number', bool: 'boolean | cdktf.IResolvable' };
const PRIMITIVE_MAPPER: Record<string, string> = { string: 'cdktf.stringToTerraform', number: 'cdktf.numberToTerraform', bool: 'cdktf.booleanToTerraform' };

function elementTs(type: CtyType): string {
  if (type.kind === 'string' || type.kind === 'number') return type.kind;
  if (type.kind === 'bool') return 'boolean | cdktf.IResolvable';
  throw new Error(`collections of ${type.kind} are not supported by the bindings generator`);
}

/** Collects the declarations of one type while rendering it. */
class Renderer {
  readonly declarations: string[] = [];

  constructor(private readonly prefix: string) {}

  /** TypeScript type of a settable attribute in a config interface. */
  private inputType(name: string, a: Attribute): string {
    switch (a.kind) {
      case 'string':
      case 'number':
      case 'bool':
        return PRIMITIVE_TS[a.kind]!;
      case 'list':
      case 'set':
        return `Array<${elementTs(a.element.cty)}>`;
      case 'map':
        return `{ [key: string]: ${elementTs(a.element.cty)} }`;
      default: {
        const struct = this.struct(name, a);
        return a.nesting === 'single' ? `${struct} | cdktf.IResolvable` : a.nesting === 'map' ? `{ [key: string]: ${struct} } | cdktf.IResolvable` : `${struct}[] | cdktf.IResolvable`;
      }
    }
  }

  /** The expression that turns a prop into Terraform JSON. */
  private mapper(name: string, a: Attribute, value: string): string {
    switch (a.kind) {
      case 'string':
      case 'number':
      case 'bool':
        return `${PRIMITIVE_MAPPER[a.kind]}(${value})`;
      case 'list':
      case 'set':
        return `cdktf.listMapper(${PRIMITIVE_MAPPER[a.element.cty.kind]}, false)(${value})`;
      case 'map':
        return `cdktf.hashMapper(${PRIMITIVE_MAPPER[a.element.cty.kind]})(${value})`;
      default: {
        const fn = `${lowerFirst(this.structName(name))}ToTerraform`;
        return a.nesting === 'single' ? `${fn}(${value})` : a.nesting === 'map' ? `cdktf.hashMapper(${fn})(${value})` : `cdktf.listMapper(${fn}, false)(${value})`;
      }
    }
  }

  private structName(path: string): string {
    return `${this.prefix}${pascal(path)}`;
  }

  /** Declares the interface and converter of a settable nested object; returns the interface name. */
  private struct(path: string, a: Extract<Attribute, { kind: 'nested' | 'block' }>): string {
    const name = this.structName(path);
    const fields = Object.entries(a.attributes).filter(([, child]) => settable(child));
    const props = fields.map(([key, child]) => this.prop(`${path}_${key}`, key, child)).join('\n');
    const body = fields.map(([key, child]) => `    ${key}: ${this.mapper(`${path}_${key}`, child, `struct.${camel(key)}`)},`).join('\n');
    this.declarations.push(
      `${doc(a.description)}\nexport interface ${name} {\n${props}\n}`,
      [
        `/** Converts {@link ${name}} to Terraform JSON. */`,
        `export function ${lowerFirst(name)}ToTerraform(struct?: ${name} | cdktf.IResolvable): unknown {`,
        '  if (struct === undefined || !cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) return struct;',
        '  return {',
        body,
        '  };',
        '}',
      ].join('\n'),
    );
    return name;
  }

  /** One readonly prop of a config interface or struct. */
  prop(path: string, key: string, a: Attribute): string {
    const optional = a.kind === 'block' ? (a.minItems ?? 0) === 0 : !a.required;
    return `${doc(a.description, '  ')}\n  readonly ${camel(key)}${optional ? '?' : ''}: ${this.inputType(path, a)};`;
  }

  /** The synthesizeAttributes entry of a top-level attribute. */
  entry(key: string, a: Attribute, source: string): string {
    return `      ${key}: ${this.mapper(key, a, `${source}.${camel(key)}`)},`;
  }

  /** A getter referencing an attribute (nested objects get output reference classes). */
  getter(path: string, key: string, a: Attribute): string {
    const name = camel(key);
    if (RESERVED.has(name)) throw new Error(`attribute ${key} would shadow the cdktf member ${name}: rename it in the schema`);
    const head = `${doc(a.description, '  ')}\n  get ${name}()`;
    switch (a.kind) {
      case 'string':
        return `${head}: string {\n    return this.getStringAttribute('${key}');\n  }`;
      case 'number':
        return `${head}: number {\n    return this.getNumberAttribute('${key}');\n  }`;
      case 'bool':
        return `${head}: cdktf.IResolvable {\n    return this.getBooleanAttribute('${key}');\n  }`;
      case 'list':
      case 'set':
        return a.element.cty.kind === 'number'
          ? `${head}: number[] {\n    return this.getNumberListAttribute('${key}');\n  }`
          : `${head}: string[] {\n    return this.getListAttribute('${key}');\n  }`;
      case 'map': {
        const method = { string: 'getStringMapAttribute', number: 'getNumberMapAttribute', bool: 'getBooleanMapAttribute' }[a.element.cty.kind as string];
        const valueTs = a.element.cty.kind === 'bool' ? 'boolean' : a.element.cty.kind;
        return `${head}: { [key: string]: ${valueTs} } {\n    return this.${method}('${key}');\n  }`;
      }
      default: {
        if (a.nesting === 'map') return `${head}: cdktf.IResolvable {\n    return this.interpolationForAttribute('${key}');\n  }`;
        const ref = this.outputReference(path, a);
        return a.nesting === 'single'
          ? `${head}: ${ref} {\n    return new ${ref}(this, '${key}');\n  }`
          : `${head}: ${listName(ref)} {\n    return new ${listName(ref)}(this, '${key}', ${a.nesting === 'set'});\n  }`;
      }
    }
  }

  /** Declares the output reference (and list) classes of a nested object; returns the reference class name. */
  private outputReference(path: string, a: Extract<Attribute, { kind: 'nested' | 'block' }>): string {
    const name = `${this.structName(path)}OutputReference`;
    const getters = Object.entries(a.attributes)
      .filter(([, child]) => readable(child))
      .map(([key, child]) => this.getter(`${path}_${key}`, key, child))
      .join('\n\n');
    this.declarations.push(
      [
        `/** A reference to ${a.nesting === 'single' ? 'the' : 'one'} \`${path}\` object. */`,
        `export class ${name} extends cdktf.ComplexObject {`,
        '  constructor(terraformResource: cdktf.IInterpolatingParent, terraformAttribute: string, complexObjectIndex?: number, complexObjectIsFromSet = false) {',
        '    super(terraformResource, terraformAttribute, complexObjectIsFromSet, complexObjectIndex);',
        '  }',
        '',
        getters,
        '}',
      ].join('\n'),
    );
    if (a.nesting !== 'single') {
      this.declarations.push(
        [
          `/** References to the \`${path}\` objects. */`,
          `export class ${listName(name)} extends cdktf.ComplexList {`,
          '  /** The object at `index`. */',
          `  get(index: number): ${name} {`,
          `    return new ${name}(this.terraformResource, this.terraformAttribute, index, this.wrapsSet);`,
          '  }',
          '}',
        ].join('\n'),
      );
    }
    return name;
  }
}

const HEADER = (what: string): string =>
  `// Generated by scripts/generate-bindings.ts from the schema of ${what}. Do not edit:\n` +
  '// run `npm run build && node dist/scripts/generate-bindings.js` after changing the schema.';

const META_ARGS: Record<Exclude<Kind, 'provider'>, string[]> = {
  resource: ['provider', 'dependsOn', 'count', 'lifecycle', 'provisioners', 'connection', 'forEach'],
  'data-source': ['provider', 'dependsOn', 'count', 'lifecycle', 'forEach'],
};

/** The binding file of one resource or data source. */
function renderType(kind: Exclude<Kind, 'provider'>, typeName: string, schema: Schema): BindingFile {
  const className = bindingClassName(kind, typeName);
  const r = new Renderer(className);
  const attrs = Object.entries(schema.attributes);
  const props = attrs.filter(([, a]) => settable(a)).map(([key, a]) => r.prop(key, key, a));
  const entries = attrs.filter(([, a]) => settable(a)).map(([key, a]) => r.entry(key, a, 'this.tfConfig'));
  const getters = attrs.filter(([, a]) => readable(a)).map(([key, a]) => r.getter(key, key, a));
  const base = kind === 'resource' ? 'TerraformResource' : 'TerraformDataSource';
  const label = kind === 'resource' ? 'resource' : 'data source';
  const content = [
    [
      HEADER(`\`${typeName}\``),
      "import * as cdktf from 'cdktf';",
      "import type { Construct } from 'constructs';",
      "import { PROVIDER_TYPE_NAME, PROVIDER_VERSION } from '../../provider/constants';",
    ].join('\n'),
    ...r.declarations,
    `${doc(`Configuration of the \`${typeName}\` ${label}.`)}\nexport interface ${className}Config extends cdktf.TerraformMetaArguments ${props.length ? `{\n${props.join('\n')}\n}` : '{}'}`,
    [
      doc(`The \`${typeName}\` ${label}. ${schema.description}`),
      `export class ${className} extends cdktf.${base} {`,
      '  /** The Terraform type name. */',
      `  static readonly tfResourceType = '${typeName}';`,
      '',
      ...(entries.length ? [`  private readonly tfConfig: ${className}Config;`, ''] : []),
      `  constructor(scope: Construct, id: string, config: ${className}Config${entries.length ? '' : ' = {}'}) {`,
      '    super(scope, id, {',
      `      terraformResourceType: '${typeName}',`,
      '      terraformGeneratorMetadata: { providerName: PROVIDER_TYPE_NAME, providerVersion: PROVIDER_VERSION },',
      ...META_ARGS[kind].map((m) => `      ${m}: config.${m},`),
      '    });',
      ...(entries.length ? ['    this.tfConfig = config;'] : []),
      '  }',
      '',
      getters.join('\n\n'),
      '',
      ...(entries.length
        ? ['  protected override synthesizeAttributes(): { [name: string]: unknown } {', '    return {', ...entries, '    };', '  }', '']
        : []),
      '  protected override synthesizeHclAttributes(): { [name: string]: unknown } {',
      `    throw new Error('The agentplatform bindings synthesize JSON only: synthesize without HCL output (${typeName}).');`,
      '  }',
      '}',
    ].join('\n'),
  ].join('\n\n');
  const file = `${kind === 'data-source' ? 'data-' : ''}${kebab(stripPrefix(typeName))}.ts`;
  return { path: `${BINDINGS_DIR}/${file}`, content: `${content}\n` };
}

/** The binding of the provider block. */
function renderProvider(schema: Schema): BindingFile {
  const r = new Renderer('TfProvider');
  const attrs = Object.entries(schema.attributes);
  const props = attrs.map(([key, a]) => r.prop(key, key, a));
  const entries = attrs.map(([key, a]) => r.entry(key, a, 'this.tfConfig'));
  const content = [
    [
      HEADER('the provider block'),
      "import * as cdktf from 'cdktf';",
      "import type { Construct } from 'constructs';",
      "import { PROVIDER_SOURCE, PROVIDER_TYPE_NAME, PROVIDER_VERSION } from '../../provider/constants';",
    ].join('\n'),
    ...r.declarations,
    `/** Configuration of the provider block. */\nexport interface TfProviderConfig {\n${props.join('\n')}\n${doc('Alias of this provider configuration, for stacks with several.', '  ')}\n  readonly alias?: string;\n}`,
    [
      doc(`The \`${PROVIDER_TYPE_NAME}\` provider block. ${schema.description}`),
      'export class TfProvider extends cdktf.TerraformProvider {',
      '  /** The Terraform type name of the provider. */',
      '  static readonly tfResourceType = PROVIDER_TYPE_NAME;',
      '',
      '  private tfConfig: TfProviderConfig;',
      '',
      '  constructor(scope: Construct, id: string, config: TfProviderConfig = {}) {',
      '    super(scope, id, {',
      '      terraformResourceType: PROVIDER_TYPE_NAME,',
      '      terraformGeneratorMetadata: { providerName: PROVIDER_TYPE_NAME, providerVersion: PROVIDER_VERSION },',
      '      terraformProviderSource: PROVIDER_SOURCE,',
      '    });',
      '    this.tfConfig = config;',
      '  }',
      '',
      '  /** Alias of this provider configuration. */',
      '  override get alias(): string | undefined {',
      '    return this.tfConfig.alias;',
      '  }',
      '',
      '  override set alias(value: string | undefined) {',
      '    this.tfConfig = { ...this.tfConfig, alias: value };',
      '  }',
      '',
      '  protected override synthesizeAttributes(): { [name: string]: unknown } {',
      '    return {',
      ...entries,
      '    };',
      '  }',
      '',
      '  protected override synthesizeHclAttributes(): { [name: string]: unknown } {',
      "    throw new Error('The agentplatform bindings synthesize JSON only: synthesize without HCL output (provider).');",
      '  }',
      '}',
    ].join('\n'),
  ].join('\n\n');
  return { path: `${BINDINGS_DIR}/provider.ts`, content: `${content}\n` };
}

/** Every binding file, rendered from the current schemas. */
export function bindingFiles(): BindingFile[] {
  const files = [
    renderProvider(providerSchema),
    ...Object.entries(registry.resources).map(([typeName, load]) => renderType('resource', typeName, load().schema)),
    ...Object.entries(registry.dataSources).map(([typeName, load]) => renderType('data-source', typeName, load().schema)),
  ];
  const index = files.map((f) => `export * from './${f.path.slice(BINDINGS_DIR.length + 1, -3)}';`).join('\n');
  return [...files, { path: `${BINDINGS_DIR}/index.ts`, content: `${HEADER('every resource and data source')}\n${index}\n` }];
}

if (require.main === module) {
  const root = packageRoot();
  for (const file of bindingFiles()) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true });
    writeFileSync(join(root, file.path), file.content);
    console.log(`wrote ${file.path}`);
  }
}
