/**
 * The provider installed from its release as the installation section of docs/provider.md says, block by block with
 * only the placeholders filled in, and with no Node.js on the PATH terraform runs with: from a filesystem mirror
 * (packed zips) and from a network mirror (HTTPS with a self-signed certificate terraform is told to trust), each
 * followed by apply, an empty plan and destroy of a deployment against the local platform. The lock file holds the
 * release's hashes.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageHash, terraformPlatform } from '../../lib/install/provider';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_SOURCE, PROVIDER_VERSION, packageRoot } from '../../lib/provider/constants';
import { TestPlatform, githubDeployment } from '../provider/support/deployment-platform';
import { checkDistFresh, collect, providerConfig, type TerraformResult } from '../provider/support/terraform';
import { releaseDir } from '../support/release';
import { startHttpsMirror } from './support/https-mirror';
import { codeBlocks, fillPlaceholders, installationSection, subheadings, theBlock } from './support/install-docs';
import { resolveOnPath } from '../support/terraform-only-path';
import { NoNodeTerraform } from './support/no-node-terraform';

// building a missing release takes minutes; each test installs the provider for every platform of the release
jest.setTimeout(300_000);

const ROOT = packageRoot();
const V = PROVIDER_VERSION;
const PLATFORM = terraformPlatform();
const zipName = (platform: string): string => `${PROVIDER_EXECUTABLE_PREFIX}_${V}_${platform}.zip`;

/** Runs a block of the docs that belongs in a clone of this repository, with this process's environment. */
function runInClone(script: string): Promise<TerraformResult> {
  return collect(spawn('/bin/sh', ['-e', '-c', script], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** The hashes of the provider's entry in a lock file. */
function lockHashes(lockFile: string): { version: string; hashes: string[] } {
  const text = readFileSync(lockFile, 'utf8');
  const entry = new RegExp(`provider "${PROVIDER_ADDRESS}" \\{\\n\\s+version\\s+= "([^"]+)"\\n\\s+hashes = \\[\\n([^\\]]*)\\]`).exec(text);
  if (!entry) throw new Error(`no entry for ${PROVIDER_ADDRESS} in the lock file:\n${text}`);
  return { version: entry[1]!, hashes: [...entry[2]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) };
}

describe('the installation section of docs/provider.md', () => {
  it('leads with a provider mirror and a private registry, then the launcher', () => {
    expect(subheadings(installationSection())).toEqual([
      '1. A provider mirror, from the release artifacts',
      '2. A private registry (HCP Terraform, Terraform Enterprise)',
      '3. The launcher, for cdktf apps and developer machines with Node.js',
    ]);
  });
});

describe('the provider installed from its release, with no Node.js where terraform runs', () => {
  const blocks = codeBlocks(installationSection());
  const dirs: NoNodeTerraform[] = [];
  let release: string;
  let archives: Record<string, { url: string; hashes: string[] }>;
  let lp: TestPlatform;

  beforeAll(async () => {
    checkDistFresh();
    release = releaseDir();
    archives = (JSON.parse(readFileSync(join(release, `${V}.json`), 'utf8')) as { archives: typeof archives }).archives;
    lp = await TestPlatform.start();
  }, 1_800_000);
  afterAll(async () => {
    dirs.forEach((d) => d.remove());
    await lp.close();
  });

  const newDir = (): NoNodeTerraform => {
    const tf = NoNodeTerraform.create(lp.providerEnv());
    dirs.push(tf);
    return tf;
  };
  const h1 = (platform: string): string => archives[platform]!.hashes.find((h) => h.startsWith('h1:'))!;

  /**
   * Writes the CLI configuration block, runs the install block (lock, init) in a configuration holding one deployment,
   * checks what was installed and recorded, then applies, plans nothing and destroys.
   */
  async function installAndDeploy(tf: NoNodeTerraform, cliConfig: string, install: string, authentication: string): Promise<void> {
    expect(resolveOnPath('node', tf.env.PATH)).toBeUndefined();
    expect(resolveOnPath('terraform', tf.env.PATH)).toBeDefined();
    tf.writeCliConfig(cliConfig);
    const name = lp.uniqueName('mirror');
    tf.write('main.tf', `${providerConfig()}\n${githubDeployment('agent', { name })}`);

    const installed = await tf.shell(install);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`Installed ${PROVIDER_SOURCE} v${V} (${authentication})`);

    // terraform providers lock recorded the h1: of every platform of the release, and init checked its own against it
    expect(lockHashes(join(tf.dir, '.terraform.lock.hcl'))).toEqual({ version: V, hashes: Object.keys(archives).map(h1).sort() });
    const packageDir = realpathSync(join(tf.dir, '.terraform', 'providers', PROVIDER_ADDRESS, V, PLATFORM));
    expect(readdirSync(packageDir)).toEqual([`${PROVIDER_EXECUTABLE_PREFIX}_v${V}${PLATFORM.startsWith('windows') ? '.exe' : ''}`]);
    expect(packageHash(packageDir)).toBe(h1(PLATFORM));

    const applied = await tf.run(['apply', '-auto-approve', '-input=false']);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added');
    const [deployment] = (await lp.client.listDeployments({ nameContains: name })).resources;
    expect(deployment?.name).toBe(name);
    expect((await lp.client.getRevision(deployment!.id, deployment!.latest_revision_id!)).status).toBe('DEPLOYED');

    expect(await tf.run(['plan', '-input=false', '-detailed-exitcode'])).toMatchObject({ code: 0, stderr: '' });

    const destroyed = await tf.run(['destroy', '-auto-approve', '-input=false']);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    expect((await lp.client.listDeployments({ nameContains: name })).resources).toEqual([]);
  }

  it('is the release the docs build', () => {
    expect(theBlock(blocks, 'sh', 'npm ci')).toContain(`# writes ${relative(ROOT, release)}/\n`);
    expect(Object.keys(archives)).toContain(PLATFORM);
    for (const [platform, archive] of Object.entries(archives)) {
      expect(archive.url).toBe(zipName(platform));
      expect(existsSync(join(release, archive.url))).toBe(true);
    }
  });

  it('installs from a filesystem mirror the mirror command made', async () => {
    const tf = newDir();
    const values = { 'mirror dir': join(tf.root, 'mirror'), 'cli config file': tf.cliConfig };

    const mirrored = await runInClone(fillPlaceholders(theBlock(blocks, 'sh', ' mirror --release '), values));
    expect(mirrored).toMatchObject({ code: 0, stderr: '' });
    // terraform's packed layout: the zips themselves, under the provider's address
    const folder = join(values['mirror dir'], PROVIDER_ADDRESS);
    for (const platform of Object.keys(archives)) expect(existsSync(join(folder, zipName(platform)))).toBe(true);
    expect(JSON.parse(readFileSync(join(folder, 'index.json'), 'utf8'))).toEqual({ versions: { [V]: {} } });

    await installAndDeploy(tf, fillPlaceholders(theBlock(blocks, 'hcl', 'filesystem_mirror'), values), fillPlaceholders(theBlock(blocks, 'sh', '-fs-mirror='), values), 'unauthenticated');
  });

  it('installs from a network mirror over HTTPS, a copy of the release served as it is', async () => {
    const tf = newDir();
    const mirrorDir = join(tf.root, 'mirror');
    const copied = await runInClone(fillPlaceholders(theBlock(blocks, 'sh', 'cp '), { 'mirror dir': mirrorDir }));
    expect(copied).toMatchObject({ code: 0, stderr: '' });
    const server = await startHttpsMirror(mirrorDir, tf.root);
    tf.env.SSL_CERT_FILE = server.certFile;
    const values = { 'mirror host': server.host, 'cli config file': tf.cliConfig };
    try {
      await installAndDeploy(tf, fillPlaceholders(theBlock(blocks, 'hcl', 'network_mirror'), values), fillPlaceholders(theBlock(blocks, 'sh', '-net-mirror='), values), 'verified checksum');

      // as the docs warn: init without the lock step records the hash of its own platform only
      const initOnly = newDir();
      initOnly.env.SSL_CERT_FILE = server.certFile;
      initOnly.writeCliConfig(fillPlaceholders(theBlock(blocks, 'hcl', 'network_mirror'), values));
      initOnly.write('main.tf', providerConfig());
      const init = await initOnly.run(['init', '-input=false']);
      expect(init.code).toBe(0);
      expect(`${init.stdout}${init.stderr}`).toContain('Incomplete lock file information for providers');
      expect(lockHashes(join(initOnly.dir, '.terraform.lock.hcl'))).toEqual({ version: V, hashes: [h1(PLATFORM)] });

      const base = `/${PROVIDER_ADDRESS}`;
      expect(server.requests).toEqual(expect.arrayContaining([`GET ${base}/index.json 200`, `GET ${base}/${V}.json 200`, `GET ${base}/${zipName(PLATFORM)} 200`]));
      expect(server.requests.filter((line) => !line.endsWith(' 200'))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
