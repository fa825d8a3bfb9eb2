/**
 * Jest's global set-up: every temporary file of the run (platform data dirs, cdktf outdirs, terraform working
 * dirs, Ceph clusters, S3 server directories) is made under one directory of its own, which the global tear-down
 * deletes, so a test run leaves nothing behind in the system's temporary directory, even from a test that failed
 * before its own clean-up. Test workers are started after this runs and inherit TMPDIR.
 *
 * The AWS SDK's warning about this Node version is turned off for every test worker and the processes they start
 * (it is printed once per process that makes an AWS client, and says nothing about the tests).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEST_TMPDIR_VARIABLE = 'AGENTPLATFORM_TEST_TMPDIR';

export default function globalSetup(): void {
  const dir = mkdtempSync(join(tmpdir(), 'agentplatform-tests-'));
  process.env[TEST_TMPDIR_VARIABLE] = dir;
  process.env.TMPDIR = dir;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}
