/**
 * The Node.js the tests run on: one that package.json's `engines` names, the one a run on another version intends
 * (scripts/ci/other-node.sh names it in AGENTPLATFORM_TEST_NODE), and the one the provider runs on when terraform
 * launches it (the launcher runs the first node on the PATH), so that a run on Node 22 tests the provider on Node 22.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installProvider } from '../../lib/install/provider';
import { packageRoot } from '../../lib/provider/constants';

const majorOf = (version: string): number => Number(/^v?(\d+)/.exec(version)?.[1]);

it('runs on a Node.js version that engines names, the one the run intends', () => {
  const engines = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const majors = engines.split('||').map((range) => majorOf(range.trim().replace(/^[\^~>=]+/, '')));
  expect(majors).toContain(majorOf(process.version));
  expect(process.version).toBe(process.env.AGENTPLATFORM_TEST_NODE ?? process.version);
});

it('launches the provider on the Node.js the tests run on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'provider-node-'));
  try {
    const probe = join(dir, 'probe.js');
    writeFileSync(probe, 'process.stdout.write(process.version);\n');
    const { launcherPath } = installProvider({ dir, entryPoint: probe, writeLockFile: false });
    // the environment terraform gets in the provider tests (test/provider/support/terraform.ts), and passes on
    const launched = spawnSync(launcherPath, [], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    expect(launched.stderr).toBe('');
    expect(launched.stdout).toBe(process.version);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
