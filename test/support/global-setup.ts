/**
 * Jest's global set-up: every temporary file of the run (platform data dirs, cdktf outdirs, terraform working
 * dirs, Ceph clusters, S3 server directories) is made under one directory of its own, which the global tear-down
 * deletes, so a test run leaves nothing behind in the system's temporary directory, even from a test that failed
 * before its own clean-up. Test workers are started after this runs and inherit TMPDIR.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEST_TMPDIR_VARIABLE = 'AGENTPLATFORM_TEST_TMPDIR';

export default function globalSetup(): void {
  const dir = mkdtempSync(join(tmpdir(), 'agentplatform-tests-'));
  process.env[TEST_TMPDIR_VARIABLE] = dir;
  process.env.TMPDIR = dir;
}
