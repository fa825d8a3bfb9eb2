/**
 * Building what tests need from the sources when a test runs alone and the build is missing or older than its
 * inputs (`npm test` builds it all before jest): first `dist/` when the build script there is stale, then the
 * script. A lock directory keeps parallel test files from building at the same time.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, newestSourceMtime } from '../local/support/build';

/** Modification time of a path, 0 when it does not exist. */
export const mtime = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/** What {@link buildWhenStale} builds. */
export interface StaleBuild {
  /** The compiled build script under `dist/`, run with this Node. */
  readonly script: string;
  /** The lock directory. */
  readonly lockDir: string;
  /** After how long a lock is taken as left behind by a build that died. */
  readonly staleLockMs: number;
  /** Whether what the script builds is there and newer than its inputs. */
  readonly isFresh: () => boolean;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function build(script: string): void {
  const run = (command: string, args: readonly string[]): void => {
    execFileSync(command, [...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  };
  if (mtime(script) < Math.max(newestSourceMtime(join(REPO_ROOT, 'scripts')), newestSourceMtime(join(REPO_ROOT, 'lib')))) run('npm', ['run', 'build']);
  run(process.execPath, [script]);
}

/** Runs the build script unless what it builds is fresh, one test file at a time. */
export function buildWhenStale(target: StaleBuild): void {
  if (target.isFresh()) return;
  mkdirSync(join(target.lockDir, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(target.lockDir);
      break;
    } catch {
      if (Date.now() - (mtime(target.lockDir) || Date.now()) > target.staleLockMs) rmSync(target.lockDir, { recursive: true, force: true });
      sleep(500);
    }
  }
  try {
    if (!target.isFresh()) build(target.script);
  } finally {
    rmSync(target.lockDir, { recursive: true, force: true });
  }
}
