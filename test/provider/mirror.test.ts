/**
 * `agentplatform-provider mirror`: a release checked and copied into a provider mirror, several releases sharing one,
 * the errors for a release that is not whole; and the real release mirrored, then installed by the real
 * `terraform init` from the mirror as a filesystem mirror, with no `node` on the PATH terraform runs with.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/provider/cli';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_VERSION } from '../../lib/provider/constants';
import { EXAMPLE_MIRROR_URL } from '../../lib/install/mirror';
import { terraformPlatform } from '../../lib/install/provider';
import { releaseDir } from '../support/release';
import { fakeRelease } from './support/fake-release';
import { collect, providerConfig } from './support/terraform';
import { terraformOnlyPath } from '../support/terraform-only-path';

jest.setTimeout(600_000);

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'provider-mirror-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs the CLI; returns its exit code, standard output and standard error. */
function cli(...args: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = main(args, (text) => (stdout += text));
    return { code, stdout, stderr };
  } finally {
    spy.mockRestore();
  }
}

const providerFolder = (mirror: string): string => join(mirror, ...PROVIDER_ADDRESS.split('/'));
const indexOf = (mirror: string): unknown => JSON.parse(readFileSync(join(providerFolder(mirror), 'index.json'), 'utf8'));
const zipName = (version: string, platform: string): string => `${PROVIDER_EXECUTABLE_PREFIX}_${version}_${platform}.zip`;

describe('agentplatform-provider mirror', () => {
  it('copies a release into the packed layout, lists it in index.json, and prints the CLI configuration', async () => {
    const release = await fakeRelease('0.1.0');
    const mirror = join(tempDir(), 'mirror');

    const result = cli('mirror', '--release', release.dir, '--dir', mirror);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(providerFolder(mirror)).sort()).toEqual(['0.1.0.json', 'index.json', zipName('0.1.0', 'darwin_arm64'), zipName('0.1.0', 'linux_amd64')]);
    expect(readFileSync(join(providerFolder(mirror), '0.1.0.json'), 'utf8')).toBe(readFileSync(join(release.dir, '0.1.0.json'), 'utf8'));
    for (const platform of ['darwin_arm64', 'linux_amd64']) {
      expect(readFileSync(join(providerFolder(mirror), zipName('0.1.0', platform)))).toEqual(readFileSync(release.archives[platform]!.path));
    }
    expect(indexOf(mirror)).toEqual({ versions: { '0.1.0': {} } });
    expect(result.stdout).toContain('Mirrored agentplatform/agentplatform 0.1.0 (darwin_arm64, linux_amd64)');
    expect(result.stdout).toContain(`filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["${PROVIDER_ADDRESS}"]\n  }`);
    expect(result.stdout).toContain(`network_mirror {\n    url     = "${EXAMPLE_MIRROR_URL}"\n    include = ["${PROVIDER_ADDRESS}"]\n  }`);
    expect(result.stdout.match(/direct \{\n {4}exclude = \["registry\.terraform\.io\/agentplatform\/agentplatform"\]\n {2}\}/g)).toHaveLength(2);
  });

  it('lets several releases share one mirror; the same release again replaces nothing, a rebuilt one says so', async () => {
    const mirror = tempDir();
    const first = await fakeRelease('0.1.0');
    const second = await fakeRelease('0.2.0-beta.1', ['linux_amd64']);
    const later = await fakeRelease('0.10.0', ['linux_amd64']);
    for (const release of [later, first, second]) expect(cli('mirror', `--release=${release.dir}`, `--dir=${mirror}`).code).toBe(0);

    expect(indexOf(mirror)).toEqual({ versions: { '0.1.0': {}, '0.2.0-beta.1': {}, '0.10.0': {} } });
    expect(Object.keys((indexOf(mirror) as { versions: object }).versions)).toEqual(['0.1.0', '0.2.0-beta.1', '0.10.0']);
    expect(existsSync(join(providerFolder(mirror), zipName('0.2.0-beta.1', 'linux_amd64')))).toBe(true);

    const again = cli('mirror', '--release', first.dir, '--dir', mirror);
    expect(again.stdout).toContain('Mirrored agentplatform/agentplatform 0.1.0 (darwin_arm64, linux_amd64)\n');
    expect(again.stdout).toContain('which now holds 0.1.0, 0.2.0-beta.1, 0.10.0\n');

    const rebuilt = await fakeRelease('0.1.0', ['linux_amd64'], 'rebuilt');
    const replaced = cli('mirror', '--release', rebuilt.dir, '--dir', mirror);
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain('0.1.0 (linux_amd64), replacing the one there with other hashes');
    expect(readFileSync(join(providerFolder(mirror), zipName('0.1.0', 'linux_amd64')))).toEqual(readFileSync(rebuilt.archives.linux_amd64!.path));
  });

  it('fills in the network mirror URL given with --url, and refuses one terraform would not ask', async () => {
    const release = await fakeRelease('0.1.0', ['linux_amd64']);
    const mirror = tempDir();
    expect(cli('mirror', '--release', release.dir, '--dir', mirror, '--url', 'https://mirror.example.org/tf/').stdout).toContain(
      'url     = "https://mirror.example.org/tf/"',
    );
    const plain = cli('mirror', '--release', release.dir, '--dir', mirror, '--url', 'http://mirror.example.org/tf/');
    expect(plain).toMatchObject({ code: 2, stdout: '' });
    expect(plain.stderr).toContain('--url must be an https:// URL ending in "/"');
    expect(cli('mirror', '--release', release.dir, '--dir', mirror, '--url', 'https://mirror.example.org/tf').code).toBe(2);
  });

  it('needs both --release and --dir', async () => {
    const release = await fakeRelease('0.1.0', ['linux_amd64']);
    for (const args of [['--dir', tempDir()], ['--release', release.dir], ['--release', release.dir, '--dir'], ['--release', release.dir, '--force']]) {
      const result = cli('mirror', ...args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain('Usage: agentplatform-provider mirror');
    }
  });

  describe('refuses a release that is not whole, naming the file and the fix, and writes nothing', () => {
    const refused = (releaseDirectory: string): string => {
      const mirror = join(tempDir(), 'mirror');
      const result = cli('mirror', '--release', releaseDirectory, '--dir', mirror);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(existsSync(mirror)).toBe(false);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      return result.stderr;
    };

    it('a folder with no index.json', () => {
      const dir = tempDir();
      expect(refused(dir)).toBe(
        `agentplatform-provider mirror: ${dir} is not a provider release: it holds no index.json: give the folder that "npm run release:provider" writes (dist/release/<version>/), copied whole.\n`,
      );
    });

    it('a zip missing', async () => {
      const release = await fakeRelease('0.1.0');
      rmSync(release.archives.darwin_arm64!.path);
      expect(refused(release.dir)).toContain(
        `${zipName('0.1.0', 'darwin_arm64')}, the zip of darwin_arm64 that 0.1.0.json names, is missing from ${release.dir}: copy the release folder whole`,
      );
    });

    it('a zip that is not the one the release lists', async () => {
      const release = await fakeRelease('0.1.0');
      appendFileSync(release.archives.linux_amd64!.path, 'x');
      const message = refused(release.dir);
      expect(message).toContain(`${release.archives.linux_amd64!.path} is not the zip that 0.1.0.json lists for linux_amd64: its SHA-256 is zh:`);
      expect(message).toContain(`the release lists ${release.archives.linux_amd64!.zh}.`);
      expect(message).toContain('copy the release folder again, or build it again with "npm run release:provider"');
    });

    it('a document without a zh: hash, or naming a zip by another name, or not JSON', async () => {
      const release = await fakeRelease('0.1.0', ['linux_amd64']);
      const document = join(release.dir, '0.1.0.json');
      const { h1 } = release.archives.linux_amd64!;
      writeFileSync(document, JSON.stringify({ archives: { linux_amd64: { url: zipName('0.1.0', 'linux_amd64'), hashes: [h1] } } }));
      expect(refused(release.dir)).toContain(`${document}, archive "linux_amd64": lists no zh: hash`);
      writeFileSync(document, JSON.stringify({ archives: { linux_amd64: { url: 'https://example.com/provider.zip', hashes: [h1] } } }));
      expect(refused(release.dir)).toContain(`its url is "https://example.com/provider.zip", not "${zipName('0.1.0', 'linux_amd64')}"`);
      writeFileSync(document, '{"archives": ');
      expect(refused(release.dir)).toContain(`${document} is not valid JSON`);
      rmSync(document);
      expect(refused(release.dir)).toContain(`${release.dir} holds no 0.1.0.json, the document of version 0.1.0 (index.json lists 0.1.0)`);
    });
  });

  it('mirrors the real release, which terraform installs as a filesystem mirror with no node on its PATH', async () => {
    const release = releaseDir();
    const work = tempDir();
    const mirror = join(work, 'mirror');
    const result = cli('mirror', '--release', release, '--dir', mirror);
    expect(result).toMatchObject({ code: 0, stderr: '' });

    // the configuration the command printed, as a user would paste it
    const filesystemBlock = result.stdout.slice(result.stdout.indexOf('provider_installation'), result.stdout.indexOf('# or as a network mirror'));
    writeFileSync(join(work, 'cli.tfrc'), filesystemBlock);
    const config = join(work, 'config');
    const env = { PATH: terraformOnlyPath(), HOME: work, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: join(work, 'cli.tfrc') };
    const terraform = (...args: string[]) => collect(spawn('terraform', args, { cwd: config, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    mkdirSync(config);
    writeFileSync(join(config, 'main.tf'), providerConfig());

    const init = await terraform('init', '-input=false', '-no-color');
    expect(init.stderr).toBe('');
    expect(init.stdout).toContain(`Installed agentplatform/agentplatform v${PROVIDER_VERSION} (unauthenticated)`);
    const document = JSON.parse(readFileSync(join(release, `${PROVIDER_VERSION}.json`), 'utf8')) as { archives: Record<string, { hashes: string[] }> };
    const h1 = document.archives[terraformPlatform()]!.hashes.find((h) => h.startsWith('h1:'))!;
    expect(readFileSync(join(config, '.terraform.lock.hcl'), 'utf8')).toContain(`"${h1}"`);

    // the installed executable answers terraform: its schema comes from the provider itself, run without Node.js
    const schema = await terraform('providers', 'schema', '-json');
    expect(schema.code).toBe(0);
    expect(Object.keys((JSON.parse(schema.stdout) as { provider_schemas: object }).provider_schemas)).toEqual([PROVIDER_ADDRESS]);
  });
});
