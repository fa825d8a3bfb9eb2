/**
 * Jest's global tear-down: stops any Ceph cluster still running under the run's temporary directory (a test worker
 * that died, or a test that lost track of one), then deletes the directory (see global-setup.ts). Deleting a
 * cluster's directory first would leave its daemons running with no pid file to stop them by.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TEST_TMPDIR_VARIABLE } from './global-setup';

/** The file scripts/ceph/up.sh marks its clusters' directories with. */
const CEPH_CLUSTER_MARKER = '.ceph-local-cluster';
const DOWN_SCRIPT = resolve(__dirname, '..', '..', 'scripts', 'ceph', 'down.sh');

/** Directories under `dir` (`dir` included, `depth` levels down) that hold a cluster made by up.sh. */
function cephClusterDirs(dir: string, depth: number): string[] {
  if (existsSync(join(dir, CEPH_CLUSTER_MARKER))) return [dir];
  if (depth === 0) return [];
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.isSymbolicLink())
      .map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
  return entries.flatMap((child) => cephClusterDirs(child, depth - 1));
}

export default function globalTeardown(): void {
  const dir = process.env[TEST_TMPDIR_VARIABLE];
  if (!dir) return;
  for (const cluster of cephClusterDirs(dir, 3)) {
    spawnSync('bash', [DOWN_SCRIPT], { env: { ...process.env, CEPH_DATA_DIR: cluster, CEPH_REMOVE_DATA: '1' }, stdio: 'ignore' });
  }
  rmSync(dir, { recursive: true, force: true });
}
