/**
 * Making a Node.js single executable application (SEA) from the provider bundle, Node's documented steps done on
 * the Linux build machine for any target platform: the official `node` of the pinned version from the npm registry,
 * a prepared blob made by the Linux x64 `node` of the same version, and the blob injected with postject.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../../lib/provider/constants';
import { NODE_PACKAGES, RELEASE_NODE_VERSION, SEA_MACHO_SEGMENT, SEA_RESOURCE_NAME, SEA_SENTINEL_FUSE, type ReleasePlatform } from './node-packages';

// found from the package, not from this file, so that it is the same run from `scripts/` or compiled in `dist/`
const ROOT = packageRoot();

/** Where the downloaded Node binaries are kept between builds (git-ignored). */
export const NODE_CACHE = join(ROOT, '.cache', 'release', `node-${RELEASE_NODE_VERSION}`);

/**
 * The platform's official `node` executable of the pinned version, downloaded once with `npm pack` (which checks the
 * tarball against the registry's integrity hash) and kept in {@link NODE_CACHE}. Returns its path.
 */
export function nodeExecutable(platform: ReleasePlatform): string {
  const { name, executable } = NODE_PACKAGES[platform];
  const dir = join(NODE_CACHE, platform);
  const path = join(dir, executable);
  if (existsSync(path)) return path;
  const staging = `${dir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `${name}@${RELEASE_NODE_VERSION}`, '--pack-destination', staging, '--silent'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
  execFileSync('tar', ['-xzf', join(staging, tarball), '-C', staging, executable]);
  rmSync(join(staging, tarball));
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return path;
}

/** Options of {@link makeSeaBlob}. */
export interface SeaBlobOptions {
  /** The main script (CommonJS, everything bundled). */
  readonly main: string;
  /** Asset key to file path, read in the executable with `require('node:sea').getAsset(key)`. */
  readonly assets?: Readonly<Record<string, string>>;
  /** Store V8's code cache of the main script: only for a blob that runs on the build platform (linux_amd64). */
  readonly useCodeCache?: boolean;
  /** Where the blob is written. */
  readonly output: string;
}

/** Writes the prepared blob with the Linux x64 `node` of the pinned version (a blob must come from the same version). */
export function makeSeaBlob(options: SeaBlobOptions): string {
  const config = `${options.output}.sea-config.json`;
  writeFileSync(
    config,
    JSON.stringify({
      main: options.main,
      output: options.output,
      disableExperimentalSEAWarning: true,
      useCodeCache: options.useCodeCache ?? false,
      useSnapshot: false,
      assets: options.assets ?? {},
    }),
  );
  try {
    execFileSync(nodeExecutable('linux_amd64'), ['--experimental-sea-config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(config, { force: true });
  }
  return options.output;
}

/**
 * Copies the platform's `node` (or `source`, a copy already prepared, for example with its signature removed) to
 * `output` and injects the blob; `output` may be `source` itself. The signature of a macOS or Windows binary is not
 * handled here: the release removes it before and signs after (scripts/release/build-release.ts).
 */
export async function injectSeaBlob(platform: ReleasePlatform, blob: string, output: string, source = nodeExecutable(platform)): Promise<string> {
  if (resolve(source) !== resolve(output)) copyFileSync(source, output);
  chmodSync(output, 0o755);
  const { inject } = require('postject') as {
    inject(file: string, name: string, data: Buffer, options: { sentinelFuse: string; machoSegmentName?: string; overwrite?: boolean }): Promise<void>;
  };
  // postject prints warnings about ELF note names for the Linux binaries; Node's documentation calls them harmless
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    await inject(output, SEA_RESOURCE_NAME, readFileSync(blob), {
      sentinelFuse: SEA_SENTINEL_FUSE,
      ...(platform.startsWith('darwin') ? { machoSegmentName: SEA_MACHO_SEGMENT } : {}),
    });
  } finally {
    console.warn = warn;
  }
  return output;
}
