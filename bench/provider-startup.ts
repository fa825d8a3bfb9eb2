/**
 * Launch-to-handshake time of the provider (what terraform waits for, 2–5 times per command) against a bare
 * `node -e 0`, median of 15 runs each, interleaved so machine noise hits both alike. Goal: ratio <= 2.5.
 * Run: npm run build && node dist/bench/provider-startup.js
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installProvider } from '../lib/install/provider';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../lib/provider/main';
import { createServerCertificate } from '../lib/provider/plugin/certificate';

const RUNS = 15;

/** Milliseconds from spawn to the first stdout byte (or to exit when nothing is printed). */
function timeToFirstOutput(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e6;
    let done = false;
    child.stdout.once('data', () => {
      done = true;
      resolve(elapsed());
      child.kill('SIGKILL');
    });
    child.once('exit', () => {
      if (!done) resolve(elapsed());
    });
    child.once('error', reject);
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'provider-startup-'));
  try {
    const { launcherPath } = installProvider({ dir, writeLockFile: false });
    const env = {
      PATH: process.env.PATH,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '5,6',
      PLUGIN_MIN_PORT: '10000',
      PLUGIN_MAX_PORT: '25000',
      PLUGIN_CLIENT_CERT: createServerCertificate().certPem,
    };
    const node: number[] = [];
    const provider: number[] = [];
    await timeToFirstOutput(process.execPath, ['-e', '0'], env);
    await timeToFirstOutput(launcherPath, [], env);
    for (let i = 0; i < RUNS; i++) {
      node.push(await timeToFirstOutput(process.execPath, ['-e', '0'], env));
      provider.push(await timeToFirstOutput(launcherPath, [], env));
    }
    const ratio = median(provider) / median(node);
    console.log(`node -e 0:                      ${median(node).toFixed(1)} ms (median of ${RUNS})`);
    console.log(`provider launch-to-handshake:   ${median(provider).toFixed(1)} ms (median of ${RUNS}, via the launcher)`);
    console.log(`ratio:                          ${ratio.toFixed(2)}x (goal <= 2.5x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
