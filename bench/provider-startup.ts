/**
 * Launch-to-handshake time of the provider (what terraform waits for, 2–5 times per command) against a bare
 * `node -e 0` of the same Node, median of 15 runs each, interleaved so machine noise hits all alike:
 *  - the launcher (the Node on the PATH runs dist/lib/provider/main.js), against that Node's `node -e 0`;
 *  - `node <SEA main script>` and the linux_amd64 executable without and with code cache, built here as the release
 *    builds it, against `node -e 0` of the pinned Node 22.23.2 they are made of. Goal for the executable: <= 1.2x.
 * Each also gets the time to the first answer (GetProviderSchema over mutual TLS, what terraform asks first), which
 * a handshake printed before the server is ready could not shorten.
 * Run: npm run build && node dist/bench/provider-startup.js [--executables <dir of bench/provider-executable>]
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installProvider } from '../lib/install/provider';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../lib/provider/main';
import { createServerCertificate, type ServerCertificate } from '../lib/provider/plugin/certificate';
import { nodeExecutable } from '../scripts/release/sea';
import { benchExecutables, buildBenchExecutables } from './provider-executable';

const RUNS = 15;

/** The go-plugin handshake line: core version, protocol version, network, address, protocol, certificate. */
const HANDSHAKE = /^1\|6\|(tcp|unix)\|([^|]+)\|grpc\|([A-Za-z0-9+/]*)\n/;

interface Launch {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Label of the `node -e 0` it is compared with; none for a baseline itself. */
  readonly against?: string;
}

interface Timing {
  readonly handshake: number;
  readonly answer?: number;
}

/**
 * Milliseconds from spawn to the handshake line and to the answer of GetProviderSchema, or to a clean exit for
 * `node -e 0` (then `handshake` is the exit). Anything else (a crash, other output) fails the measurement.
 */
function launch(l: Launch, env: NodeJS.ProcessEnv, terraform: ServerCertificate): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(l.command, l.args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e6;
    let printed = false;
    child.stdout.once('data', (chunk: Buffer) => {
      printed = true;
      const handshake = elapsed();
      const m = HANDSHAKE.exec(chunk.toString());
      if (!l.against || !m) {
        child.kill('SIGKILL');
        return reject(new Error(`${l.label} printed ${JSON.stringify(chunk.toString().slice(0, 200))}`));
      }
      firstAnswer(m[1] === 'unix' ? `unix:${m[2]}` : m[2]!, Buffer.from(m[3]!, 'base64'), terraform).then(
        () => resolve({ handshake, answer: elapsed() }),
        reject,
      ).finally(() => child.kill('SIGKILL'));
    });
    child.once('exit', (code, signal) => {
      if (printed) return;
      if (!l.against && code === 0) resolve({ handshake: elapsed() });
      else reject(new Error(`${l.label} exited (${code ?? signal}) before its handshake`));
    });
    child.once('error', reject);
  });
}

/** Calls GetProviderSchema as terraform does (its certificate, the provider's pinned) and waits for the status. */
function firstAnswer(address: string, providerDer: Buffer, terraform: ServerCertificate): Promise<void> {
  const unix = address.startsWith('unix:') ? address.slice('unix:'.length) : undefined;
  const session = http2.connect(unix ? 'https://localhost' : `https://localhost:${address.split(':')[1]}`, {
    ca: new X509Certificate(providerDer).toString(),
    cert: terraform.certPem,
    key: terraform.keyPem,
    ...(unix ? { path: unix } : {}),
  });
  return new Promise((resolve, reject) => {
    session.once('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/tfplugin6.Provider/GetProviderSchema', 'content-type': 'application/grpc' });
    let status: string | undefined;
    stream.on('trailers', (t) => (status = String(t['grpc-status'])));
    stream.once('error', reject);
    stream.on('close', () => {
      session.close();
      if (status === '0') resolve();
      else reject(new Error(`GetProviderSchema answered grpc-status ${status}`));
    });
    stream.resume();
    stream.end(Buffer.alloc(5));
  });
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'provider-startup-'));
  try {
    const { launcherPath } = installProvider({ dir, writeLockFile: false });
    // bench/provider passes the executables it built for its other parts
    const given = process.argv.indexOf('--executables');
    const executables = given > 0 ? benchExecutables(process.argv[given + 1]!) : await buildBenchExecutables(join(dir, 'executables'));
    const terraform = createServerCertificate();
    const env = {
      PATH: process.env.PATH,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '5,6',
      PLUGIN_MIN_PORT: '10000',
      PLUGIN_MAX_PORT: '25000',
      // the launches are killed, so their socket folders are not removed by them
      PLUGIN_UNIX_SOCKET_DIR: dir,
      PLUGIN_CLIENT_CERT: terraform.certPem,
    };
    const node22 = nodeExecutable('linux_amd64');
    const pathNode = `node ${process.version} -e 0`;
    const pinnedNode = 'node 22.23.2 -e 0';
    const launches: Launch[] = [
      { label: pathNode, command: 'node', args: ['-e', '0'] },
      { label: pinnedNode, command: node22, args: ['-e', '0'] },
      { label: 'launcher (PATH node)', command: launcherPath, args: [], against: pathNode },
      { label: 'node 22.23.2 <SEA main>', command: node22, args: [executables.bundle.main], against: pinnedNode },
      { label: 'executable, no code cache', command: executables.plain, args: [], against: pinnedNode },
      { label: 'executable, code cache', command: executables.cached, args: [], against: pinnedNode },
    ];
    const timings = new Map<string, Timing[]>(launches.map((l) => [l.label, []]));
    for (const l of launches) await launch(l, env, terraform);
    for (let i = 0; i < RUNS; i++) for (const l of launches) timings.get(l.label)!.push(await launch(l, env, terraform));
    const handshake = (label: string): number => median(timings.get(label)!.map((t) => t.handshake));
    console.log(`median of ${RUNS}, interleaved                       to handshake (ratio)      to first answer`);
    for (const l of launches) {
      const ms = handshake(l.label);
      const ratio = l.against ? `(${(ms / handshake(l.against)).toFixed(2)}x ${l.against.split(' -e')[0]})` : '';
      const answer = l.against ? `${median(timings.get(l.label)!.map((t) => t.answer!)).toFixed(1)} ms` : '';
      console.log(`  ${l.label.padEnd(30)} ${ms.toFixed(1).padStart(7)} ms ${ratio.padEnd(22)} ${answer.padStart(10)}`);
    }
    console.log('  goal: the executable with code cache <= 1.2x node 22.23.2');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
