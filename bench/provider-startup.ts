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

/** The go-plugin handshake line: core version, protocol version, network, address, protocol. */
const HANDSHAKE = /^1\|[56]\|(tcp|unix)\|[^|]+\|grpc\|/;

/**
 * Milliseconds from spawn to the first stdout byte, which must start the handshake line (`handshake`), or to a
 * clean exit (`exit`, for `node -e 0`). Anything else (a crash, other output) fails the measurement.
 */
function timeToFirstOutput(command: string, args: string[], env: NodeJS.ProcessEnv, until: 'handshake' | 'exit'): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e6;
    let done = false;
    child.stdout.once('data', (chunk: Buffer) => {
      done = true;
      const ms = elapsed();
      child.kill('SIGKILL');
      if (until === 'handshake' && HANDSHAKE.test(chunk.toString())) resolve(ms);
      else reject(new Error(`${command} printed ${JSON.stringify(chunk.toString().slice(0, 200))} instead of ${until === 'handshake' ? 'the handshake' : 'nothing'}`));
    });
    child.once('exit', (code, signal) => {
      if (done) return;
      if (until === 'exit' && code === 0) resolve(elapsed());
      else reject(new Error(`${command} exited (${code ?? signal}) before ${until === 'handshake' ? 'its handshake' : 'it ended cleanly'}`));
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
    await timeToFirstOutput(process.execPath, ['-e', '0'], env, 'exit');
    await timeToFirstOutput(launcherPath, [], env, 'handshake');
    for (let i = 0; i < RUNS; i++) {
      node.push(await timeToFirstOutput(process.execPath, ['-e', '0'], env, 'exit'));
      provider.push(await timeToFirstOutput(launcherPath, [], env, 'handshake'));
    }
    const ratio = median(provider) / median(node);
    console.log(`node -e 0:                      ${median(node).toFixed(1)} ms (median of ${RUNS})`);
    console.log(`provider launch-to-handshake:   ${median(provider).toFixed(1)} ms (median of ${RUNS}, via the launcher)`);
    console.log(`ratio:                          ${ratio.toFixed(2)}x (goal <= 2.5x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
