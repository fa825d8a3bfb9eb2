/**
 * GET revision against the local platform, with 1 and 50 concurrent clients: prints req/s, p50 and p99.
 * The platform runs as its own process (the CLI), as users run it, so client and server do not share a thread.
 * Goal: p99 <= 5 ms at 50 concurrent on a 2-core machine.
 *
 *   npm run bench:control-plane [-- --seconds 5]
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from 'undici';
import { ControlPlaneClient } from '../lib/api/control-plane';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const SECONDS = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 5;

interface Platform {
  url: string;
  apiKey: string;
  stop(): void;
}

function startPlatform(): Promise<Platform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cp-'));
  const apiKey = 'bench-key-0123456789abcdef';
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'agentplatform-local.js'), '--port', '0', '--data-dir', dataDir, '--api-key', apiKey, '--step-ms', '1'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`local platform exited with ${code}: ${out}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /local platform ready at (\S+)/.exec(out);
      if (ready) {
        child.removeAllListeners('exit');
        resolve({
          url: ready[1],
          apiKey,
          stop: () => {
            child.kill('SIGTERM');
            fs.rmSync(dataDir, { recursive: true, force: true });
          },
        });
      }
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(client: ControlPlaneClient, deploymentId: string, revisionId: string, concurrency: number) {
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      await client.getRevision(deploymentId, revisionId);
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return { requests: latencies.length, rps: latencies.length / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function main(): Promise<void> {
  const platform = await startPlatform();
  const dispatcher = new Agent({ connections: 64, pipelining: 1 });
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
    await measure(client, deployment.id, revisionId, 50); // warm-up: JIT, connections, statement cache
    console.log(`GET /v2/deployments/{id}/revisions/{id} on ${os.cpus().length} cores, ${SECONDS} s per case`);
    console.log('clients  requests      req/s   p50 ms   p99 ms');
    for (const concurrency of [1, 50]) {
      const r = await measure(client, deployment.id, revisionId, concurrency);
      console.log(
        `${String(concurrency).padStart(7)}  ${String(r.requests).padStart(8)}  ${r.rps.toFixed(0).padStart(9)}  ` +
          `${r.p50.toFixed(2).padStart(7)}  ${r.p99.toFixed(2).padStart(7)}`,
      );
    }
    console.log('goal: p99 <= 5 ms at 50 concurrent clients');
  } finally {
    await client.close();
    await dispatcher.close();
    platform.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
