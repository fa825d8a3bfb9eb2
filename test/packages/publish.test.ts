/**
 * `npm publish --dry-run` of the three published packages: the repository's own and the two construct packages
 * (their tarballs, as they would be published), each with its files, license, repository and entry points. A
 * throwaway npm cache and user configuration: nothing is published, no login is used.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../local/support/build';
import { packageTarball } from '../support/packages';

interface DryRun {
  readonly name: string;
  readonly files: readonly string[];
  readonly stderr: string;
}

/** `npm publish --dry-run` of the package in `cwd`, or of `target` (a tarball). */
function publishDryRun(cwd: string, target?: string): DryRun {
  const dir = mkdtempSync(join(tmpdir(), 'npm-publish-'));
  writeFileSync(join(dir, 'npmrc'), '');
  const args = ['publish', ...(target ? [target] : []), '--dry-run', '--json', '--ignore-scripts', '--no-update-notifier', '--cache', join(dir, 'cache'), '--userconfig', join(dir, 'npmrc')];
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8' });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const report = Object.values(JSON.parse(result.stdout) as Record<string, { name: string; files: { path: string }[] }>)[0]!;
  return { name: report.name, files: report.files.map((file) => file.path), stderr: result.stderr };
}

/** What npm says besides the dry run's own notices (the login a real publish needs, where it would publish to). */
const complaints = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((line) => /^npm (warn|error)/i.test(line))
    .filter((line) => !/requires you to be logged in .*\(dry-run\)/.test(line));

interface Manifest {
  readonly license: string;
  readonly repository: { readonly type: string; readonly url: string; readonly directory?: string };
  readonly main: string;
  readonly types: string;
  readonly bin: Record<string, string>;
  readonly private?: boolean;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The package.json inside a tarball. */
const manifestOf = (tarball: string): Manifest =>
  JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as Manifest;

/** What every published package needs: license, repository (provenance checks it), entry points it ships. */
function expectPublishable(manifest: Manifest, files: readonly string[], directory?: string): void {
  expect(manifest.private).toBeUndefined();
  expect(manifest.license).toBe('MPL-2.0');
  expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/agentplatform/cdktf-agent-platform.git', ...(directory ? { directory } : {}) });
  expect(files).toEqual(expect.arrayContaining([manifest.main, manifest.types, ...Object.values(manifest.bin)]));
}

const TIMEOUT = 15 * 60_000;

describe('npm publish --dry-run', () => {
  it('passes for the repository package, with its compiled code and bins and no sources', () => {
    const run = publishDryRun(REPO_ROOT);
    expect(run.name).toBe('cdktf-agent-platform');
    expect(complaints(run.stderr)).toEqual([]);
    expect(run.files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'bin/agentplatform-provider.js', 'bin/agentplatform-local.js']));
    expectPublishable(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest, run.files);
    expect(run.files.filter((file) => !/^(dist\/lib\/|bin\/|LICENSE$|README\.md$|package\.json$)/.test(file))).toEqual([]);
  }, TIMEOUT);

  it('passes for @agentplatform/cdktf: the jsii assembly, the compiled constructs, the bundled provider and zod', () => {
    const run = publishDryRun(REPO_ROOT, packageTarball('cdktf'));
    const manifest = manifestOf(packageTarball('cdktf'));
    expectPublishable(manifest, run.files, 'packages/cdktf');
    expect(manifest.peerDependencies).toEqual({ cdktf: '^0.21.0', constructs: '^10.4.2', '@cdktf/provider-aws': expect.any(String) });
    expect(manifest.peerDependenciesMeta).toEqual({ '@cdktf/provider-aws': { optional: true } });
    expect(run.name).toBe('@agentplatform/cdktf');
    expect(complaints(run.stderr)).toEqual([]);
    expect(run.files).toEqual(
      expect.arrayContaining(['.jsii', 'LICENSE', 'README.md', 'package.json', 'lib/constructs/index.js', 'lib/constructs/index.d.ts', 'provider/agentplatform-provider.js', 'bin/agentplatform-provider.js', 'node_modules/zod/package.json']),
    );
    expect(run.files.filter((file) => !/^(\.jsii$|lib\/.*\.(js|d\.ts)$|provider\/|bin\/|node_modules\/zod\/|LICENSE$|README\.md$|package\.json$)/.test(file))).toEqual([]);
  }, TIMEOUT);

  it('passes for @agentplatform/cdktn: the compiled constructs and the bundled provider, without a jsii assembly', () => {
    const run = publishDryRun(REPO_ROOT, packageTarball('cdktn'));
    const manifest = manifestOf(packageTarball('cdktn'));
    expectPublishable(manifest, run.files, 'packages/cdktn');
    expect(manifest.peerDependencies).toEqual({ cdktn: '^0.24.0', constructs: '>=10.6.0 <10.8.0', '@cdktn/provider-aws': '^25.0.0' });
    expect(manifest.peerDependenciesMeta).toEqual({ '@cdktn/provider-aws': { optional: true } });
    expect(run.name).toBe('@agentplatform/cdktn');
    expect(complaints(run.stderr)).toEqual([]);
    expect(run.files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'lib/constructs/index.js', 'lib/constructs/index.d.ts', 'provider/agentplatform-provider.js', 'bin/agentplatform-provider.js']));
    expect(run.files.filter((file) => !/^(lib\/.*\.(js|d\.ts)$|provider\/|bin\/|node_modules\/zod\/|LICENSE$|README\.md$|package\.json$)/.test(file))).toEqual([]);
  }, TIMEOUT);
});
