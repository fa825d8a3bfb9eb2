/**
 * `AgentPlatformProvider` with `providerRelease`: the release's zips in the stack's implied local mirror and its hashes
 * in the lock file instead of the launcher, the errors for a release that does not fit; and a stack synthesized with
 * the real release, deployed with the real terraform against the local platform with no `node` on terraform's PATH.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Manifest, Testing, TerraformStack } from 'cdktf';
import { NotFoundError } from '../../lib/api/errors';
import { Deployment, DeploymentSource } from '../../lib/constructs/deployment';
import { AgentPlatformProvider, type AgentPlatformProviderProps } from '../../lib/constructs/provider';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_VERSION } from '../../lib/provider/constants';
import { terraformPlatform } from '../../lib/install/provider';
import { releaseDir } from '../support/release';
import { fakeRelease, type FakeRelease } from '../provider/support/fake-release';
import { TestPlatform } from '../provider/support/deployment-platform';
import { collect } from '../provider/support/terraform';
import { terraformOnlyPath } from '../support/terraform-only-path';
import { violationsOf } from './support/synth';

jest.setTimeout(600_000);

const stackWith = (props: AgentPlatformProviderProps): TerraformStack => {
  const stack = new TerraformStack(Testing.app(), 'test');
  new AgentPlatformProvider(stack, 'agentplatform', props);
  return stack;
};
const stackDir = (outdir: string): string => join(outdir, 'stacks', 'test');
const packedDir = (outdir: string): string => join(stackDir(outdir), 'terraform.d', 'plugins', ...PROVIDER_ADDRESS.split('/'));
const zipName = (platform: string): string => `${PROVIDER_EXECUTABLE_PREFIX}_${PROVIDER_VERSION}_${platform}.zip`;
const lockOf = (outdir: string): string => readFileSync(join(stackDir(outdir), '.terraform.lock.hcl'), 'utf8');
const manifestOf = (outdir: string): Manifest => new Manifest('stubbed', outdir, false);
/** The synth machine's platform, which the release of these tests has. */
const here = terraformPlatform();
const hashLines = (hashes: string[]): string => [...hashes].sort().map((h) => `    "${h}",\n`).join('');

describe('AgentPlatformProvider with providerRelease', () => {
  let release: FakeRelease;
  beforeAll(async () => {
    release = await fakeRelease(PROVIDER_VERSION, ['darwin_arm64', 'linux_amd64', 'windows_amd64']);
    expect(Object.keys(release.archives)).toContain(here);
  });
  const archive = (platform: string): FakeRelease['archives'][string] => release.archives[platform]!;

  it('puts the zip of this platform into the implied local mirror and every zh: hash into the lock file, the same on every synth', () => {
    const stack = stackWith({ providerRelease: release.dir });
    const outdir = Testing.fullSynth(stack);
    const firstLock = lockOf(outdir);
    stack.synthesizer.synthesize({ outdir, manifest: manifestOf(outdir) });
    expect(lockOf(outdir)).toBe(firstLock);

    expect(readdirSync(packedDir(outdir))).toEqual([zipName(here)]);
    expect(readFileSync(join(packedDir(outdir), zipName(here)))).toEqual(readFileSync(archive(here).path));
    expect(existsSync(join(packedDir(outdir), PROVIDER_VERSION))).toBe(false);
    expect(lockOf(outdir)).toContain(
      `provider "${PROVIDER_ADDRESS}" {\n  version = "${PROVIDER_VERSION}"\n  constraints = "${PROVIDER_VERSION}"\n  hashes = [\n` +
        `${hashLines([archive(here).h1, ...Object.values(release.archives).map((a) => a.zh)])}  ]\n}\n`,
    );
  });

  it('installs the platforms of providerPlatforms, with their h1: hashes, from a release given by a relative path', () => {
    const outdir = Testing.fullSynth(stackWith({ providerRelease: relative(process.cwd(), release.dir), providerPlatforms: ['windows_amd64', 'darwin_arm64'] }));

    expect(readdirSync(packedDir(outdir)).sort()).toEqual([zipName('darwin_arm64'), zipName('windows_amd64')]);
    expect(lockOf(outdir)).toContain(hashLines([archive('darwin_arm64').h1, archive('windows_amd64').h1, ...Object.values(release.archives).map((a) => a.zh)]));
  });

  it('replaces the launcher of an earlier synth, and the launcher replaces the zips again', () => {
    const launcherStack = stackWith({});
    const outdir = Testing.fullSynth(launcherStack);
    expect(existsSync(join(packedDir(outdir), PROVIDER_VERSION, terraformPlatform()))).toBe(true);

    stackWith({ providerRelease: release.dir }).synthesizer.synthesize({ outdir, manifest: manifestOf(outdir) });
    expect(readdirSync(packedDir(outdir))).toEqual([zipName(here)]);

    launcherStack.synthesizer.synthesize({ outdir, manifest: manifestOf(outdir) });
    expect(readdirSync(packedDir(outdir))).toEqual([PROVIDER_VERSION]);
    expect(lockOf(outdir)).not.toContain(archive(here).zh);
  });

  describe('stops the synth with the prop to fix', () => {
    it('a folder that is not a release, or holds another version', async () => {
      const [notRelease] = violationsOf(() => stackWith({ providerRelease: join(release.dir, 'nothing-here') }));
      expect(notRelease).toEqual({ prop: 'providerRelease', message: expect.stringContaining('is not a directory: give the folder that "npm run release:provider" writes') });

      const other = await fakeRelease('9.9.9', ['linux_amd64']);
      expect(violationsOf(() => stackWith({ providerRelease: other.dir }))).toEqual([
        {
          prop: 'providerRelease',
          message: `"${other.dir}" holds version 9.9.9, not ${PROVIDER_VERSION}, the version this package's provider block requires: give the release of ${PROVIDER_VERSION} (npm run release:provider builds it into dist/release/${PROVIDER_VERSION}/).`,
        },
      ]);
    });

    it('a platform the release lacks, and a zip that changed', async () => {
      expect(violationsOf(() => stackWith({ providerRelease: release.dir, providerPlatforms: ['linux_arm64', 'linux_amd64', 'freebsd_amd64'] }))).toEqual([
        {
          prop: 'providerPlatforms',
          message: `"${release.dir}" has no zip for linux_arm64, freebsd_amd64 (it has darwin_arm64, linux_amd64, windows_amd64): choose among those, or build a release with them (npm run release:provider --platforms).`,
        },
      ]);

      const changed = await fakeRelease(PROVIDER_VERSION, ['linux_amd64']);
      appendFileSync(changed.archives.linux_amd64!.path, 'x');
      const [violation] = violationsOf(() => stackWith({ providerRelease: changed.dir }));
      expect(violation).toEqual({ prop: 'providerRelease', message: expect.stringContaining(`${changed.archives.linux_amd64!.path} is not the zip that ${PROVIDER_VERSION}.json lists for linux_amd64`) });
    });

    it('props that do not go with it', () => {
      expect(violationsOf(() => stackWith({ providerRelease: release.dir, nodePath: '/usr/bin/node' })).map((v) => v.prop)).toEqual(['nodePath']);
      expect(violationsOf(() => stackWith({ providerPlatforms: ['linux_amd64'] })).map((v) => v.prop)).toEqual(['providerPlatforms']);
      expect(violationsOf(() => stackWith({ providerRelease: release.dir, installLauncher: false })).map((v) => v.prop)).toEqual(['providerRelease']);
      expect(violationsOf(() => stackWith({ providerRelease: release.dir, providerPlatforms: [] })).map((v) => v.prop)).toEqual(['providerPlatforms']);
    });
  });
});

describe('a stack with the real release, deployed by terraform with no node on its PATH', () => {
  let lp: TestPlatform;
  beforeAll(async () => {
    lp = await TestPlatform.start();
  });
  afterAll(() => lp?.close());

  it('inits with the lock file as synthesized, applies, plans no change and destroys', async () => {
    const stack = stackWith({ providerRelease: releaseDir() });
    const name = lp.uniqueName('release-agent');
    new Deployment(stack, 'Agent', { name, source: DeploymentSource.image('registry.example.com/agent:1.0.0') });
    const dir = stackDir(Testing.fullSynth(stack));
    writeFileSync(join(dir, 'empty.tfrc'), '');
    const env = { PATH: terraformOnlyPath(), HOME: dir, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc'), ...lp.providerEnv() };
    const terraform = (...args: string[]) => collect(spawn('terraform', [...args, '-input=false', '-no-color'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    const lock = readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8');

    const init = await terraform('init');
    expect(init.stderr).toBe('');
    expect(init.stdout).toContain(`Installed agentplatform/agentplatform v${PROVIDER_VERSION} (unauthenticated)`);
    // terraform checked the zip against the hashes as synthesized, and had none to add
    expect(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).toBe(lock);
    const document = JSON.parse(readFileSync(join(releaseDir(), `${PROVIDER_VERSION}.json`), 'utf8')) as { archives: Record<string, { hashes: string[] }> };
    for (const [platform, { hashes }] of Object.entries(document.archives)) {
      for (const hash of hashes) expect(lock.includes(`"${hash}"`)).toBe(hash.startsWith('zh:') || platform === terraformPlatform());
    }

    const applied = await terraform('apply', '-auto-approve');
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added');
    const id = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).resources[0].instances[0].attributes.id as string;
    expect(await lp.client.getDeployment(id)).toMatchObject({ name });

    expect((await terraform('plan', '-detailed-exitcode')).code).toBe(0);

    const destroyed = await terraform('destroy', '-auto-approve');
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    await expect(lp.client.getDeployment(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

