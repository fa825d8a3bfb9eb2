/**
 * The construct packages' tarballs (`npm run build:packages`, which `npm test` runs before jest). When a test runs
 * alone and a tarball is missing or older than what it is built from (`lib/`, `scripts/`, the packages' committed
 * metadata), this builds both packages again (test/support/stale-build.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir, tarballPath, type Flavour } from '../../scripts/build-packages';
import { REPO_ROOT, newestSourceMtime } from '../local/support/build';
import { buildWhenStale, mtime } from './stale-build';

export type { Flavour };

/** The folder of a flavour's package in this repository (its built files are there after a build). */
export const packageFolder = packageDir;

const BUILD_SCRIPT = join(REPO_ROOT, 'dist', 'scripts', 'build-packages.js');
const LOCK_DIR = join(REPO_ROOT, 'dist', '.packages-build.lock');
const STALE_LOCK_MS = 15 * 60_000;

/** The newest of the files the packages are built from. */
function newestInput(): number {
  const metadata = (['cdktf', 'cdktn'] as const).flatMap((flavour) => ['package.json', 'README.md'].map((name) => mtime(join(packageFolder(flavour), name))));
  return Math.max(newestSourceMtime(join(REPO_ROOT, 'lib')), newestSourceMtime(join(REPO_ROOT, 'scripts')), mtime(join(REPO_ROOT, 'LICENSE')), ...metadata);
}

const isFresh = (flavour: Flavour): boolean => mtime(tarballPath(flavour)) >= newestInput();

/** The path of a flavour's tarball, built first when it is missing or stale. */
export function packageTarball(flavour: Flavour): string {
  buildWhenStale({ script: BUILD_SCRIPT, lockDir: LOCK_DIR, staleLockMs: STALE_LOCK_MS, isFresh: () => isFresh(flavour) });
  if (!existsSync(tarballPath(flavour))) throw new Error(`npm run build:packages wrote no ${tarballPath(flavour)}`);
  return tarballPath(flavour);
}
