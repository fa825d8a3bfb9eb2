/**
 * The CLI runs from `dist/` (`bin/agentplatform-local.js` requires the compiled code). `npm test` builds first;
 * when the tests run alone and the sources are newer than `dist/lib/local/cli.js`, this compiles the CLI and what
 * it imports with the options of `tsconfig.build.json`. A lock directory keeps parallel test files from compiling
 * at the same time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** The repository root. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
/** The CLI's launcher. */
export const CLI_BIN = path.join(REPO_ROOT, 'bin', 'agentplatform-local.js');

const CLI_JS = path.join(REPO_ROOT, 'dist', 'lib', 'local', 'cli.js');
const LOCK_DIR = path.join(REPO_ROOT, 'dist', '.local-platform-build.lock');
const STALE_LOCK_MS = 120_000;

/** The newest modification time of the TypeScript sources under `dir`. */
export function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const isFresh = (): boolean =>
  fs.existsSync(CLI_JS) &&
  fs.statSync(CLI_JS).mtimeMs >=
    Math.max(
      newestSourceMtime(path.join(REPO_ROOT, 'lib', 'local')),
      newestSourceMtime(path.join(REPO_ROOT, 'lib', 'api')),
    );

function compileCli(): void {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(REPO_ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('cannot read tsconfig.build.json');
  const program = ts.createProgram([path.join(REPO_ROOT, 'lib', 'local', 'cli.ts')], parsed.options);
  if (program.emit().emitSkipped) throw new Error('compiling the local platform CLI emitted nothing');
}

/** Makes sure `dist/` holds a CLI compiled from the current sources. */
export async function ensureCliBuilt(): Promise<void> {
  if (isFresh()) return;
  fs.mkdirSync(path.dirname(LOCK_DIR), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      break;
    } catch {
      const age = Date.now() - (fs.statSync(LOCK_DIR, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (!isFresh()) compileCli();
  } finally {
    fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}
