/**
 * `release:provider` as a release manager runs it: with a GPG key the checksums get a detached signature that gpg
 * verifies; a platform built again gives the same zip (for the platforms without a V8 code cache, whose cache V8
 * does not write reproducibly); and wrong options are refused with the option named.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../local/support/build';
import { releaseDir, releaseVersion } from '../support/release';

const SCRIPT = join(REPO_ROOT, 'dist', 'scripts', 'release', 'release-provider.js');
const PREFIX = 'terraform-provider-agentplatform';

function release(args: readonly string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('npm run release:provider', () => {
  let work: string;
  let gpgHome: string;
  let fingerprint: string;
  let dir: string;
  let version: string;
  beforeAll(() => {
    dir = releaseDir();
    version = releaseVersion();
    work = mkdtempSync(join(tmpdir(), 'release-command-'));
    gpgHome = join(work, 'gnupg');
    mkdirSync(gpgHome, { mode: 0o700 });
    execFileSync('gpg', ['--homedir', gpgHome, '--batch', '--passphrase', '', '--quick-gen-key', 'Release Test <release-test@example.invalid>', 'ed25519', 'sign', 'never'], {
      stdio: 'ignore',
    });
    const colons = execFileSync('gpg', ['--homedir', gpgHome, '--batch', '--with-colons', '--list-secret-keys'], { encoding: 'utf8' });
    fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(colons)![1]!;
  }, 30 * 60_000);
  afterAll(() => {
    spawnSync('gpgconf', ['--homedir', gpgHome, '--kill', 'all'], { stdio: 'ignore' });
    rmSync(work, { recursive: true, force: true });
  });

  it('signs the checksums with --gpg-key, and builds a platform again into the same zip', () => {
    const out = join(work, 'signed');
    const result = release(['--platforms', 'linux_arm64', '--out', out, '--gpg-key', fingerprint, '--gpg-home', gpgHome]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${PREFIX}_${version.replace(/\./g, '\\.')}_linux_arm64\\.zip +\\d+\\.\\d MB$`, 'm'));
    const sums = join(out, `${PREFIX}_${version}_SHA256SUMS`);
    expect(readdirSync(out).sort()).toEqual(
      [`${PREFIX}_${version}_linux_arm64.zip`, `${PREFIX}_${version}_SHA256SUMS`, `${PREFIX}_${version}_SHA256SUMS.sig`, `${PREFIX}_${version}_manifest.json`, 'index.json', `${version}.json`].sort(),
    );
    const signature = readFileSync(`${sums}.sig`);
    // a binary OpenPGP packet (new or old format), not ASCII armour
    expect(signature[0]! & 0x80).toBe(0x80);
    const verify = spawnSync('gpg', ['--homedir', gpgHome, '--batch', '--status-fd', '1', '--verify', `${sums}.sig`, sums], { encoding: 'utf8' });
    expect(verify.status).toBe(0);
    expect(verify.stdout).toContain(`[GNUPG:] VALIDSIG ${fingerprint}`);
    const zip = `${PREFIX}_${version}_linux_arm64.zip`;
    expect(readFileSync(join(out, zip)).equals(readFileSync(join(dir, zip)))).toBe(true);
    const line = (text: string) => text.split('\n').find((l) => l.endsWith(`  ${zip}`));
    expect(line(readFileSync(sums, 'utf8'))).toBe(line(readFileSync(join(dir, `${PREFIX}_${version}_SHA256SUMS`), 'utf8')));
  }, 15 * 60_000);

  it.each([
    [['--platforms', 'linux_amd64,solaris_sparc'], /--platforms: unknown platform solaris_sparc; the platforms are linux_amd64,linux_arm64,darwin_amd64,darwin_arm64,windows_amd64/],
    [['--platforms', ''], /--platforms names no platform/],
    [['--gpg-home', '/nonexistent'], /--gpg-home is only used with --gpg-key/],
    [['--gpg-key', 'ABC', '--gpg-home', '/nonexistent-gnupg-home'], /--gpg-home \/nonexistent-gnupg-home does not exist/],
    [['--platform', 'linux_amd64'], /Unknown option '--platform'/],
  ])('refuses %j, naming the option', (args, message) => {
    const result = release(args);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });

  it('refuses an --out folder that holds something else than a release', () => {
    const result = release(['--platforms', 'linux_amd64', '--out', REPO_ROOT]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`--out ${REPO_ROOT} holds files that are not a release of ${version}: give a new or empty folder`);
    expect(existsSync(join(REPO_ROOT, 'package.json'))).toBe(true);
  });
});
