/**
 * The construct packages' tarballs (`npm run build:packages`, which `npm test` runs before jest). When a test runs
 * alone and a tarball is missing or older than what it is built from (`lib/`, `scripts/`, the packages' committed
 * metadata), this builds both packages again: first `dist/` when the build script there is stale, then the packages.
 * A lock directory keeps parallel test files from building at the same time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageDir, tarballPath, type Flavour } from '../../scripts/build-packages';
import { REPO_ROOT, newestSourceMtime } from '../local/support/build';

export type { Flavour };

/** The folder of a flavour's package in this repository (its built files are there after a build). */
export const packageFolder = packageDir;

const BUILD_SCRIPT = join(REPO_ROOT, 'dist', 'scripts', 'build-packages.js');
const LOCK_DIR = join(REPO_ROOT, 'dist', '.packages-build.lock');
const STALE_LOCK_MS = 15 * 60_000;

const mtime = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/** The newest of the files the packages are built from. */
function newestInput(): number {
  const metadata = (['cdktf', 'cdktn'] as const).flatMap((flavour) => ['package.json', 'README.md'].map((name) => mtime(join(packageFolder(flavour), name))));
  return Math.max(newestSourceMtime(join(REPO_ROOT, 'lib')), newestSourceMtime(join(REPO_ROOT, 'scripts')), mtime(join(REPO_ROOT, 'LICENSE')), ...metadata);
}

const isFresh = (flavour: Flavour): boolean => mtime(tarballPath(flavour)) >= newestInput();

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function build(): void {
  const run = (command: string, args: readonly string[]): void => {
    execFileSync(command, [...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  };
  if (mtime(BUILD_SCRIPT) < Math.max(newestSourceMtime(join(REPO_ROOT, 'scripts')), newestSourceMtime(join(REPO_ROOT, 'lib')))) run('npm', ['run', 'build']);
  run(process.execPath, [BUILD_SCRIPT]);
}

/** The path of a flavour's tarball, built first when it is missing or stale. */
export function packageTarball(flavour: Flavour): string {
  if (isFresh(flavour)) return tarballPath(flavour);
  mkdirSync(dirname(LOCK_DIR), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      break;
    } catch {
      if (Date.now() - (mtime(LOCK_DIR) || Date.now()) > STALE_LOCK_MS) rmSync(LOCK_DIR, { recursive: true, force: true });
      sleep(500);
    }
  }
  try {
    if (!isFresh(flavour)) build();
  } finally {
    rmSync(LOCK_DIR, { recursive: true, force: true });
  }
  if (!existsSync(tarballPath(flavour))) throw new Error(`npm run build:packages wrote no ${tarballPath(flavour)}`);
  return tarballPath(flavour);
}
