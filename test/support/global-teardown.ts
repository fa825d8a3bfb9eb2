/** Jest's global tear-down: deletes the run's temporary directory (see global-setup.ts). */
import { rmSync } from 'node:fs';
import { TEST_TMPDIR_VARIABLE } from './global-setup';

export default function globalTeardown(): void {
  const dir = process.env[TEST_TMPDIR_VARIABLE];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
