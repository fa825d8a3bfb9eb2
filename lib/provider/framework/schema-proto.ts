/**
 * Derives the tfplugin6 `Schema` message from a declarative {@link Schema}, and checks a definition for the
 * combinations terraform rejects (so a mistake fails a unit test instead of a user's `terraform plan`).
 */
import type { ProtoMessage } from '../plugin/protobuf';
import { typeToJson } from '../cty/types';
import { attributeType, type Attribute, type Attributes, type BlockDefinition, type Schema } from './schema';

const MARKDOWN = 1;
const OBJECT_NESTING = { single: 1, list: 2, set: 3, map: 4 } as const;
const BLOCK_NESTING = { single: 1, list: 2, set: 3 } as const;

/** The tfplugin6 `Schema` message of a schema. */
export function schemaToProto(schema: Schema): ProtoMessage {
  return { version: schema.version, block: blockToProto(schema.attributes, schema.description) };
}

function blockToProto(attributes: Attributes, description: string): ProtoMessage {
  const entries = Object.entries(attributes);
  return {
    version: 0,
    attributes: entries.flatMap(([name, a]) => (a.kind === 'block' ? [] : [attributeToProto(name, a)])),
    block_types: entries
      .filter((e): e is [string, BlockDefinition<'single' | 'list' | 'set', Attributes>] => e[1].kind === 'block')
      .map(([name, b]) => ({
        type_name: name,
        block: blockToProto(b.attributes, b.description),
        nesting: BLOCK_NESTING[b.nesting],
        min_items: b.minItems ?? 0,
        max_items: b.maxItems ?? 0,
      })),
    description,
    description_kind: MARKDOWN,
  };
}

function attributeToProto(name: string, a: Exclude<Attribute, { kind: 'block' }>): ProtoMessage {
  const common = {
    name,
    description: a.description,
    description_kind: MARKDOWN,
    required: !!a.required,
    optional: !!a.optional,
    computed: !!a.computed,
    sensitive: !!a.sensitive,
    deprecated: !!a.deprecated,
    write_only: !!a.writeOnly,
  };
  if (a.kind === 'nested') {
    const nested = Object.entries(a.attributes).map(([n, inner]) => {
      if (inner.kind === 'block') throw new Error(`${name}.${n}: blocks cannot be nested in attributes`);
      return attributeToProto(n, inner);
    });
    return { ...common, nested_type: { attributes: nested, nesting: OBJECT_NESTING[a.nesting] } };
  }
  return { ...common, type: Buffer.from(JSON.stringify(typeToJson(attributeType(a)))) };
}

/** Everything wrong with a schema definition (empty when it is well-formed). */
export function schemaProblems(schema: Schema, kind: 'resource' | 'data source' | 'provider'): string[] {
  const problems: string[] = [];
  const visit = (attributes: Attributes, prefix: string): void => {
    for (const [name, a] of Object.entries(attributes)) {
      const path = `${prefix}${name}`;
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) problems.push(`${path}: names are lower_snake_case`);
      if (!a.description.trim()) problems.push(`${path}: missing description`);
      if (a.kind === 'block') {
        visit(a.attributes, `${path}.`);
        continue;
      }
      const modes = [a.required, a.optional, a.computed].filter(Boolean).length;
      if (modes === 0) problems.push(`${path}: set one of required, optional, computed`);
      if (a.required && (a.optional || a.computed)) problems.push(`${path}: required excludes optional and computed`);
      if (a.writeOnly && kind !== 'resource') problems.push(`${path}: write-only attributes exist only in resources`);
      if (a.writeOnly && (a.computed || a.requiresReplace)) problems.push(`${path}: write-only cannot be computed or force replacement`);
      if ('default' in a && a.default !== undefined && !(a.optional && a.computed)) {
        problems.push(`${path}: a default needs optional and computed`);
      }
      if (a.useStateForUnknown && !a.computed) problems.push(`${path}: useStateForUnknown needs computed`);
      if (a.kind === 'nested') visit(a.attributes, `${path}.`);
    }
  };
  visit(schema.attributes, '');
  return problems;
}
