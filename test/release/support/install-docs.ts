/**
 * The installation section of docs/provider.md, read as a user reads it: its headings and its code blocks, with the
 * placeholders (`<mirror dir>`, written in angle brackets) filled in. Tests run these blocks as they stand, so the
 * instructions cannot drift from what works.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../lib/provider/constants';

/** One fenced code block: its language and its text (ending in a newline). */
export interface CodeBlock {
  readonly lang: string;
  readonly text: string;
}

/** The installation section of docs/provider.md: from `## Installation` to the next `## ` heading. */
export function installationSection(markdown: string = readFileSync(join(packageRoot(), 'docs', 'provider.md'), 'utf8')): string {
  const start = markdown.indexOf('\n## Installation\n');
  if (start < 0) throw new Error('docs/provider.md has no "## Installation" section');
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start + 1, end < 0 ? undefined : end + 1);
}

/** The `###` headings of a section, in order. */
export function subheadings(section: string): string[] {
  return [...section.matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
}

/** Every fenced code block of a section, in order. */
export function codeBlocks(section: string): CodeBlock[] {
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

/** The one block of `lang` containing `marker`; throws unless there is exactly one. */
export function theBlock(blocks: readonly CodeBlock[], lang: string, marker: string): string {
  const found = blocks.filter((b) => b.lang === lang && b.text.includes(marker));
  if (found.length !== 1) throw new Error(`expected one ${lang} block containing ${JSON.stringify(marker)} in the installation section, found ${found.length}`);
  return found[0]!.text;
}

const PLACEHOLDER = /<[a-z][a-z ]*>/g;

/** `text` with each placeholder `<name>` replaced by `values[name]`; throws when one is left without a value. */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (placeholder) => {
    const value = values[placeholder.slice(1, -1)];
    if (value === undefined) throw new Error(`no value for the placeholder ${placeholder} in:\n${text}`);
    return value;
  });
}
