/**
 * Hostile requests against a running local platform, each while a steady stream of ordinary requests goes on: prints
 * for each the time to answer and its status, the platform's RSS before and after, and the worst latency of the
 * ordinary requests meanwhile. Goal: every answer under 100 ms, RSS flat, every ordinary request answered.
 *
 * The requests: a 2 MB body of a million nested arrays ending in a lone surrogate (six times, on two APIs), an
 * export filter with a 20,000-character `like` pattern, bytes that are not UTF-8, a sandbox template with a bearer
 * token (its answer must not show it), and a path with newlines and terminal escapes (the `--verbose` log must keep it
 * on one escaped line). Then, in this process, what one `like` costs per run within the local platform's pattern limit,
 * and, when it starts the platform, a second one bound to 0.0.0.0 (its warning, and the URL its ready line names).
 *
 * By default it starts the platform (the CLI, `--verbose`, its own data dir) as users run it; `--url` and `--api-key`
 * use a running one instead (with `--pid`, its RSS is read from /proc).
 *
 *   npm run bench:hostile [-- --clients 4 --url http://127.0.0.1:8123 --api-key KEY --pid 1234]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent, request } from 'undici';
import { likeMatcher } from '../lib/api/filter/values';
import { MAX_LIKE_PATTERN_CHARS } from '../lib/local/tracing/filter-limits';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO_ROOT, 'bin', 'agentplatform-local.js');
const GOAL_MS = 100;

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

/** A platform to send requests to. */
interface Platform {
  readonly url: string;
  readonly apiKey: string;
  readonly pid: number | undefined;
  /** What it printed on stderr so far ('' when it is not ours). */
  readonly stderr: () => string;
  stop(): Promise<void>;
}

/** Starts the CLI with `args` in a new data dir; resolves once its ready line is printed. */
function startCli(args: string[]): Promise<Platform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hostile-'));
  const apiKey = 'bench-hostile-key-0123456789';
  const child: ChildProcess = spawn(process.execPath, [CLI, '--port', '0', '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AGENTPLATFORM_LOCAL_API_KEYS: apiKey },
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`local platform exited with ${code}: ${out}${err}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /local platform ready at (\S+)/.exec(out);
      if (!ready) return;
      child.removeAllListeners('exit');
      resolve({
        url: ready[1]!,
        apiKey,
        pid: child.pid,
        stderr: () => err,
        stop: () =>
          new Promise<void>((done) => {
            child.once('exit', () => {
              fs.rmSync(dataDir, { recursive: true, force: true });
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** The resident set of a process in MB, from /proc; undefined where it cannot be read. */
function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const dispatcher = new Agent({ connections: 32 });

/** One request: its status, body text and time to the whole answer. */
async function send(platform: Platform, method: string, urlPath: string, body?: string | Buffer): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const answer = await request(`${platform.url}${urlPath}`, {
    method: method as 'GET',
    dispatcher,
    headers: { 'x-api-key': platform.apiKey, 'content-type': 'application/json' },
    body,
  });
  const text = await answer.body.text();
  return { status: answer.statusCode, text, ms: performance.now() - started };
}

/** An ordinary request that was answered (or failed), with when it started and ended. */
interface Ordinary {
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
}

/** `clients` loops of ordinary requests until stopped. */
function ordinaryLoad(platform: Platform, clients: number): { done: Ordinary[]; stop: () => Promise<void> } {
  const done: Ordinary[] = [];
  let running = true;
  const loop = async (n: number): Promise<void> => {
    const paths = ['/v2/deployments', '/v2/sandboxes/templates', '/api/v1/sessions'];
    for (let i = n; running; i++) {
      const start = performance.now();
      let ok = false;
      try {
        ok = (await send(platform, 'GET', paths[i % paths.length]!)).status === 200;
      } catch {
        ok = false;
      }
      done.push({ start, end: performance.now(), ok });
    }
  };
  const loops = Array.from({ length: clients }, (_, n) => loop(n));
  return {
    done,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** One hostile request: what it sends and what a good answer is. */
interface Hostile {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string | Buffer;
  /** Why the answer is not what it should be, or undefined. */
  readonly check: (status: number, text: string, platform: Platform) => string | undefined;
}

const expectStatus = (wanted: number) => (status: number) => (status === wanted ? undefined : `status ${status}, wanted ${wanted}`);
const TOKEN = 'Bearer bench-SECRET-0123456789';

function hostileRequests(): Hostile[] {
  const deep = `${'['.repeat(1_000_000)}"\\ud800"${']'.repeat(1_000_000)}`;
  const deepRequests = Array.from({ length: 6 }, (_, n): Hostile => ({
    name: `1M nested arrays + lone surrogate (${(deep.length / 1e6).toFixed(1)} MB) #${n + 1}`,
    method: 'POST',
    path: n % 2 === 0 ? '/v2/deployments' : '/api/v1/runs/batch',
    body: deep,
    check: expectStatus(422),
  }));
  const exportBody = {
    bulk_export_destination_id: '5e1f0000-0000-4000-8000-0000000000bb',
    session_id: '5e1f0000-0000-4000-8000-0000000000cc',
    start_time: '2024-01-01T00:00:00Z',
    end_time: '2024-01-02T00:00:00Z',
    filter: `like(name, "%${'a_'.repeat(10_000)}%")`,
  };
  const forged = '/v2/deployments/x%0AGET%20/v2/deployments%20200%201.0ms%0D%1B%5B2J%E2%80%AE';
  return [
    ...deepRequests,
    { name: 'export filter: like pattern of 20,000 characters', method: 'POST', path: '/api/v1/bulk-exports', body: JSON.stringify(exportBody), check: expectStatus(422) },
    {
      name: 'body with bytes that are not UTF-8',
      method: 'POST',
      path: '/v2/sandboxes/templates',
      body: Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xff, 0xe2, 0x82]), Buffer.from('","image":"i"}')]),
      check: (status, text) => (status === 422 && text.includes('string_unicode') ? undefined : `status ${status}: ${text.slice(0, 120)}`),
    },
    {
      name: 'sandbox template with a bearer token',
      method: 'POST',
      path: '/v2/sandboxes/templates',
      body: JSON.stringify({ name: `bench-${process.pid}`, image: 'i', proxy_config: { rules: [{ name: 'r', match_hosts: ['h'], inject_headers: { Authorization: TOKEN } }] } }),
      check: (status, text) => (status !== 201 ? `status ${status}` : text.includes('SECRET') ? 'the token came back' : undefined),
    },
    {
      name: 'path with newline, CR, ESC, RLO',
      method: 'GET',
      path: forged,
      check: (status, _text, platform) => {
        if (status !== 404) return `status ${status}`;
        const log = platform.stderr();
        if (log === '') return undefined;
        const lines = log.split('\n').filter((line) => line.includes('/v2/deployments/x'));
        return lines.length === 1 && !/[\x00-\x09\x0b-\x1f\u202e]/.test(log) ? undefined : `log: ${JSON.stringify(lines)}`;
      },
    },
  ];
}

const fixed = (value: number | undefined, digits = 1): string => (value === undefined ? 'n/a' : value.toFixed(digits));

/** Runs each hostile request under the ordinary load; prints one row each. True when every goal held. */
async function measure(platform: Platform, clients: number): Promise<boolean> {
  const load = ordinaryLoad(platform, clients);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  let allGood = true;
  console.log(`${'request'.padEnd(52)} ${'status'.padStart(6)} ${'answer ms'.padStart(9)} ${'RSS MB before'.padStart(13)} ${'after'.padStart(7)} ${'others: worst ms'.padStart(16)} ${'answered'.padStart(8)} ${'failed'.padStart(6)}  verdict`);
  for (const hostile of hostileRequests()) {
    const before = rssMb(platform.pid);
    const from = performance.now();
    const answer = await send(platform, hostile.method, hostile.path, hostile.body);
    const to = performance.now();
    // the ordinary requests that overlapped the hostile one, and one more round after it
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = rssMb(platform.pid);
    const meanwhile = load.done.filter((o) => o.end >= from && o.start <= to);
    const worst = Math.max(0, ...meanwhile.map((o) => o.end - o.start));
    const failed = meanwhile.filter((o) => !o.ok).length;
    const problem = hostile.check(answer.status, answer.text, platform);
    const good = problem === undefined && answer.ms < GOAL_MS && worst < GOAL_MS && failed === 0;
    allGood &&= good;
    console.log(
      `${hostile.name.padEnd(52)} ${String(answer.status).padStart(6)} ${fixed(answer.ms).padStart(9)} ${fixed(before).padStart(13)} ${fixed(after).padStart(7)} ` +
        `${fixed(worst).padStart(16)} ${String(meanwhile.length).padStart(8)} ${String(failed).padStart(6)}  ${good ? 'ok' : `MISSED${problem ? `: ${problem}` : ''}`}`,
    );
  }
  // a garbage-collected heap is not flat from one request to the next: whether it grows is told over many
  const deep = hostileRequests()[0]!;
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    await send(platform, deep.method, deep.path, deep.body);
    const rss = rssMb(platform.pid);
    if (rss !== undefined) samples.push(rss);
  }
  if (samples.length > 0) {
    const third = (part: number) => samples.slice(part * 10, part * 10 + 10);
    const range = (values: number[]) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
    console.log(`
RSS over 30 more deep bodies, by tens: ${[0, 1, 2].map((part) => range(third(part))).join(' MB, ')} MB`);
  }
  await load.stop();
  const failed = load.done.filter((o) => !o.ok).length;
  const worst = Math.max(...load.done.map((o) => o.end - o.start));
  console.log(`\nordinary requests in all: ${load.done.length} answered, ${failed} failed, worst ${worst.toFixed(1)} ms (${clients} clients)`);
  return allGood && failed === 0;
}

/** What one `like` costs on a run name of 200,000 characters, in this process: the worst patterns the platform takes. */
function likeCosts(): void {
  const name = 'a'.repeat(200_000);
  const cases: [string, string][] = [
    [`longest pattern with _ (${MAX_LIKE_PATTERN_CHARS} chars)`, `%${'a_'.repeat((MAX_LIKE_PATTERN_CHARS - 3) / 2)}b%`],
    ['pattern without _ (20,000 chars)', `%${'a'.repeat(19_998)}b`],
    ['10,000 runs between % (20,000 chars)', `${'%a'.repeat(10_000)}%b%`],
  ];
  console.log(`\nlike() on a run name of 200,000 characters (in this process, per run):`);
  for (const [label, pattern] of cases) {
    const matches = likeMatcher(pattern);
    matches(name);
    const rounds = 5;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) matches(name);
    console.log(`  ${label.padEnd(44)} ${((performance.now() - started) / rounds).toFixed(1)} ms`);
  }
}

/**
 * A platform bound to 0.0.0.0: whether it warns, the URL its ready line names, and whether it answers (through
 * loopback: a bench sends nothing to another address).
 */
async function wildcardHost(): Promise<void> {
  const started = performance.now();
  const platform = await startCli(['--host', '0.0.0.0']);
  const ready = performance.now() - started;
  const viaLoopback = new URL(platform.url);
  viaLoopback.hostname = '127.0.0.1';
  const answer = await send({ ...platform, url: viaLoopback.origin }, 'GET', '/v2/deployments');
  const warned = platform.stderr().includes('warning: serving on every network interface');
  console.log(`\n--host 0.0.0.0: ready in ${ready.toFixed(0)} ms at ${platform.url}; warning on stderr: ${warned ? 'yes' : 'NO'}; GET through loopback: ${answer.status} in ${answer.ms.toFixed(1)} ms`);
  await platform.stop();
}

async function main(): Promise<void> {
  const clients = Number(flag('clients')) || 4;
  const url = flag('url');
  const pidFlag = flag('pid');
  const platform: Platform = url
    ? { url, apiKey: flag('api-key') ?? '', pid: pidFlag ? Number(pidFlag) : undefined, stderr: () => '', stop: async () => undefined }
    : await startCli(['--verbose']);
  console.log(`hostile requests against ${platform.url} (${os.cpus().length} cores, load ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}, node ${process.version})`);
  console.log(`goal: every answer under ${GOAL_MS} ms, RSS flat, every ordinary request answered (worst under ${GOAL_MS} ms)\n`);
  let good: boolean;
  try {
    good = await measure(platform, clients);
  } finally {
    await platform.stop();
  }
  likeCosts();
  if (!url) await wildcardHost();
  await dispatcher.close();
  console.log(good ? '\nevery goal held' : '\nsome goal was missed (see MISSED above)');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
