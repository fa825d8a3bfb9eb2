/**
 * The shape contributors rely on (CONTRIBUTING.md): no file of `lib/` over 400 lines (the construct bindings that
 * `npm run generate:bindings` writes under `lib/constructs/generated/` aside: nobody edits them), and no import circle between
 * the modules of `lib/` (a part of a resource depends on its schema and model, never back on the file that assembles
 * them). Imports are found and resolved by the TypeScript compiler, type-only imports included: a circle of types
 * still ties the files together for a reader.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const LIB = join(__dirname, '..', '..', 'lib');
const MAX_LINES = 400;
const GENERATED = join(LIB, 'constructs', 'generated');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each module of `lib/` with the modules of `lib/` it imports. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
  const host = ts.createCompilerHost(options);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    const targets = imported
      .map((ref) => ts.resolveModuleName(ref.fileName, file, options, host).resolvedModule)
      .filter((resolved): resolved is ts.ResolvedModuleFull => resolved !== undefined && !resolved.isExternalLibraryImport)
      .map((resolved) => resolved.resolvedFileName)
      .filter((target) => target.startsWith(LIB));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one module (or a module importing itself): Tarjan's algorithm. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.map((f) => relative(LIB, f)).sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = sourceFiles(LIB);

describe('the shape of lib/', () => {
  test('finds the modules and their imports', () => {
    const graph = importGraph(files);
    expect(files.length).toBeGreaterThan(100);
    // a known import, so that a resolver that finds nothing cannot pass the circle test
    expect(graph.get(join(LIB, 'provider', 'registry.ts'))).toContain(join(LIB, 'provider', 'framework', 'resource.ts'));
  });

  test('the circle finder finds a circle', () => {
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(circles(graph).map((c) => c.length)).toEqual([3]);
  });

  test('no import circles', () => {
    expect(circles(importGraph(files))).toEqual([]);
  });

  test(`no file over ${MAX_LINES} lines`, () => {
    const long = files
      .filter((file) => !file.startsWith(GENERATED))
      .map((file) => ({ file: relative(LIB, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
