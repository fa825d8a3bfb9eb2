/**
 * Offline installation as a library and as a CLI: launcher, package hash, lock file merging, idempotence.
 * (That terraform accepts the hash is proven in terraform-install.test.ts: a wrong one fails `terraform init`.)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { PROVIDER_ADDRESS, PROVIDER_VERSION, packageRoot } from '../../lib/provider/constants';
import { main } from '../../lib/provider/cli';
import { ENTRY_FILE, defaultEntryPoint, installProvider, launcherScript, mergeLockFile, packageHash, terraformPlatform } from '../../lib/install/provider';
import { createLogger, logLevelFromEnv } from '../../lib/provider/log';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'provider-install-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const OTHER_PROVIDER = `provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.0.0"
  constraints = "~> 5.0"
  hashes = [
    "h1:abc=",
    "zh:def",
  ]
}
`;

describe('installProvider', () => {
  it('writes an executable launcher into the implied local mirror and a lock file with its hash', () => {
    const dir = tempDir();
    const result = installProvider({ dir, nodePath: '/opt/node/bin/node', entryPoint: '/srv/app/main.js' });

    const expectedDir = join(dir, 'terraform.d/plugins', PROVIDER_ADDRESS, PROVIDER_VERSION, terraformPlatform());
    expect(result.packageDir).toBe(expectedDir);
    expect(result.launcherPath).toBe(join(expectedDir, `terraform-provider-agentplatform_v${PROVIDER_VERSION}`));
    expect(statSync(result.launcherPath).mode & 0o111).toBe(0o111);
    expect(readFileSync(result.launcherPath, 'utf8')).toBe(launcherScript('/opt/node/bin/node'));
    expect(readFileSync(result.launcherPath, 'utf8')).toContain(`node='/opt/node/bin/node'`);
    // where the entry point is: beside the plugins directory, outside the package terraform hashes
    const terraformD = realpathSync(join(dir, 'terraform.d'));
    expect(readFileSync(join(terraformD, ENTRY_FILE), 'utf8')).toBe(`${relative(terraformD, '/srv/app/main.js')}\n`);
    expect(readFileSync(result.lockFilePath!, 'utf8')).toBe(
      `# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n\n` +
        `provider "${PROVIDER_ADDRESS}" {\n  version = "${PROVIDER_VERSION}"\n  hashes = [\n    "${result.hash}",\n  ]\n}\n`,
    );
  });

  it('writes no path of the machine: two checkouts of one project get the same launcher, so the same lock file hash', () => {
    const checkouts = [tempDir(), tempDir()].map((root) => {
      mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
      writeFileSync(join(root, 'node_modules', 'pkg', 'main.js'), '');
      return installProvider({ dir: join(root, 'infra'), entryPoint: join(root, 'node_modules', 'pkg', 'main.js') });
    });
    expect(checkouts[0].hash).toBe(checkouts[1].hash);
    expect(readFileSync(checkouts[0].launcherPath, 'utf8')).not.toContain(tmpdir());
    expect(readFileSync(checkouts[0].launcherPath, 'utf8')).not.toContain(process.execPath);
  });

  it('runs the entry point with node from the PATH, AGENTPLATFORM_NODE or nodePath, and says so when there is none', () => {
    const root = tempDir();
    const entry = join(root, 'main.js');
    writeFileSync(entry, 'process.stdout.write(`provider ${process.argv.slice(2).join(" ")}`);');
    const infra = join(root, 'infra');
    const { launcherPath } = installProvider({ dir: infra, entryPoint: entry, writeLockFile: false });
    const run = (args: string[], env: NodeJS.ProcessEnv, cwd = infra) => spawnSync(launcherPath, args, { encoding: 'utf8', env, cwd });
    const onPath = run(['a', 'b c'], { PATH: dirname(process.execPath) });
    expect([onPath.status, onPath.stdout]).toEqual([0, 'provider a b c']);
    const byEnv = run(['x'], { PATH: '/nonexistent', AGENTPLATFORM_NODE: process.execPath });
    expect([byEnv.status, byEnv.stdout]).toEqual([0, 'provider x']);
    // from another working directory (where the relative path leads nowhere), it is found from the launcher's own
    const nowhere = join(root, 'a', 'b', 'c', 'd');
    mkdirSync(nowhere, { recursive: true });
    const elsewhere = run(['y'], { PATH: dirname(process.execPath) }, nowhere);
    expect([elsewhere.status, elsewhere.stdout]).toEqual([0, 'provider y']);
    const none = run([], { PATH: '/nonexistent' });
    expect(none.status).toBe(127);
    expect(none.stderr).toContain('agentplatform provider: node (Node.js 20 or later) not found: put node on PATH, or set AGENTPLATFORM_NODE to it');

    // a Node.js given by path (a path with a space and a quote, to prove the quoting)
    const odd = join(root, "node's bin");
    mkdirSync(odd);
    symlinkSync(process.execPath, join(odd, 'node'));
    const pinned = installProvider({ dir: join(root, 'pinned'), entryPoint: entry, nodePath: join(odd, 'node'), writeLockFile: false });
    const byPath = spawnSync(pinned.launcherPath, ['z'], { encoding: 'utf8', env: { PATH: '/nonexistent' }, cwd: join(root, 'pinned') });
    expect([byPath.status, byPath.stdout]).toEqual([0, 'provider z']);
  });

  it('runs the provider of the working directory\'s checkout, so a launcher that terraform\'s plugin cache shares runs each checkout\'s own', () => {
    const [first, second] = ['first', 'second'].map((name) => {
      const root = tempDir();
      mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
      writeFileSync(join(root, 'node_modules', 'pkg', 'main.js'), `process.stdout.write(${JSON.stringify(name)});`);
      return { root, install: installProvider({ dir: join(root, 'infra'), entryPoint: join(root, 'node_modules', 'pkg', 'main.js'), writeLockFile: false }) };
    });
    expect(first!.install.hash).toBe(second!.install.hash);
    // the first checkout's launcher (the one the cache would hold) run by terraform in the second checkout
    const ran = spawnSync(first!.install.launcherPath, [], { encoding: 'utf8', env: { PATH: dirname(process.execPath) }, cwd: join(second!.root, 'infra') });
    expect([ran.status, ran.stdout]).toEqual([0, 'second']);
  });

  it('writes one launcher for configurations at any depth, so they share a plugin cache; each runs the provider it was installed for', () => {
    const root = tempDir();
    const [shallow, deep] = ['app', 'prod'].map((name) => {
      const entry = join(root, 'node_modules', name, 'main.js');
      mkdirSync(dirname(entry), { recursive: true });
      writeFileSync(entry, `process.stdout.write(${JSON.stringify(name)});`);
      const dir = name === 'app' ? join(root, 'infra', 'app') : join(root, 'infra', 'envs', 'prod', 'eu');
      return { dir, ...installProvider({ dir, entryPoint: entry, writeLockFile: false }) };
    });
    expect(shallow!.hash).toBe(deep!.hash);
    expect(readFileSync(shallow!.launcherPath, 'utf8')).toBe(readFileSync(deep!.launcherPath, 'utf8'));
    // the shallow one's launcher run by terraform in the deep configuration runs the deep one's provider
    const env = { PATH: dirname(process.execPath) };
    const ran = spawnSync(shallow!.launcherPath, [], { encoding: 'utf8', env, cwd: deep!.dir });
    expect([ran.status, ran.stdout]).toEqual([0, 'prod']);
    // an entry file checked out with Windows line ends
    const entryFile = join(deep!.dir, 'terraform.d', ENTRY_FILE);
    writeFileSync(entryFile, readFileSync(entryFile, 'utf8').replace('\n', '\r\n'));
    expect(spawnSync(shallow!.launcherPath, [], { encoding: 'utf8', env, cwd: deep!.dir }).stdout).toBe('prod');
    // run from a plugin cache in a configuration the provider was never installed for: told what to run
    const cached = join(root, 'cache', relative(join(root, 'infra', 'app', 'terraform.d', 'plugins'), shallow!.launcherPath));
    mkdirSync(dirname(cached), { recursive: true });
    copyFileSync(shallow!.launcherPath, cached);
    chmodSync(cached, 0o755);
    const bare = join(root, 'bare');
    mkdirSync(bare);
    const missing = spawnSync(cached, [], { encoding: 'utf8', env: { PATH: dirname(process.execPath) }, cwd: bare });
    expect([missing.status, missing.stderr.trim()]).toEqual([1, `agentplatform provider: ${realpathSync(bare)}/terraform.d/${ENTRY_FILE} is missing: run node_modules/.bin/agentplatform-provider install in ${realpathSync(bare)}`]);
  });

  it('runs from a mirror elsewhere through a symlink at another depth, as terraform links a filesystem mirror into .terraform', () => {
    const root = tempDir();
    const entry = join(root, 'checkout', 'node_modules', 'pkg', 'main.js');
    mkdirSync(dirname(entry), { recursive: true });
    writeFileSync(entry, "process.stdout.write('mirrored');");
    const mirror = installProvider({ dir: join(root, 'mirror'), entryPoint: entry, writeLockFile: false });
    // terraform's working directory, two folders deeper than the mirror, links the package directory into .terraform
    const work = join(root, 'elsewhere', 'deeper', 'work');
    const linked = join(work, '.terraform', 'providers', relative(join(root, 'mirror', 'terraform.d', 'plugins'), mirror.packageDir));
    mkdirSync(dirname(linked), { recursive: true });
    symlinkSync(mirror.packageDir, linked, 'dir');
    const ran = spawnSync(relative(work, join(linked, basename(mirror.launcherPath))), [], { encoding: 'utf8', env: { PATH: dirname(process.execPath) }, cwd: work });
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([0, 'mirrored', '']);
  });

  it('hashes the package directory as terraform does (dirhash Hash1)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'b'), 'two');
    writeFileSync(join(dir, 'a'), 'one');
    writeFileSync(join(dir, 'sub', 'c'), 'three');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const summary = `${sha('one')}  a\n${sha('two')}  b\n${sha('three')}  sub/c\n`;
    expect(packageHash(dir)).toBe(`h1:${createHash('sha256').update(summary).digest('base64')}`);
  });

  it('is idempotent and keeps other providers in an existing lock file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.terraform.lock.hcl'), `# header\n\n${OTHER_PROVIDER}`);
    const first = installProvider({ dir });
    const lock = readFileSync(first.lockFilePath!, 'utf8');
    const second = installProvider({ dir });

    expect(second.hash).toBe(first.hash);
    expect(readFileSync(second.lockFilePath!, 'utf8')).toBe(lock);
    expect(lock).toContain(OTHER_PROVIDER);
    expect(lock.indexOf(PROVIDER_ADDRESS)).toBeLessThan(lock.indexOf('hashicorp/aws'));
  });

  it('replaces the entry of an older version of this provider', () => {
    const old = mergeLockFile('', PROVIDER_ADDRESS, '0.0.1', ['h1:old=']);
    const merged = mergeLockFile(old + '\n' + OTHER_PROVIDER, PROVIDER_ADDRESS, '0.2.0', ['h1:new=']);
    expect(merged).not.toContain('h1:old=');
    expect(merged).toContain('version = "0.2.0"');
    expect(merged.match(/provider "/g)).toHaveLength(2);
  });

  it('maps platforms to terraform names', () => {
    expect(terraformPlatform('linux', 'x64')).toBe('linux_amd64');
    expect(terraformPlatform('darwin', 'arm64')).toBe('darwin_arm64');
    expect(() => terraformPlatform('aix', 'ppc64')).toThrow('no platform');
  });
});

describe('defaultEntryPoint', () => {
  const withFiles = (...files: string[][]): string => {
    const root = tempDir();
    for (const file of files) {
      mkdirSync(join(root, ...file.slice(0, -1)), { recursive: true });
      writeFileSync(join(root, ...file), '');
    }
    return root;
  };

  it("is this repository's compiled provider, and the bundle in a construct package", () => {
    expect(defaultEntryPoint()).toBe(join(packageRoot(), 'dist', 'lib', 'provider', 'main.js'));
    const built = withFiles(['dist', 'lib', 'provider', 'main.js']);
    expect(defaultEntryPoint(built)).toBe(join(built, 'dist', 'lib', 'provider', 'main.js'));
    const bundled = withFiles(['provider', 'agentplatform-provider.js'], ['lib', 'constructs', 'index.js']);
    expect(defaultEntryPoint(bundled)).toBe(join(bundled, 'provider', 'agentplatform-provider.js'));
  });

  it('names the compiled provider when neither is there, so the error says to build', () => {
    const empty = withFiles();
    expect(defaultEntryPoint(empty)).toBe(join(empty, 'dist', 'lib', 'provider', 'main.js'));
  });
});

describe('agentplatform-provider CLI', () => {
  it('installs into --dir and says where', () => {
    const dir = tempDir();
    const output: string[] = [];
    expect(main(['install', '--dir', dir], (t) => output.push(t))).toBe(0);
    expect(output.join('')).toContain(`Installed agentplatform/agentplatform ${PROVIDER_VERSION}`);
    expect(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).toContain(PROVIDER_ADDRESS);
  });

  it('runs as the package bin, from the compiled code', () => {
    const dir = tempDir();
    const result = spawnSync(process.execPath, [join(packageRoot(), 'bin', 'agentplatform-provider.js'), 'install', `--dir=${dir}`], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).toContain(PROVIDER_ADDRESS);
  });

  it('rejects unknown commands and arguments with the usage', () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(main(['uninstall'])).toBe(2);
      expect(main(['install', '--force'])).toBe(2);
      expect(String(stderr.mock.calls[0]![0])).toContain('Usage: agentplatform-provider mirror --release DIR --dir MIRROR [--url URL]\n       agentplatform-provider install [--dir DIR]');
    } finally {
      stderr.mockRestore();
    }
  });

  it('refuses --dir without a directory, and reports a directory it cannot write without a stack trace', () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(main(['install', '--dir'])).toBe(2);
      expect(main(['install', '--dir='])).toBe(2);
      expect(stderr.mock.calls.slice(0, 2).map((call) => String(call[0]).split('\n')[0])).toEqual([
        '--dir needs a directory, e.g. --dir infra (leave it out for the current directory).',
        '--dir needs a directory, e.g. --dir infra (leave it out for the current directory).',
      ]);
      const file = join(tempDir(), 'a-file');
      writeFileSync(file, 'not a directory');
      expect(main(['install', '--dir', file], () => undefined)).toBe(1);
      const message = String(stderr.mock.calls[2]![0]);
      expect(message).toMatch(/^agentplatform-provider install: .*(ENOTDIR|EEXIST)/);
      expect(message).not.toMatch(/^\s+at /m);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('provider logs', () => {
  it('follow TF_LOG_PROVIDER, then TF_LOG, and write nothing when neither is set', () => {
    expect(logLevelFromEnv({})).toBeUndefined();
    expect(logLevelFromEnv({ TF_LOG: 'info' })).toBe('INFO');
    expect(logLevelFromEnv({ TF_LOG: 'info', TF_LOG_PROVIDER: 'trace' })).toBe('TRACE');
    expect(logLevelFromEnv({ TF_LOG: 'json' })).toBe('TRACE');
    expect(logLevelFromEnv({ TF_LOG: 'off' })).toBeUndefined();
  });

  it('prefix every line with its level and drop lines below the level', () => {
    const dir = tempDir();
    const path = join(dir, 'log');
    writeFileSync(path, '');
    const fd = openSync(path, 'a');
    const log = createLogger('WARN', fd);
    log.info('hidden');
    log.warn('two\nlines');
    log.error('bad');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe(
      '[WARN] provider.agentplatform: two\n[WARN] provider.agentplatform: lines\n[ERROR] provider.agentplatform: bad\n',
    );
  });
});
