/**
 * GET revision against the local platform, with 1 and 50 concurrent clients: prints req/s, p50 and p99, and the CPU
 * time each request cost the server and the load generator. Goal: p99 <= 5 ms at 50 concurrent on a 2-core machine.
 *
 * The platform runs as its own process (the CLI), as users run it, so client and server do not share a thread. Two
 * load generators drive it back to back:
 * - `client`: our `ControlPlaneClient` (transport, timeouts, zod parsing), what the provider pays per call;
 * - `raw`: bare undici dispatches that only count the response bytes, which isolates the server's own latency.
 * Each case is warmed up, then measured in several rounds; the median round (by p99) is reported. On a machine
 * shared with other work the load average says how much of the two cores the figures really had.
 *
 *   npm run bench:control-plane [-- --seconds 4 --rounds 3 --clients 1,50 --cases client,raw]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent, Pool, type Dispatcher } from 'undici';
import { ControlPlaneClient } from '../lib/api/control-plane';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CONNECTIONS = 64;
const WARM_UP_SECONDS = 1;

/** Command-line settings. */
interface BenchSettings {
  readonly seconds: number;
  readonly rounds: number;
  readonly clients: number[];
  readonly cases: LoadCase[];
}

type LoadCase = 'client' | 'raw';

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

function parseSettings(): BenchSettings {
  const cases = (flag('cases') ?? 'client,raw').split(',').filter((c): c is LoadCase => c === 'client' || c === 'raw');
  return {
    seconds: Number(flag('seconds')) || 4,
    rounds: Number(flag('rounds')) || 3,
    clients: (flag('clients') ?? '1,50').split(',').map(Number).filter((n) => n > 0),
    cases: cases.length > 0 ? cases : ['client', 'raw'],
  };
}

/** The platform child process. */
interface Platform {
  readonly url: string;
  readonly apiKey: string;
  readonly pid: number;
  stop(): void;
}

function startPlatform(): Promise<Platform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cp-'));
  const apiKey = 'bench-key-0123456789abcdef';
  const cli = path.join(REPO_ROOT, 'bin', 'agentplatform-local.js');
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, '--port', '0', '--data-dir', dataDir, '--step-ms', '1'],
    // the key in the environment, not on the command line, where every user of the machine can read it
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, AGENTPLATFORM_LOCAL_API_KEYS: apiKey } },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`local platform exited with ${code}: ${out}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /local platform ready at (\S+)/.exec(out);
      if (!ready) return;
      child.removeAllListeners('exit');
      resolve({
        url: ready[1],
        apiKey,
        pid: child.pid!,
        stop: () => {
          child.kill('SIGTERM');
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      });
    });
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined where there is no /proc. */
function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, counted in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const ownCpuSeconds = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

/** Sends one GET revision and resolves when its whole response has arrived. */
type SendOne = () => Promise<void>;

/** A lean load generator: one undici dispatch per request, the body only counted, nothing parsed. */
function rawSender(pool: Dispatcher, platform: Platform, requestPath: string): SendOne {
  const headers = { 'x-api-key': platform.apiKey, accept: 'application/json' };
  return () =>
    new Promise<void>((resolve, reject) => {
      let status = 0;
      pool.dispatch(
        { origin: platform.url, path: requestPath, method: 'GET', headers },
        {
          onRequestStart: () => undefined,
          onResponseStart: (_controller, statusCode) => {
            status = statusCode;
          },
          onResponseData: () => undefined,
          onResponseEnd: () => (status === 200 ? resolve() : reject(new Error(`status ${status}`))),
          onResponseError: (_controller, err) => reject(err),
        },
      );
    });
}

/** Figures of one measured round. */
interface RoundFigures {
  readonly requests: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** Server CPU per request in microseconds (undefined without /proc). */
  readonly serverUs?: number;
  /** Load generator CPU per request in microseconds. */
  readonly clientUs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function runFor(send: SendOne, concurrency: number, seconds: number, serverPid: number): Promise<RoundFigures> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const stopAt = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < stopAt) {
      const start = performance.now();
      await send();
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = performance.now() - start;
    }
  };
  const serverCpu = processCpuSeconds(serverPid);
  const clientCpu = ownCpuSeconds();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const serverCpuAfter = processCpuSeconds(serverPid);
  const clientUs = ((ownCpuSeconds() - clientCpu) / count) * 1e6;
  const serverUs =
    serverCpu === undefined || serverCpuAfter === undefined ? undefined : ((serverCpuAfter - serverCpu) / count) * 1e6;
  const sorted = latencies.subarray(0, count).sort();
  return { requests: count, rps: count / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), serverUs, clientUs };
}

const loadAverage = (): string =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const pad = (value: string, width: number): string => value.padStart(width);
const us = (value: number | undefined): string => (value === undefined ? 'n/a' : value.toFixed(0));

function row(label: string, concurrency: number, r: RoundFigures): string {
  return (
    `${label.padEnd(7)}${pad(String(concurrency), 7)}${pad(r.rps.toFixed(0), 9)}${pad(r.p50.toFixed(2), 9)}` +
    `${pad(r.p99.toFixed(2), 9)}${pad(us(r.serverUs), 11)}${pad(us(r.clientUs), 11)}`
  );
}

async function main(): Promise<void> {
  const settings = parseSettings();
  const platform = await startPlatform();
  const dispatcher = new Agent({ connections: CONNECTIONS, pipelining: 1 });
  const pool = new Pool(platform.url, { connections: CONNECTIONS, pipelining: 1 });
  const client = new ControlPlaneClient({
    baseUrl: platform.url,
    auth: { kind: 'api-key', apiKey: platform.apiKey },
    dispatcher,
  });
  try {
    const deployment = await client.createDeployment({
      name: 'bench-agent',
      source: 'github',
      source_config: { repo_url: 'https://github.com/example/agent', integration_id: 'bench' },
      source_revision_config: { repo_ref: 'main' },
    });
    const revisionId = deployment.latest_revision_id!;
    const requestPath = `/v2/deployments/${deployment.id}/revisions/${revisionId}`;
    const senders: Record<LoadCase, SendOne> = {
      client: async () => void (await client.getRevision(deployment.id, revisionId)),
      raw: rawSender(pool, platform, requestPath),
    };
    console.log(`GET /v2/deployments/{id}/revisions/{id}: ${os.cpus().length} cores, node ${process.version}`);
    console.log(`${settings.rounds} rounds of ${settings.seconds} s per case after a ${WARM_UP_SECONDS} s warm-up; median round by p99`);
    console.log('cpu us/req: CPU time per request of the platform process (server) and of this process (client)\n');
    console.log('case   clients    req/s   p50 ms   p99 ms  server us  client us   p99 of rounds   load avg (1/5/15 min)');
    for (const loadCase of settings.cases) {
      for (const concurrency of settings.clients) {
        await runFor(senders[loadCase], concurrency, WARM_UP_SECONDS, platform.pid);
        const rounds: RoundFigures[] = [];
        for (let i = 0; i < settings.rounds; i++) {
          rounds.push(await runFor(senders[loadCase], concurrency, settings.seconds, platform.pid));
        }
        const byP99 = [...rounds].sort((a, b) => a.p99 - b.p99);
        const median = byP99[Math.floor((byP99.length - 1) / 2)];
        const spread = rounds.map((r) => r.p99.toFixed(1)).join('/');
        console.log(`${row(loadCase, concurrency, median)}   ${spread.padEnd(14)}  ${loadAverage()}`);
      }
    }
    console.log('\ngoal: p99 <= 5 ms at 50 concurrent clients');
  } finally {
    await client.close();
    await dispatcher.close();
    await pool.close();
    platform.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
