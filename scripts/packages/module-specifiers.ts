/**
 * The module specifiers of compiled JavaScript and declaration files (`require("x")`, `import … from "x"`,
 * `import("x")`, `export … from "x"`), found by TypeScript's own pre-processor, and their rewriting: the CDK Terrain
 * flavour is the cdktf one with `cdktf` and `@cdktf/provider-aws` replaced by their forks.
 */
import ts from 'typescript';

/** A module specifier and where it sits in the text (the quotes excluded). */
export interface ModuleSpecifier {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** Every module specifier of a JavaScript or declaration file's text. */
export function moduleSpecifiers(text: string): ModuleSpecifier[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((file) => {
    // `pos` is the opening quote's position
    const start = file.pos + 1;
    const end = start + file.fileName.length;
    if (text.slice(start, end) !== file.fileName) throw new Error(`module specifier ${JSON.stringify(file.fileName)} is not where TypeScript places it`);
    return { name: file.fileName, start, end };
  });
}

/** The package a specifier names: `@scope/name` or `name`, without a subpath. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Module renames of the CDK Terrain flavour, by package name (a subpath is kept). */
export const CDKTN_RENAMES: Readonly<Record<string, string>> = {
  cdktf: 'cdktn',
  '@cdktf/provider-aws': '@cdktn/provider-aws',
};

/** `text` with the package of every specifier that `renames` names replaced, its subpath kept. */
export function renameModules(text: string, renames: Readonly<Record<string, string>>): string {
  let out = '';
  let at = 0;
  for (const specifier of moduleSpecifiers(text).sort((a, b) => a.start - b.start)) {
    const pkg = packageOf(specifier.name);
    const renamed = renames[pkg];
    if (renamed === undefined) continue;
    out += text.slice(at, specifier.start) + renamed + specifier.name.slice(pkg.length);
    at = specifier.end;
  }
  return out + text.slice(at);
}
