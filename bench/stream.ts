/**
 * Streaming benchmark of the agent server: one stateless stream of the `chat` graph with a 10,000-token reply
 * (`messages-tuple` mode, one event per token), then 50 such streams at once. Prints time to first event (the
 * `metadata` chunk) and to first token, events per second, and errors.
 *
 * Usage: `node dist/bench/stream.js [--tokens N] [--concurrency N]`. With `AGENT_SERVER_URL` and
 * `AGENTPLATFORM_API_KEY` set it measures that server; otherwise it starts a local platform in a child process (its
 * own event loop, as a real server has) with a temporary data dir, and deploys the `chat` graph on it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AgentServerClient } from '../lib/api/agent-server';
import { ControlPlaneClient } from '../lib/api/control-plane';
import { uniformStepTimings } from '../lib/local/control-plane/pipeline';
import { startLocalPlatform } from '../lib/local/platform';
import { applyPlatformV8Flags } from '../lib/local/v8-flags';

/** Figures of one stream. */
interface StreamFigures {
  readonly firstEventMs: number;
  readonly firstTokenMs: number;
  readonly totalMs: number;
  readonly events: number;
}

/** What the benchmark measures against. */
export interface StreamBenchTarget {
  /** The deployment URL of the agent server. */
  readonly url: string;
  /** An API key of the organization that owns it. */
  readonly apiKey: string;
}

/** Single-stream measurements after the warm-up; the median is reported. */
const SINGLE_STREAM_ROUNDS = 5;

async function measureStream(client: AgentServerClient, tokens: number): Promise<StreamFigures> {
  const started = performance.now();
  let firstEventMs = -1;
  let firstTokenMs = -1;
  let events = 0;
  const stream = client.runs.stream(null, {
    assistant_id: 'chat',
    input: { messages: [{ role: 'user', content: 'benchmark' }] },
    stream_mode: 'messages-tuple',
    config: { configurable: { reply_tokens: tokens } },
  });
  for await (const chunk of stream) {
    const elapsed = performance.now() - started;
    if (firstEventMs < 0) firstEventMs = elapsed;
    if (chunk.mode === 'messages-tuple' && firstTokenMs < 0) firstTokenMs = elapsed;
    events += 1;
  }
  return { firstEventMs, firstTokenMs, totalMs: performance.now() - started, events };
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** Runs the single-stream and concurrent measurements and prints them. */
export async function runStreamBench(target: StreamBenchTarget, tokens: number, concurrency: number): Promise<void> {
  const client = new AgentServerClient({
    baseUrl: target.url,
    auth: { kind: 'api-key', apiKey: target.apiKey },
    retry: { maxRetries: 0 },
  });
  try {
    // The first stream warms up both sides (JIT, connection pool); the figures are medians of the next ones.
    await measureStream(client, tokens);
    const singles: StreamFigures[] = [];
    for (let round = 0; round < SINGLE_STREAM_ROUNDS; round += 1) singles.push(await measureStream(client, tokens));
    const median = (pick: (figures: StreamFigures) => number) => percentile(singles.map(pick), 50);
    const rate = median((figures) => figures.events / (figures.totalMs / 1000));
    console.log(`one stream, ${tokens}-token reply (median of ${SINGLE_STREAM_ROUNDS}):`);
    console.log(
      `  first event ${median((f) => f.firstEventMs).toFixed(2)} ms, first token ${median(
        (f) => f.firstTokenMs,
      ).toFixed(2)} ms`,
    );
    console.log(
      `  ${singles[0].events} events in ${median((f) => f.totalMs).toFixed(1)} ms = ${Math.round(rate)} events/s`,
    );

    const started = performance.now();
    const results = await Promise.allSettled(Array.from({ length: concurrency }, () => measureStream(client, tokens)));
    const wallMs = performance.now() - started;
    const done = results
      .filter((result): result is PromiseFulfilledResult<StreamFigures> => result.status === 'fulfilled')
      .map((r) => r.value);
    const complete = done.filter((figures) => figures.events === tokens + 1);
    const errors = results.length - done.length;
    const events = done.reduce((sum, figures) => sum + figures.events, 0);
    console.log(`${concurrency} concurrent streams, ${tokens}-token replies:`);
    console.log(
      `  ${complete.length}/${concurrency} complete, ${errors} errors, ${events} events in ${wallMs.toFixed(
        0,
      )} ms = ${Math.round(events / (wallMs / 1000))} events/s`,
    );
    const firstEvents = done.map((figures) => figures.firstEventMs);
    if (firstEvents.length > 0) {
      console.log(
        `  first event p50 ${percentile(firstEvents, 50).toFixed(2)} ms, p99 ${percentile(firstEvents, 99).toFixed(
          2,
        )} ms`,
      );
    }
    for (const result of results)
      if (result.status === 'rejected') console.log(`  error: ${(result.reason as Error).message}`);
  } finally {
    await client.close();
  }
}

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

/** Child mode: a local platform with a deployed `chat` graph, its address sent to the parent; stops when the parent goes. */
async function servePlatform(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stream-'));
  // this process stands for the platform's, which its CLI starts with these V8 settings
  applyPlatformV8Flags();
  const platform = await startLocalPlatform({ dataDir, timings: { ...uniformStepTimings(1), deleteDelayMs: 10 } });
  const controlPlane = new ControlPlaneClient({
    baseUrl: platform.url,
    auth: { kind: 'api-key', apiKey: platform.devApiKey },
  });
  const created = await controlPlane.createDeployment({
    name: 'bench-stream',
    source: 'github',
    source_config: { repo_url: 'https://github.com/example/agents', build_on_push: false },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'chat.json' },
  });
  while ((await controlPlane.getRevision(created.id, created.latest_revision_id as string)).status !== 'DEPLOYED') {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const deployment = await controlPlane.getDeployment(created.id);
  await controlPlane.close();
  process.once('disconnect', () => {
    void platform.close().finally(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  });
  process.send?.({ url: deployment.url as string, apiKey: platform.devApiKey } satisfies StreamBenchTarget);
}

/** Starts the platform in a child process (so server and client do not share one event loop) and returns its address. */
function forkPlatform(): Promise<{ target: StreamBenchTarget; child: ChildProcess }> {
  const child = fork(__filename, ['--serve-platform'], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (target) => resolve({ target: target as StreamBenchTarget, child }));
    child.once('exit', (code) => reject(new Error(`the platform process exited (code ${code}) before it was ready`)));
  });
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve-platform')) return servePlatform();
  const tokens = flag('tokens', 10_000);
  const concurrency = flag('concurrency', 50);
  if (process.env.AGENT_SERVER_URL && process.env.AGENTPLATFORM_API_KEY) {
    await runStreamBench(
      { url: process.env.AGENT_SERVER_URL, apiKey: process.env.AGENTPLATFORM_API_KEY },
      tokens,
      concurrency,
    );
    return;
  }
  const { target, child } = await forkPlatform();
  try {
    await runStreamBench(target, tokens, concurrency);
  } finally {
    child.disconnect();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
