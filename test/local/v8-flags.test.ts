/**
 * The CLI sets V8 flags for the platform's process (lib/local/v8-flags.ts). V8 takes a flag it does not know with a
 * warning only, so a flag renamed by a later V8 would silently do nothing: each must be one this Node's V8 lists.
 */
import { spawnSync } from 'node:child_process';
import { PLATFORM_V8_FLAGS } from '../../lib/local/v8-flags';

test('every flag the platform sets is one of this V8\'s options, and Node starts with them', () => {
  const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  expect(options.status).toBe(0);
  expect(PLATFORM_V8_FLAGS.length).toBeGreaterThan(0);
  for (const flag of PLATFORM_V8_FLAGS) {
    const name = /^--([a-z0-9-]+)(=.*)?$/.exec(flag)?.[1];
    expect(name).toBeDefined();
    expect(options.stdout).toContain(`--${name} (`);
  }
  // given on the command line, as setFlagsFromString takes them: no warning, no error
  const run = spawnSync(process.execPath, [...PLATFORM_V8_FLAGS, '-e', '0'], { encoding: 'utf8' });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
});
