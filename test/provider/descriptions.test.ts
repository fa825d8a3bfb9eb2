/**
 * Attribute descriptions a reader can scan: every description of the provider block, of each resource and of each
 * data source, nested ones included, says what the attribute is in at most 40 words; the details are in the page's
 * Behaviour section, and every link a description makes to a section of the docs finds that section.
 */
import type { Attributes } from '../../lib/provider/framework/schema';
import { providerSchema } from '../../lib/provider/provider-config';
import { registry } from '../../lib/provider/registry';
import { providerDocFiles } from '../../scripts/generate-provider-docs';

const MAX_WORDS = 40;

/** Every attribute of `attributes`, nested ones too, by its path. */
function descriptions(attributes: Attributes, prefix = ''): [string, string][] {
  return Object.entries(attributes).flatMap(([name, attribute]) => {
    const path = `${prefix}${name}`;
    const own: [string, string] = [path, attribute.description];
    return 'attributes' in attribute ? [own, ...descriptions(attribute.attributes as Attributes, `${path}.`)] : [own];
  });
}

/** The attributes of the provider block, every resource and every data source, with the doc file each is shown in. */
function documented(): { file: string; path: string; description: string }[] {
  const of = (file: string, attributes: Attributes) => descriptions(attributes).map(([path, description]) => ({ file, path, description }));
  const short = (typeName: string): string => typeName.replace(/^agentplatform_/, '');
  return [
    ...of('docs/provider.md', providerSchema.attributes),
    ...Object.entries(registry.resources).flatMap(([typeName, load]) => of(`docs/resources/${short(typeName)}.md`, load().schema.attributes)),
    ...Object.entries(registry.dataSources).flatMap(([typeName, load]) => of(`docs/data-sources/${short(typeName)}.md`, load().schema.attributes)),
  ];
}

/** The anchors of a markdown page's headings, as GitHub and the registry make them. */
function anchors(markdown: string): Set<string> {
  const headings = markdown.split('\n').filter((line) => /^#{1,6} /.test(line));
  return new Set(headings.map((line) => line.replace(/^#+ /, '').toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')));
}

describe('attribute descriptions', () => {
  const all = documented();

  it('covers the provider block, the resources and the data sources', () => {
    const files = new Set(all.map((d) => d.file));
    expect(files).toContain('docs/provider.md');
    expect(files).toContain('docs/resources/deployment.md');
    expect(files).toContain('docs/data-sources/revisions.md');
    expect(all.find((d) => d.file === 'docs/resources/deployment.md' && d.path === 'resource_spec.min_scale')).toBeDefined();
  });

  it(`are at most ${MAX_WORDS} words each`, () => {
    const words = (text: string): number => text.trim().split(/\s+/).filter(Boolean).length;
    const long = all.filter((d) => words(d.description) > MAX_WORDS).map((d) => `${d.file} ${d.path}: ${words(d.description)} words`);
    expect(long).toEqual([]);
  });

  it('link only to sections the docs have', () => {
    const pages = new Map(providerDocFiles().map((f) => [f.path, anchors(f.content)]));
    const broken: string[] = [];
    for (const { file, path, description } of all) {
      for (const [, target, anchor] of description.matchAll(/\]\(([^)#]*)#([^)]+)\)/g)) {
        const page = target ? `docs/${target.replace(/^\.\.\//, '')}` : file;
        if (!pages.get(page)?.has(anchor!)) broken.push(`${file} ${path}: ${target}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
    expect(all.some((d) => d.description.includes('(#behaviour)'))).toBe(true);
  });
});
