/**
 * The import closure of a TypeScript entry point: every source file of ours the compiler loads for it, found by the
 * TypeScript API with the repository's own compiler options, so the construct package's sources follow the imports
 * of `lib/constructs` as they change instead of a list kept by hand.
 */
import { relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The files under `sourceRoot` that `entry` imports, directly or through others (type-only imports included: the
 * compiler needs them), as paths relative to `sourceRoot`, sorted.
 */
export function importClosure(entry: string, sourceRoot: string, tsconfigPath: string): string[] {
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  };
  const config = ts.getParsedCommandLineOfConfigFile(tsconfigPath, {}, host);
  if (!config) throw new Error(`cannot read ${tsconfigPath}`);
  const program = ts.createProgram({ rootNames: [resolve(entry)], options: { ...config.options, noEmit: true } });
  const root = resolve(sourceRoot);
  return program
    .getSourceFiles()
    .map((file) => resolve(file.fileName))
    .filter((file) => file.startsWith(root + sep) && !file.split(sep).includes('node_modules') && !file.endsWith('.d.ts'))
    .map((file) => relative(root, file).split(sep).join('/'))
    .sort();
}
