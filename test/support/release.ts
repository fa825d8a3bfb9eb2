/**
 * The provider release (`npm run release:provider`, which `npm test` runs before jest). When a test runs alone and
 * the release is missing, lacks a platform, or is older than what it is built from (`lib/`, `scripts/`,
 * package.json), this builds it again: first `dist/` when the release script there is stale, then the release. A
 * lock directory keeps parallel test files from building at the same time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT, newestSourceMtime } from '../local/support/build';

const RELEASE_SCRIPT = join(REPO_ROOT, 'dist', 'scripts', 'release', 'release-provider.js');
const LOCK_DIR = join(REPO_ROOT, 'dist', '.release-build.lock');
const STALE_LOCK_MS = 20 * 60_000;
const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64'];

/** The version a release is built as: the root package's. */
export const releaseVersion = (): string => (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const dir = (): string => join(REPO_ROOT, 'dist', 'release', releaseVersion());

const mtime = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

const newestInput = (): number =>
  Math.max(newestSourceMtime(join(REPO_ROOT, 'lib')), newestSourceMtime(join(REPO_ROOT, 'scripts')), mtime(join(REPO_ROOT, 'package.json')));

/** Complete (every platform in the mirror document) and newer than its inputs. */
function isFresh(): boolean {
  const document = join(dir(), `${releaseVersion()}.json`);
  if (mtime(document) < newestInput()) return false;
  const archives = (JSON.parse(readFileSync(document, 'utf8')) as { archives: Record<string, { url: string }> }).archives;
  return PLATFORMS.every((platform) => archives[platform] && existsSync(join(dir(), archives[platform].url)));
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function build(): void {
  const run = (command: string, args: readonly string[]): void => {
    execFileSync(command, [...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  };
  if (mtime(RELEASE_SCRIPT) < Math.max(newestSourceMtime(join(REPO_ROOT, 'scripts')), newestSourceMtime(join(REPO_ROOT, 'lib')))) run('npm', ['run', 'build']);
  run(process.execPath, [RELEASE_SCRIPT]);
}

/**
 * The built release folder, `dist/release/<version>/`, built first when it is missing, incomplete or stale (a full
 * build takes minutes: call it from a `beforeAll` with a timeout to match).
 */
export function releaseDir(): string {
  if (isFresh()) return dir();
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
    if (!isFresh()) build();
  } finally {
    rmSync(LOCK_DIR, { recursive: true, force: true });
  }
  if (!isFresh()) throw new Error(`npm run release:provider wrote no complete release in ${dir()}`);
  return dir();
}
