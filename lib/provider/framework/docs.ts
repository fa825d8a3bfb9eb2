/**
 * Documentation derived from schemas, in the Terraform registry's layout (`docs/resources/<name>.md`,
 * `docs/data-sources/<name>.md`): an attribute table per object, nested objects in their own sections.
 */
import { typeName } from '../cty/types';
import { attributeType, type Attribute, type Attributes, type Schema } from './schema';

/** A page of documentation. */
export interface DocPage {
  /** Resource or data source. */
  readonly kind: 'resource' | 'data-source' | 'provider';
  /** Terraform type name (`agentplatform_deployment`), or the provider name for the provider page. */
  readonly typeName: string;
  /** The schema documented. */
  readonly schema: Schema;
  /** HCL examples, shown under "Example Usage". */
  readonly examples?: readonly string[];
  /** How to import, in markdown (resources). */
  readonly importSection?: string;
  /**
   * What the resource does beyond its attributes (waits, retries, look-ups, what is sent when), in markdown, shown
   * under "Behaviour" after the attribute tables: the details an attribute's short description links to.
   */
  readonly behaviour?: string;
}

/** What a resource's or data source's doc pages add to its schema (each area's `docs.ts`, by type name). */
export type DocPageExtras = Pick<DocPage, 'examples' | 'importSection' | 'behaviour'>;

/** A family's pages beyond what the schemas give, by type name. */
export type FamilyDocPages = Readonly<Record<string, DocPageExtras>>;

const KIND_TITLE = { resource: 'Resource', 'data-source': 'Data Source', provider: 'Provider' } as const;

/** A full page: front matter, description, examples, attribute tables, the behaviour and the import section. */
export function renderDocPage(page: DocPage): string {
  const title = page.kind === 'provider' ? `${page.typeName} Provider` : `${page.typeName} (${KIND_TITLE[page.kind]})`;
  const summary = page.schema.description.split('\n')[0]!;
  const parts = [
    `---\npage_title: "${page.typeName} ${KIND_TITLE[page.kind]} - agentplatform"\nsubcategory: ""\ndescription: |-\n  ${summary}\n---`,
    `# ${title}`,
    page.schema.description,
  ];
  if (page.examples?.length) {
    parts.push('## Example Usage', ...page.examples.map((e) => '```terraform\n' + e.trim() + '\n```'));
  }
  parts.push('## Schema', attributeTables(page.schema.attributes));
  if (page.behaviour) parts.push('## Behaviour', page.behaviour.trim());
  if (page.importSection) parts.push('## Import', page.importSection.trim());
  return parts.join('\n\n') + '\n';
}

/** The attribute table of `attributes`, followed by one section per nested object. */
export function attributeTables(attributes: Attributes, heading = '###'): string {
  const sections: string[] = [];
  const table = (attrs: Attributes, prefix: string): string => {
    const rows = Object.entries(attrs).map(([name, a]) => {
      const path = prefix ? `${prefix}.${name}` : name;
      if (a.kind === 'nested' || a.kind === 'block') {
        // The slot is taken before the nested table is built, so an object's section comes before those nested in it.
        const slot = sections.push('') - 1;
        sections[slot] = `${heading} Nested schema for \`${path}\`\n\n${table(a.attributes, path)}`;
      }
      return `| \`${name}\` | ${typeLabel(a, path)} | ${usage(a)} | ${cell(notes(a))} |`;
    });
    return ['| Name | Type | Use | Description |', '|---|---|---|---|', ...rows].join('\n');
  };
  const main = table(attributes, '');
  return [main, ...sections].join('\n\n');
}

function anchor(path: string): string {
  return `#nested-schema-for-${path.replace(/\./g, '')}`;
}

function typeLabel(a: Attribute, path: string): string {
  if (a.kind === 'nested' || a.kind === 'block') {
    const shape = a.nesting === 'single' ? (a.kind === 'block' ? 'Block' : 'Object') : `${capitalize(a.nesting)} of objects`;
    return `${shape} ([see below](${anchor(path)}))`;
  }
  return capitalize(typeName(attributeType(a)));
}

function usage(a: Attribute): string {
  if (a.kind === 'block') return a.minItems ? 'required' : 'optional';
  if (a.required) return 'required';
  if (a.optional && a.computed) return 'optional, computed';
  return a.optional ? 'optional' : 'computed';
}

function notes(a: Attribute): string {
  const out = [a.description.trim()];
  if ('oneOf' in a && a.oneOf) out.push(`One of: ${a.oneOf.map((v) => `\`${v}\``).join(', ')}.`);
  if ('default' in a && a.default !== undefined) out.push(`Default: \`${JSON.stringify(a.default)}\`.`);
  if ('min' in a && a.min !== undefined) out.push(`At least ${a.min}.`);
  if ('max' in a && a.max !== undefined) out.push(`At most ${a.max}.`);
  if (a.requiresReplace) out.push('Changing it replaces the resource.');
  if (a.kind !== 'block') {
    if (a.writeOnly) out.push('Write-only: sent to the API, never stored in plan or state (terraform >= 1.11).');
    else if (a.sensitive) out.push('Sensitive.');
    if (a.deprecated) out.push(`**Deprecated**: ${a.deprecated}`);
  }
  return out.filter(Boolean).join(' ');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
