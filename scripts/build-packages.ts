/**
 * Builds the two published construct packages from `lib/`, and packs them into `dist/packages/`:
 *
 * - `packages/cdktf` (`@agentplatform/cdktf`): the import closure of `lib/constructs` copied into `src/`, compiled by
 *   jsii into `lib/` and the `.jsii` assembly; the provider and its installer bundled by esbuild into
 *   `provider/agentplatform-provider.js` and `bin/agentplatform-provider.js` (no dependencies: an app installs none
 *   of the provider's); jsii-pacmak's packages for the other languages in `dist/` (see {@link LANGUAGE_TARGETS}).
 * - `packages/cdktn` (`@agentplatform/cdktn`): the same compiled files with `cdktf` and `@cdktf/provider-aws`
 *   replaced by `cdktn` and `@cdktn/provider-aws` in every module specifier.
 *
 * Everything written into `packages/*` besides the committed package.json and README.md is git-ignored.
 * Usage: npm run build:packages
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import { packageRoot } from '../lib/provider/constants';
import { importClosure } from './packages/closure';
import { CDKTN_RENAMES, moduleSpecifiers, packageOf, renameModules } from './packages/module-specifiers';

export type Flavour = 'cdktf' | 'cdktn';

/** What a pacmak target became on this machine: a built package, or its generated code only. */
export interface TargetResult {
  readonly target: string;
  readonly built: boolean;
  readonly why: string;
}

/**
 * The languages besides JavaScript. Java's build needs Maven Central (the jsii runtime and Maven plugins), .NET's and
 * Go's a toolchain the build machine lacks: their code is generated only. Python's wheel is built where pip can
 * install setuptools (see {@link buildPythonWheel}), else its code is generated only.
 */
export const LANGUAGE_TARGETS: readonly { readonly target: string; readonly codeOnlyBecause?: string }[] = [
  { target: 'python' },
  { target: 'java', codeOnlyBecause: 'the Maven build needs Maven Central' },
  { target: 'dotnet', codeOnlyBecause: 'no .NET SDK on the build machine' },
  { target: 'go', codeOnlyBecause: 'no Go toolchain on the build machine' },
];

const ROOT = packageRoot();
const BIN = join(ROOT, 'node_modules', '.bin');

/** The folder of a flavour's package. */
export const packageDir = (flavour: Flavour): string => join(ROOT, 'packages', flavour);

/** The tarball `npm pack` makes of a flavour's package. */
export function tarballPath(flavour: Flavour): string {
  const { version } = JSON.parse(readFileSync(join(packageDir(flavour), 'package.json'), 'utf8')) as { version: string };
  return join(ROOT, 'dist', 'packages', `agentplatform-${flavour}-${version}.tgz`);
}

/** What the build writes into a package folder: all of it git-ignored, all of it removed before a build. */
const BUILT = ['src', 'lib', 'provider', 'bin', 'dist', 'node_modules', '.jsii', 'tsconfig.json', 'tsconfig.tsbuildinfo', 'LICENSE'];

function run(command: string, args: readonly string[], options: SpawnSyncOptions & { cwd: string }): string {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  const output = `${String(result.stdout ?? '')}${String(result.stderr ?? '')}`;
  if (result.status !== 0) {
    throw new Error(`${[command, ...args].join(' ')} (in ${relative(ROOT, options.cwd) || '.'}) failed with ${result.status ?? result.signal}:\n${output}`);
  }
  return output;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Copies the import closure of `lib/constructs` into `packages/cdktf/src`, keeping its paths below `lib/`. */
function copySources(dir: string): string[] {
  const lib = join(ROOT, 'lib');
  const files = importClosure(join(lib, 'constructs', 'index.ts'), lib, join(ROOT, 'tsconfig.json'));
  for (const file of files) {
    mkdirSync(dirname(join(dir, 'src', file)), { recursive: true });
    copyFileSync(join(lib, file), join(dir, 'src', file));
  }
  return files;
}

/**
 * The provider process and its installer CLI, each one CommonJS file with everything it imports. The provider's
 * version is the package version, read from the package.json above the bundle (lib/provider/constants.ts).
 */
function bundleProvider(dir: string): void {
  const common: BuildOptions = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', legalComments: 'inline', logLevel: 'silent' };
  const results = [
    buildSync({ ...common, entryPoints: [join(ROOT, 'lib', 'provider', 'main.ts')], outfile: join(dir, 'provider', 'agentplatform-provider.js') }),
    buildSync({
      ...common,
      stdin: {
        contents: "import { main } from './lib/provider/cli';\nprocess.exitCode = main(process.argv.slice(2));\n",
        resolveDir: ROOT,
        sourcefile: 'agentplatform-provider-cli.ts',
        loader: 'ts',
      },
      banner: { js: '#!/usr/bin/env node' },
      outfile: join(dir, 'bin', 'agentplatform-provider.js'),
    }),
  ];
  // a warning (a module esbuild could not resolve, a construct it cannot carry over) would ship a bundle that fails
  const problems = results.flatMap((result) => [...result.errors, ...result.warnings]);
  if (problems.length > 0) throw new Error(`bundling the provider failed: ${problems.map((problem) => problem.text).join('; ')}`);
  chmodSync(join(dir, 'bin', 'agentplatform-provider.js'), 0o755);
}

/** The license, and the bundled dependencies (`bundledDependencies`) where `npm pack` takes them from. */
function addLicenseAndBundledDependencies(dir: string): void {
  copyFileSync(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bundledDependencies?: string[] };
  for (const name of manifest.bundledDependencies ?? []) {
    cpSync(realpathSync(join(ROOT, 'node_modules', name)), join(dir, 'node_modules', name), { recursive: true });
  }
}

/** Compiles `src/` into `lib/` and the `.jsii` assembly; returns jsii's warnings. */
function compileWithJsii(dir: string): string[] {
  const output = run(join(BIN, 'jsii'), ['--silence-warnings', 'reserved-word'], { cwd: dir });
  if (!existsSync(join(dir, '.jsii'))) throw new Error('jsii wrote no .jsii assembly');
  return output.split('\n').filter((line) => /\bwarning JSII\d+/.test(line));
}

/** jsii-pacmak's JavaScript package, then every other language: built where this machine can, else code only. */
function generateLanguagePackages(dir: string): TargetResult[] {
  const pacmak = (args: readonly string[]): string => run(join(BIN, 'jsii-pacmak'), ['--no-npmignore', '--force', ...args], { cwd: dir });
  pacmak(['--targets', 'js']);
  const results: TargetResult[] = [{ target: 'js', built: true, why: 'npm pack' }];
  pacmak(['--code-only', '--targets', ...LANGUAGE_TARGETS.map((t) => t.target)]);
  for (const { target, codeOnlyBecause } of LANGUAGE_TARGETS) {
    if (!existsSync(join(dir, 'dist', target))) throw new Error(`jsii-pacmak generated no ${target} package`);
    if (codeOnlyBecause) results.push({ target, built: false, why: codeOnlyBecause });
    else results.push(buildPythonWheel(dir));
  }
  return results;
}

/**
 * The wheel, built in a virtual environment of the machine's Python with setuptools (>= 70.1 builds wheels by
 * itself) from the package indexes pip is configured with, and then no index at all. pacmak's own build would ask
 * PyPI for the exact versions of its build tools, which a machine without PyPI lacks. When no setuptools can be
 * installed, the generated code stays as it is.
 */
function buildPythonWheel(dir: string): TargetResult {
  const python = join(dir, 'dist', 'python');
  if (!existsSync(join(python, 'setup.py'))) return { target: 'python', built: false, why: 'jsii-pacmak wrote no setup.py' };
  const venv = mkdtempSync(join(tmpdir(), 'agentplatform-wheel-'));
  try {
    const step = (command: string, args: readonly string[]): string | undefined => {
      const result = spawnSync(command, args, { cwd: python, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (result.status === 0) return undefined;
      return `${String(result.stderr ?? '')}${String(result.stdout ?? '')}`.trim().split('\n').filter(Boolean).pop() ?? `exit ${result.status}`;
    };
    const bin = join(venv, 'bin', 'python');
    const failed =
      step('python3', ['-m', 'venv', venv]) ??
      step(bin, ['-m', 'pip', 'install', '--quiet', '--retries', '0', '--timeout', '10', 'setuptools>=70.1']) ??
      step(bin, ['-m', 'pip', 'wheel', '--quiet', '--no-deps', '--no-index', '--no-build-isolation', '--wheel-dir', python, python]);
    if (failed) return { target: 'python', built: false, why: `no wheel built here: ${failed}` };
    return { target: 'python', built: true, why: 'wheel built with pip, no build isolation' };
  } finally {
    rmSync(venv, { recursive: true, force: true });
    rmSync(join(python, 'build'), { recursive: true, force: true });
  }
}

/** The cdktn flavour: the cdktf package's compiled files and bundles, with the modules of cdktf renamed. */
function buildCdktn(from: string, to: string): void {
  for (const folder of ['provider', 'bin']) cpSync(join(from, folder), join(to, folder), { recursive: true });
  for (const file of filesUnder(join(from, 'lib'))) {
    if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue;
    const target = join(to, relative(from, file));
    mkdirSync(dirname(target), { recursive: true });
    const text = renameModules(readFileSync(file, 'utf8'), CDKTN_RENAMES);
    const left = moduleSpecifiers(text).filter((specifier) => packageOf(specifier.name) in CDKTN_RENAMES);
    if (left.length > 0) throw new Error(`${relative(to, target)} still imports ${left.map((s) => s.name).join(', ')}`);
    writeFileSync(target, text);
  }
}

function pack(dir: string, flavour: Flavour): string {
  const out = dirname(tarballPath(flavour));
  mkdirSync(out, { recursive: true });
  rmSync(tarballPath(flavour), { force: true });
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', out], { cwd: dir });
  if (!existsSync(tarballPath(flavour))) throw new Error(`npm pack wrote no ${tarballPath(flavour)}`);
  return tarballPath(flavour);
}

/** Builds and packs both flavours; returns the tarballs and what became of each language target. */
export function buildPackages(log: (line: string) => void = () => undefined): { tarballs: Record<Flavour, string>; targets: TargetResult[] } {
  const cdktf = packageDir('cdktf');
  const cdktn = packageDir('cdktn');
  for (const dir of [cdktf, cdktn]) for (const name of BUILT) rmSync(join(dir, name), { recursive: true, force: true });
  const sources = copySources(cdktf);
  log(`sources: ${sources.length} files of lib/ (the import closure of lib/constructs)`);
  bundleProvider(cdktf);
  for (const dir of [cdktf, cdktn]) addLicenseAndBundledDependencies(dir);
  const warnings = compileWithJsii(cdktf);
  log(`jsii: .jsii assembly and lib/, ${warnings.length} warnings${warnings.map((warning) => `\n  ${warning}`).join('')}`);
  const targets = generateLanguagePackages(cdktf);
  for (const t of targets) log(`jsii-pacmak ${t.target}: ${t.built ? 'built' : 'code only'} (${t.why})`);
  buildCdktn(cdktf, cdktn);
  const tarballs = { cdktf: pack(cdktf, 'cdktf'), cdktn: pack(cdktn, 'cdktn') };
  log(`packed: ${relative(ROOT, tarballs.cdktf)}, ${relative(ROOT, tarballs.cdktn)}`);
  return { tarballs, targets };
}

if (require.main === module) {
  try {
    buildPackages((line) => process.stdout.write(`${line}\n`));
  } catch (err) {
    process.stderr.write(`build:packages: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
