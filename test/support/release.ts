/**
 * The provider release (`npm run release:provider`, which `npm test` runs before jest). When a test runs alone and
 * the release is missing, lacks a platform, or is older than what it is built from (`lib/`, `scripts/`,
 * package.json), this builds it again (test/support/stale-build.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RELEASE_PLATFORMS } from '../../scripts/release/build-release';
import { REPO_ROOT, newestSourceMtime } from '../local/support/build';
import { buildWhenStale, mtime } from './stale-build';

const RELEASE_SCRIPT = join(REPO_ROOT, 'dist', 'scripts', 'release', 'release-provider.js');
const LOCK_DIR = join(REPO_ROOT, 'dist', '.release-build.lock');
const STALE_LOCK_MS = 20 * 60_000;

/** The version a release is built as: the root package's. */
export const releaseVersion = (): string => (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const dir = (): string => join(REPO_ROOT, 'dist', 'release', releaseVersion());

const newestInput = (): number =>
  Math.max(newestSourceMtime(join(REPO_ROOT, 'lib')), newestSourceMtime(join(REPO_ROOT, 'scripts')), mtime(join(REPO_ROOT, 'package.json')));

/** Complete (every platform in the mirror document) and newer than its inputs. */
function isFresh(): boolean {
  const document = join(dir(), `${releaseVersion()}.json`);
  if (mtime(document) < newestInput()) return false;
  const archives = (JSON.parse(readFileSync(document, 'utf8')) as { archives: Record<string, { url: string }> }).archives;
  return RELEASE_PLATFORMS.every((platform) => archives[platform] && existsSync(join(dir(), archives[platform].url)));
}

/**
 * The built release folder, `dist/release/<version>/`, built first when it is missing, incomplete or stale (a full
 * build takes minutes: call it from a `beforeAll` with a timeout to match).
 */
export function releaseDir(): string {
  buildWhenStale({ script: RELEASE_SCRIPT, lockDir: LOCK_DIR, staleLockMs: STALE_LOCK_MS, isFresh });
  if (!isFresh()) throw new Error(`npm run release:provider wrote no complete release in ${dir()}`);
  return dir();
}
