/**
 * The private registry steps of docs/provider.md, run as they stand against a fake of HCP Terraform's publishing API
 * (test/release/support/fake-private-registry.ts): the signing key made with the docs' gpg commands, the release's
 * sums signed with it as `npm run release:provider -- --gpg-key` signs them, then the upload block with only its
 * placeholders filled in and the API's address pointed at the fake. The registry ends up holding the key, the
 * version with protocol 6.0, the sums and a signature that verifies, and every platform's zip under its SHA-256.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROVIDER_EXECUTABLE_PREFIX, PROVIDER_TYPE_NAME, PROVIDER_VERSION } from '../../lib/provider/constants';
import { gpgDetachSign } from '../../scripts/release/release-files';
import { collect, type TerraformResult } from '../provider/support/terraform';
import { releaseDir } from '../support/release';
import { startFakePrivateRegistry, type FakePrivateRegistry } from './support/fake-private-registry';
import { codeBlocks, fillPlaceholders, installationSection, theBlock } from './support/install-docs';

// building a missing release takes minutes
jest.setTimeout(120_000);

const V = PROVIDER_VERSION;
const ORG = 'acme-platform';
const TOKEN = 'registry-token-for-the-test';
const SUMS = `${PROVIDER_EXECUTABLE_PREFIX}_${V}_SHA256SUMS`;
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the private registry steps of docs/provider.md', () => {
  const blocks = codeBlocks(installationSection());
  let work: string;
  let release: string;
  let registry: FakePrivateRegistry;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, GNUPGHOME: join(work, 'gnupg'), ORG, TOKEN });
  const shell = (script: string, cwd: string): Promise<TerraformResult> =>
    collect(spawn('/bin/sh', ['-e', '-c', script], { cwd, env: env(), stdio: ['ignore', 'pipe', 'pipe'] }));

  beforeAll(async () => {
    release = releaseDir();
    work = mkdtempSync(join(tmpdir(), 'registry-upload-'));
    mkdirSync(join(work, 'gnupg'), { mode: 0o700 });
    mkdirSync(join(work, 'registry-gnupg'), { mode: 0o700 });
    registry = await startFakePrivateRegistry(ORG, TOKEN, join(work, 'registry-gnupg'));
  }, 1_800_000);
  afterAll(async () => {
    await registry.close();
    // gpg starts an agent per home folder: stopped with its folder
    for (const home of ['gnupg', 'registry-gnupg', 'verify-gnupg'].map((name) => join(work, name)).filter((dir) => existsSync(dir))) {
      execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore' });
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('publishes a signed release that the registry accepts', async () => {
    // the key, made and listed as the docs say; the release signs its sums with it
    const keyBlock = theBlock(blocks, 'sh', '--quick-generate-key');
    const [releaseLine, ...keyLines] = keyBlock.trimEnd().split('\n').reverse();
    expect(releaseLine).toBe('npm run release:provider -- --gpg-key <key id>');
    const made = await shell(keyLines.reverse().join('\n'), work);
    expect(made.code).toBe(0);
    const keyId = /rsa4096\/([0-9A-F]{16})/.exec(made.stdout)?.[1];
    expect(keyId).toBeDefined();

    // a copy of the release where the upload block expects it, with the signature the release writes
    const copy = join(work, 'dist', 'release', V);
    mkdirSync(copy, { recursive: true });
    for (const name of readdirSync(release)) symlinkSync(join(release, name), join(copy, name));
    rmSync(join(copy, SUMS));
    copyFileSync(join(release, SUMS), join(copy, SUMS));
    gpgDetachSign(join(copy, SUMS), keyId!, join(work, 'gnupg'));

    const upload = fillPlaceholders(theBlock(blocks, 'sh', 'registry-provider-versions'), { 'key id': keyId!, host: 'app.terraform.io' });
    expect(upload).toContain('API=https://app.terraform.io/api');
    const published = await shell(upload.replace('https://app.terraform.io/api', `${registry.origin}/api`), work);
    expect(published).toMatchObject({ code: 0, stderr: '' });

    const { state } = registry;
    expect([...state.keys.keys()]).toEqual([keyId]);
    expect([...state.providers]).toEqual([`${ORG}/${PROVIDER_TYPE_NAME}`]);
    const version = state.versions.get(`${ORG}/${PROVIDER_TYPE_NAME}/${V}`)!;
    expect(version).toMatchObject({ keyId, protocols: ['6.0'], sums: { sha256: sha256(join(release, SUMS)) }, signature: { sha256: sha256(`${join(copy, SUMS)}.sig`) } });

    // the uploaded key verifies the uploaded signature of the sums, as terraform checks it
    const verifyHome = join(work, 'verify-gnupg');
    mkdirSync(verifyHome, { mode: 0o700 });
    execFileSync('gpg', ['--homedir', verifyHome, '--batch', '--import'], { input: state.keys.get(keyId!), stdio: ['pipe', 'pipe', 'pipe'] });
    execFileSync('gpg', ['--homedir', verifyHome, '--batch', '--verify', `${join(copy, SUMS)}.sig`, join(release, SUMS)], { stdio: ['ignore', 'pipe', 'pipe'] });

    // every zip of the release, registered under its line of the sums and uploaded as it is
    const archives = (JSON.parse(readFileSync(join(release, `${V}.json`), 'utf8')) as { archives: Record<string, { url: string }> }).archives;
    const sums = new Map(readFileSync(join(release, SUMS), 'utf8').trim().split('\n').map((line) => line.split(/\s+/).reverse() as [string, string]));
    const byName = (a: { filename: string }, b: { filename: string }): number => a.filename.localeCompare(b.filename);
    expect([...version.platforms].sort(byName)).toEqual(
      Object.entries(archives)
        .map(([platform, { url }]) => {
          const [os, arch] = platform.split('_');
          return { os, arch, filename: url, shasum: sums.get(url), binary: { sha256: sha256(join(release, url)), size: statSync(join(release, url)).size } };
        })
        .sort(byName),
    );
  });
});
