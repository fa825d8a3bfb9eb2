/**
 * Offline installation: a launcher in terraform's implied local mirror and the matching `.terraform.lock.hcl`, so
 * `terraform init` finds the provider with no registry, no CLI configuration and no Go toolchain. Used by the CLI
 * (`agentplatform-provider install`) and, at synth, by the constructs: it lives apart from the provider's
 * runtime, which the constructs never load, and needs only node built-ins and the provider's constants.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_VERSION, packageRoot } from '../provider/constants';

/** Options of {@link installProvider}. */
export interface InstallOptions {
  /** The directory terraform runs in: the mirror goes to `<dir>/terraform.d/plugins`, the lock file to `<dir>`. */
  readonly dir: string;
  /**
   * Node.js executable the launcher runs; a path of this machine, which then ends up in the lock file's hash.
   * @default `node` on the `PATH` terraform runs with (`AGENTPLATFORM_NODE` overrides it when set)
   */
  readonly nodePath?: string;
  /** Script the launcher runs. @default the provider entry point of this package ({@link defaultEntryPoint}) */
  readonly entryPoint?: string;
  /** Provider version to install as. @default the package version */
  readonly version?: string;
  /** Platform directory, `<os>_<arch>` as Go names them. @default this machine's */
  readonly platform?: string;
  /** Also write `<dir>/.terraform.lock.hcl`. @default true */
  readonly writeLockFile?: boolean;
}

/** What {@link installProvider} wrote. */
export interface InstallResult {
  /** Path of the launcher executable. */
  readonly launcherPath: string;
  /** The package directory terraform hashes (the launcher's directory). */
  readonly packageDir: string;
  /** Path of the lock file, when one was written. */
  readonly lockFilePath?: string;
  /** The `h1:` hash of the package, as recorded in the lock file. */
  readonly hash: string;
  /** The installed version. */
  readonly version: string;
}

const GO_OS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows', freebsd: 'freebsd', openbsd: 'openbsd' };
const GO_ARCH: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };

/** This machine's platform as terraform names it, e.g. `linux_amd64`. */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = GO_OS[platform];
  const goArch = GO_ARCH[arch];
  if (!os || !goArch) throw new Error(`terraform has no platform for ${platform}/${arch}`);
  return `${os}_${goArch}`;
}

/**
 * Where the provider's entry point is, from a package root: compiled by `npm run build` in this repository, bundled
 * into one file in the construct packages (`@agentplatform/cdktf`, `@agentplatform/cdktn`).
 */
export const ENTRY_POINTS: readonly (readonly string[])[] = [
  ['dist', 'lib', 'provider', 'main.js'],
  ['provider', 'agentplatform-provider.js'],
];

/** The provider entry point of the package at `root`: the first of {@link ENTRY_POINTS} there, else the compiled one. */
export function defaultEntryPoint(root: string = packageRoot()): string {
  const candidates = ENTRY_POINTS.map((path) => join(root, ...path));
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The file, in the `terraform.d` directory of the configuration (beside `plugins/`, outside the package terraform
 * hashes), that says where the provider's entry point is: its path relative to that `terraform.d`.
 */
export const ENTRY_FILE = 'agentplatform-provider-entry';

/** From the launcher's directory (`terraform.d/plugins/<host>/<namespace>/<type>/<version>/<os>_<arch>`) to `terraform.d`. */
const LAUNCHER_TO_TERRAFORM_D = '../../../../../..';

/**
 * The launcher script. It names no path at all, so it is the same file for every configuration: the entry point is
 * read from {@link ENTRY_FILE} in `terraform.d` of terraform's working directory, else in the `terraform.d` the
 * launcher itself sits in (run from elsewhere); Node.js is the one on the `PATH` unless `nodePath` is given. So a team
 * that commits `.terraform.lock.hcl` gets the same hash on every checkout and CI machine, configurations at any depth
 * get the same launcher, and one that terraform's plugin cache shares runs the provider of the configuration
 * terraform runs in. `NODE_OPTIONS` is cleared because options meant for the user's own tooling (a TypeScript
 * loader, an inspector) would slow down or break every provider launch.
 */
export function launcherScript(nodePath: string | undefined): string {
  return [
    '#!/bin/sh',
    '# Launcher of the agentplatform terraform provider (a Node.js program). Generated: do not edit,',
    '# or update .terraform.lock.hcl too (run `node_modules/.bin/agentplatform-provider install` again).',
    'unset NODE_OPTIONS',
    // quoted apart: quotes inside "${…:-…}" would stay part of the value
    `node=${nodePath === undefined ? 'node' : shellQuote(nodePath)}`,
    'if [ -n "${AGENTPLATFORM_NODE:-}" ]; then node=$AGENTPLATFORM_NODE; fi',
    'command -v "$node" >/dev/null 2>&1 || {',
    '  echo "agentplatform provider: $node (Node.js 20 or later) not found: put node on PATH, or set AGENTPLATFORM_NODE to it" >&2',
    '  exit 127',
    '}',
    `dir="$PWD"/terraform.d`,
    // the launcher's directory without `dirname`, which a PATH without coreutils lacks (terraform runs it by its path)
    `if [ ! -f "$dir"/${ENTRY_FILE} ]; then dir="\${0%/*}"/${LAUNCHER_TO_TERRAFORM_D}; fi`,
    `if [ ! -f "$dir"/${ENTRY_FILE} ]; then`,
    `  echo "agentplatform provider: $PWD/terraform.d/${ENTRY_FILE} is missing: run node_modules/.bin/agentplatform-provider install in $PWD" >&2`,
    '  exit 1',
    'fi',
    // the directory as it is on disk: node resolves `..` in a script's path by its text, and from terraform's symlink
    // to a mirror elsewhere (`.terraform/providers/…` at another depth) that text leads to another folder
    'dir=$(cd -P "$dir" && pwd -P)',
    `IFS= read -r entry < "$dir"/${ENTRY_FILE}`,
    // the line without a carriage return (a file checked out with Windows line ends)
    `cr=$(printf '\\r'); entry=\${entry%"$cr"}`,
    'exec "$node" "$dir/$entry" "$@"',
    '',
  ].join('\n');
}

function writeIfChanged(file: string, text: string): void {
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

/**
 * Writes the launcher into the implied local mirror under `dir`, the place of the entry point into `dir/terraform.d`
 * ({@link ENTRY_FILE}), and, by default, the lock file. Idempotent.
 */
export function installProvider(options: InstallOptions): InstallResult {
  const dir = resolve(options.dir);
  const version = options.version ?? PROVIDER_VERSION;
  const packageDir = join(dir, 'terraform.d', 'plugins', ...PROVIDER_ADDRESS.split('/'), version, options.platform ?? terraformPlatform());
  mkdirSync(packageDir, { recursive: true });
  const launcherPath = join(packageDir, `${PROVIDER_EXECUTABLE_PREFIX}_v${version}`);
  const entryPoint = resolve(options.entryPoint ?? defaultEntryPoint());
  if (!options.entryPoint && !existsSync(entryPoint)) {
    throw new Error(`The provider is not built (${entryPoint} is missing): run "npm run build" in ${packageRoot()} first.`);
  }
  // real paths: a directory reached through a symlink (macOS /tmp) would give a relative path that leads elsewhere
  const realEntry = existsSync(entryPoint) ? realpathSync(entryPoint) : entryPoint;
  const terraformD = realpathSync(join(dir, 'terraform.d'));
  writeIfChanged(join(terraformD, ENTRY_FILE), `${relative(terraformD, realEntry).split(sep).join('/')}\n`);
  writeIfChanged(launcherPath, launcherScript(options.nodePath));
  chmodSync(launcherPath, 0o755);
  const hash = packageHash(packageDir);
  if (options.writeLockFile === false) return { launcherPath, packageDir, hash, version };
  const lockFilePath = join(dir, '.terraform.lock.hcl');
  const existing = existsSync(lockFilePath) ? readFileSync(lockFilePath, 'utf8') : '';
  const updated = mergeLockFile(existing, PROVIDER_ADDRESS, version, [hash]);
  if (updated !== existing) writeFileSync(lockFilePath, updated);
  return { launcherPath, packageDir, lockFilePath, hash, version };
}

/**
 * Terraform's `h1:` package hash (Go's dirhash "Hash1"): one line `<sha256 hex>  <relative path>\n` per file,
 * sorted by path, hashed again with SHA-256 and base64-encoded.
 */
export function packageHash(packageDir: string): string {
  const files = listFiles(packageDir)
    .map((file) => relative(packageDir, file).split(sep).join('/'))
    .sort();
  const summary = files
    .map((name) => {
      if (name.includes('\n')) throw new Error(`file name with a newline: ${JSON.stringify(name)}`);
      return `${createHash('sha256').update(readFileSync(join(packageDir, name))).digest('hex')}  ${name}\n`;
    })
    .join('');
  return `h1:${createHash('sha256').update(summary).digest('base64')}`;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

const LOCK_HEADER = '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n';
const PROVIDER_BLOCK = /^provider "([^"]+)" \{\n[\s\S]*?^\}\n?/gm;

/**
 * A lock file with the entry of `address` set to `version` and `hashes`; the entries of other providers are kept
 * as they are, sorted by address like terraform writes them.
 */
export function mergeLockFile(existing: string, address: string, version: string, hashes: readonly string[]): string {
  const blocks = new Map<string, string>();
  for (const m of existing.matchAll(PROVIDER_BLOCK)) blocks.set(m[1]!, m[0].endsWith('\n') ? m[0] : `${m[0]}\n`);
  const hashLines = [...hashes].sort().map((h) => `    "${h}",\n`).join('');
  blocks.set(address, `provider "${address}" {\n  version = "${version}"\n  hashes = [\n${hashLines}  ]\n}\n`);
  const body = [...blocks.keys()].sort().map((k) => blocks.get(k)!).join('\n');
  return `${LOCK_HEADER}\n${body}`;
}
