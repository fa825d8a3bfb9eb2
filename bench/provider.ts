/**
 * The provider under the real terraform, against the local platform (in this process), in one run:
 *  (a) launch-to-handshake time against `node -e 0` of the same Node (bench/provider-startup): the launcher, and the
 *      linux_amd64 executable (built here as the release builds it), goal for the executable <= 1.2x;
 *  (b) `terraform plan` with no changes of 100 deployments next to one of 100 `terraform_data`, with the launcher
 *      and with the executable (installed in the implied local mirror, no `node` on terraform's PATH), with and
 *      without refresh, goal for the executable <= 2x `terraform_data`; and where one plan's time goes, from
 *      terraform's trace log (each launch of the provider, each RPC);
 *  (c) wait latency: apply's return minus the instant the revision turned DEPLOYED (its `updated_at`), p50 over 20
 *      applies, goal <= 1 s; and the revision GETs per wait against a fixed 5 s poll of the same revisions;
 *  (d) apply of 100 deployments with 2 s build steps at -parallelism=20 against 1, goal >= 10x.
 *
 *   npm run bench:provider [-- --parts a,b,c,d]
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneClient } from '../lib/api/control-plane';
import { DEFAULT_PIPELINE_TIMINGS, type PipelineTimings } from '../lib/local/control-plane/pipeline';
import { startLocalPlatform, type LocalPlatform } from '../lib/local/platform';
import { applyPlatformV8Flags } from '../lib/local/v8-flags';
import { installProvider } from '../lib/install/provider';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_VERSION } from '../lib/provider/constants';
import { benchExecutables, buildBenchExecutables } from './provider-executable';
import { planTrace } from './provider-trace';

const PLAN_RUNS = 5;
const WAIT_APPLIES = 20;
const FIXED_POLL_MS = 5000;
const QUICK_STEPS: Partial<PipelineTimings> = {
  creatingMs: 20,
  queuedMs: 20,
  awaitingBuildMs: 20,
  buildingMs: 20,
  awaitingDeployMs: 20,
  deployingMs: 20,
  deleteDelayMs: 100,
};

/** The local platform with a client, and every request line it served (to count polls). */
interface BenchPlatform {
  readonly platform: LocalPlatform;
  readonly client: ControlPlaneClient;
  readonly requests: string[];
  close(): Promise<void>;
}

async function startPlatform(timings: Partial<PipelineTimings>): Promise<BenchPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-provider-platform-'));
  const requests: string[] = [];
  // the platform runs in this process, with the V8 flags its CLI sets for its own
  applyPlatformV8Flags();
  const platform = await startLocalPlatform({ dataDir, port: 0, timings, log: (line) => requests.push(line) });
  const client = new ControlPlaneClient({ baseUrl: platform.url, auth: { kind: 'api-key', apiKey: platform.devApiKey } });
  return {
    platform,
    client,
    requests,
    close: async () => {
      await client.close();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A configuration directory with the provider installed, pointed at `platform` through the environment: the launcher,
 * or an executable in the implied local mirror, with a PATH that holds terraform alone (no `node`).
 */
class Workdir {
  readonly dir = mkdtempSync(join(tmpdir(), 'bench-provider-tf-'));
  readonly env: NodeJS.ProcessEnv;

  constructor(platform?: LocalPlatform, executable?: string) {
    const cliConfig = join(this.dir, 'empty.tfrc');
    writeFileSync(cliConfig, '');
    let path = process.env.PATH;
    if (executable) {
      const packageDir = join(this.dir, 'terraform.d', 'plugins', PROVIDER_ADDRESS, PROVIDER_VERSION, 'linux_amd64');
      mkdirSync(packageDir, { recursive: true });
      copyFileSync(executable, join(packageDir, `${PROVIDER_EXECUTABLE_PREFIX}_v${PROVIDER_VERSION}`));
      path = join(this.dir, 'bin');
      mkdirSync(path);
      const terraform = spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(terraform, join(path, 'terraform'));
    } else {
      installProvider({ dir: this.dir });
    }
    this.env = {
      PATH: path,
      HOME: this.dir,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_CLI_CONFIG_FILE: cliConfig,
      ...(platform ? { AGENTPLATFORM_CONTROL_PLANE_URL: platform.url, AGENTPLATFORM_API_KEY: platform.devApiKey } : {}),
    };
  }

  write(body: string): void {
    writeFileSync(
      join(this.dir, 'main.tf'),
      `terraform {\n  required_providers {\n    agentplatform = { source = "agentplatform/agentplatform" }\n  }\n}\n\n${body}\n`,
    );
  }

  /** Runs terraform; resolves with the wall time and the instant it exited (epoch ms). */
  run(...args: string[]): Promise<{ ms: number; endedAt: number; code: number }> {
    const started = performance.now();
    const child = spawn('terraform', [...args, '-no-color', '-input=false'], { cwd: this.dir, env: this.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        const endedAt = Date.now();
        if (code !== 0 && !(args[0] === 'plan' && code === 2)) reject(new Error(`terraform ${args.join(' ')} exited with ${code}:\n${stderr}`));
        else resolve({ ms: performance.now() - started, endedAt, code: code ?? 0 });
      });
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const deployments = (count: number, prefix: string, repoRef = 'main') => `provider "agentplatform" {}

resource "agentplatform_deployment" "agent" {
  count    = ${count}
  name     = "${prefix}-\${count.index}"
  source   = "github"
  repo_url = "https://github.com/acme/agent"
  repo_ref = "${repoRef}"
}`;

/** (a): the startup bench, as its own process (it measures process launches). */
function launchToHandshake(executables: string): void {
  console.log('(a) launch to handshake');
  const result = spawnSync(process.execPath, [join(__dirname, 'provider-startup.js'), '--executables', executables], { encoding: 'utf8' });
  console.log(result.stdout.trimEnd().replace(/^/gm, '    '));
  if (result.status !== 0) throw new Error(`provider-startup failed: ${result.stderr}`);
}

/** (b): a no-change plan of 100 deployments, with the launcher and with the executable, against 100 terraform_data. */
async function noChangePlan(executable: string): Promise<void> {
  const lp = await startPlatform(QUICK_STEPS);
  const agents = new Workdir(lp.platform);
  const standalone = new Workdir(lp.platform, executable);
  const builtin = new Workdir();
  try {
    agents.write(deployments(100, 'plan'));
    await agents.run('init');
    await agents.run('apply', '-auto-approve', '-parallelism=20');
    // the same 100 deployments, in the executable's state
    standalone.write(deployments(100, 'plan'));
    copyFileSync(join(agents.dir, 'terraform.tfstate'), join(standalone.dir, 'terraform.tfstate'));
    await standalone.run('init');
    builtin.write('resource "terraform_data" "item" {\n  count = 100\n  input = "item-${count.index}"\n}');
    await builtin.run('init');
    await builtin.run('apply', '-auto-approve');
    // a plan with changes (exit code 2) is not what this part measures
    const unchanged = async (dir: Workdir, ...flags: string[]): Promise<number> => {
      const { ms, code } = await dir.run('plan', '-detailed-exitcode', ...flags);
      if (code !== 0) throw new Error('terraform plan found changes after apply: part (b) measures a plan without changes');
      return ms;
    };
    const runs: Array<[string, Workdir, string[]]> = [
      ['100 terraform_data', builtin, []],
      ['100 deployments, launcher', agents, []],
      ['100 deployments, executable', standalone, []],
      ['  launcher, -refresh=false', agents, ['-refresh=false']],
      ['  executable, -refresh=false', standalone, ['-refresh=false']],
    ];
    const times = runs.map(() => [] as number[]);
    for (let i = 0; i < PLAN_RUNS; i++) for (const [j, [, dir, flags]] of runs.entries()) times[j]!.push(await unchanged(dir, ...flags));
    const base = median(times[0]!);
    console.log(`(b) terraform plan, no changes (median of ${PLAN_RUNS}, interleaved)`);
    for (const [j, [label]] of runs.entries()) {
      const ms = median(times[j]!);
      console.log(`    ${label.padEnd(32)} ${(ms / 1000).toFixed(2)} s  ${(ms / base).toFixed(2)}x terraform_data`);
    }
    console.log('    goal: the executable <= 2x terraform_data');
    for (const [label, dir] of [['launcher', agents], ['executable', standalone]] as const) {
      console.log(`    one plan with the ${label}, from terraform's trace log:`);
      console.log((await planTrace(dir.dir, dir.env)).replace(/^/gm, '      '));
    }
    await agents.run('destroy', '-auto-approve', '-parallelism=20');
  } finally {
    agents.remove();
    standalone.remove();
    builtin.remove();
    await lp.close();
  }
}

/** (c): how long after DEPLOYED an apply returns, and how many GETs its wait made. */
async function waitLatency(): Promise<void> {
  const lp = await startPlatform(DEFAULT_PIPELINE_TIMINGS);
  const dir = new Workdir(lp.platform);
  try {
    dir.write(deployments(1, 'latency'));
    await dir.run('init');
    await dir.run('apply', '-auto-approve');
    const [deployment] = (await lp.client.listDeployments({ nameContains: 'latency-0' })).resources;
    const latencies: number[] = [];
    const polls: number[] = [];
    const fixedPolls: number[] = [];
    const fixedLatencies: number[] = [];
    for (let i = 1; i <= WAIT_APPLIES; i++) {
      dir.write(deployments(1, 'latency', `release-${i}`));
      const { endedAt } = await dir.run('apply', '-auto-approve');
      const revisionId = (await lp.client.getDeployment(deployment!.id)).latest_revision_id!;
      const revision = await lp.client.getRevision(deployment!.id, revisionId);
      if (revision.status !== 'DEPLOYED') throw new Error(`revision ${revisionId} is ${revision.status}`);
      const deployedAt = Date.parse(revision.updated_at);
      latencies.push(endedAt - deployedAt);
      // Our own GET just above is not one of the provider's.
      polls.push(lp.requests.filter((line) => line.startsWith('GET ') && line.includes(`/revisions/${revisionId}`)).length - 1);
      // A fixed poll asks right away, then every 5 s until it sees DEPLOYED.
      const took = deployedAt - Date.parse(revision.created_at);
      const fixedCount = 1 + Math.ceil(took / FIXED_POLL_MS);
      fixedPolls.push(fixedCount);
      fixedLatencies.push((fixedCount - 1) * FIXED_POLL_MS - took);
    }
    console.log(`(c) wait latency over ${WAIT_APPLIES} applies (pipeline ~${(pipelineMs(DEFAULT_PIPELINE_TIMINGS) / 1000).toFixed(1)} s per revision)`);
    console.log(`    apply returned after DEPLOYED: p50 ${median(latencies).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (goal p50 <= 1000 ms)`);
    console.log(`    revision GETs per wait:        adaptive median ${median(polls)}, max ${Math.max(...polls)}`);
    console.log(`    fixed 5 s poll, same revisions: median ${median(fixedPolls)} GETs, noticing DEPLOYED ${median(fixedLatencies).toFixed(0)} ms late (before terraform's own overhead)`);
  } finally {
    await dir.run('destroy', '-auto-approve').catch(() => undefined);
    dir.remove();
    await lp.close();
  }
}

function pipelineMs(t: PipelineTimings): number {
  return t.creatingMs + t.queuedMs + t.awaitingBuildMs + t.buildingMs + t.awaitingDeployMs + t.deployingMs;
}

/** (d): 100 deployments with 2 s builds, applied 20 at a time and one at a time. */
async function parallelApply(): Promise<void> {
  const lp = await startPlatform({ ...QUICK_STEPS, buildingMs: 2000 });
  const times: Record<number, number> = {};
  try {
    for (const parallelism of [20, 1]) {
      const dir = new Workdir(lp.platform);
      try {
        dir.write(deployments(100, `parallel-${parallelism}`));
        await dir.run('init');
        times[parallelism] = (await dir.run('apply', '-auto-approve', `-parallelism=${parallelism}`)).ms;
        await dir.run('destroy', '-auto-approve', '-parallelism=20');
      } finally {
        dir.remove();
      }
    }
  } finally {
    await lp.close();
  }
  console.log('(d) apply of 100 deployments, 2 s build step each');
  console.log(`    -parallelism=20: ${(times[20]! / 1000).toFixed(1)} s`);
  console.log(`    -parallelism=1:  ${(times[1]! / 1000).toFixed(1)} s`);
  console.log(`    speed-up:        ${(times[1]! / times[20]!).toFixed(1)}x (goal >= 10x)`);
}

/** `--parts a,c` runs only those parts (all four by default). */
function parts(): Set<string> {
  const index = process.argv.indexOf('--parts');
  return new Set((index < 0 ? 'a,b,c,d' : process.argv[index + 1] ?? '').split(','));
}

async function main(): Promise<void> {
  const chosen = parts();
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const executables = mkdtempSync(join(tmpdir(), 'bench-provider-executables-'));
  try {
    if (chosen.has('a') || chosen.has('b')) await buildBenchExecutables(executables);
    if (chosen.has('a')) launchToHandshake(executables);
    if (chosen.has('b')) await noChangePlan(benchExecutables(executables).cached);
  } finally {
    rmSync(executables, { recursive: true, force: true });
  }
  if (chosen.has('c')) await waitLatency();
  if (chosen.has('d')) await parallelApply();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
