/**
 * What an app of constructs installs: today's way (the repository package's tarball, which brings the local
 * platform's dependencies, a native SQLite addon built from C++ and the AWS bindings) against the tarball of
 * `@agentplatform/cdktf`. Each goes into a fresh app with cdktf@0.21.0 and constructs@10.4.2, with a fresh npm cache
 * (both download everything from the registry), and the benchmark prints the size of the app's `node_modules`, its
 * number of packages and the install's wall time, then the ratios.
 *
 * Run: npm run bench:install (it builds the packages first)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { packageRoot } from '../lib/provider/constants';
import { tarballPath } from '../scripts/build-packages';

/** What the app installs besides the package. */
const PEERS = ['cdktf@0.21.0', 'constructs@10.4.2'];

interface Install {
  readonly label: string;
  /** The files' sizes added up. */
  readonly bytes: number;
  /** What `du` counts: the blocks the files take on this file system. */
  readonly diskBytes: number;
  readonly packages: number;
  readonly seconds: number;
}

function sizeOf(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

/** Installed packages under a node_modules folder, nested ones included. */
function countPackages(nodeModules: string): number {
  if (!existsSync(nodeModules)) return 0;
  return readdirSync(nodeModules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((sub) => join(name, sub)) : [name]))
    .reduce((sum, pkg) => sum + 1 + countPackages(join(nodeModules, pkg, 'node_modules')), 0);
}

function run(command: string, args: readonly string[], cwd: string): void {
  const result = spawnSync(command, [...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed with ${result.status}:\n${result.stdout}${result.stderr}`);
}

function measure(label: string, tarball: string): Install {
  const app = mkdtempSync(join(tmpdir(), 'bench-install-'));
  try {
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true }));
    const started = performance.now();
    run('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', '--cache', join(app, '.npm-cache'), tarball, ...PEERS], app);
    const seconds = (performance.now() - started) / 1000;
    const du = spawnSync('du', ['-sk', 'node_modules'], { cwd: app, encoding: 'utf8' });
    const diskBytes = Number(du.stdout.split('\t')[0]) * 1024;
    return { label, bytes: sizeOf(join(app, 'node_modules')), diskBytes, packages: countPackages(join(app, 'node_modules')), seconds };
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
}

function main(): void {
  const root = packageRoot();
  const packed = mkdtempSync(join(tmpdir(), 'bench-pack-'));
  try {
    run('npm', ['pack', '--ignore-scripts', '--pack-destination', packed], root);
    const rootTarball = join(packed, readdirSync(packed).find((name) => name.endsWith('.tgz'))!);
    process.stdout.write(`install into a fresh app with ${PEERS.join(' ')} and a fresh npm cache (Node ${process.version})\n`);
    const results = [measure('cdktf-agent-platform (root tarball, today)', rootTarball), measure('@agentplatform/cdktf', tarballPath('cdktf'))];
    for (const r of results) {
      process.stdout.write(`${r.label.padEnd(44)} node_modules ${(r.bytes / 1e6).toFixed(1).padStart(7)} MB (${(r.diskBytes / 1e6).toFixed(1).padStart(7)} MB on disk)  ${String(r.packages).padStart(4)} packages  ${r.seconds.toFixed(1).padStart(6)} s\n`);
    }
    const [before, after] = results as [Install, Install];
    process.stdout.write(`ratio (today / @agentplatform/cdktf): size ${(before.bytes / after.bytes).toFixed(1)}x (on disk ${(before.diskBytes / after.diskBytes).toFixed(1)}x), time ${(before.seconds / after.seconds).toFixed(1)}x\n`);
  } finally {
    rmSync(packed, { recursive: true, force: true });
  }
}

main();
