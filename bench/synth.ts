/**
 * Synth time of a stack with 50 deployments and 50 scheduled exports (plus the provider, with its launcher
 * installation, and a destination). Goal: at most 5 s.
 *
 * "cold" is what `cdktf synth` waits for from the app: a new Node process that loads the libraries, builds the
 * constructs and writes cdktf.out. "warm" is the construct building and synthesis alone, in a process that has
 * already loaded everything.
 *
 * Run: npm run build && node dist/bench/synth.js
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import {
  AgentPlatformProvider,
  Deployment,
  DeploymentSource,
  DestinationCredentials,
  DestinationTarget,
  Duration,
  ExportDestination,
  Filter,
  ScheduledExport,
} from '../lib/constructs';

const DEPLOYMENTS = 50;
const EXPORTS = 50;
const GOAL_SECONDS = 5;

/** Builds the benchmark stack in a new app writing to `outdir`, and synthesizes it. */
export function synthBenchStack(outdir: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'bench');
  new AgentPlatformProvider(stack, 'agentplatform');
  const secret = new TerraformVariable(stack, 's3_secret_access_key', { type: 'string', sensitive: true });
  const destination = new ExportDestination(stack, 'Destination', {
    displayName: 'bench',
    target: DestinationTarget.s3({
      bucketName: 'agent-traces',
      endpointUrl: 'http://127.0.0.1:4568',
      credentials: DestinationCredentials.fromValues({ accessKeyId: 'S3RVER', secretAccessKey: secret.stringValue }),
    }),
  });
  for (let i = 0; i < DEPLOYMENTS; i++) {
    new Deployment(stack, `Agent${i}`, {
      name: `agent-${i}`,
      source: DeploymentSource.github({ repoUrl: `https://github.com/acme/agent-${i}`, ref: 'main', buildOnPush: true }),
      resources: { minScale: 1, maxScale: 3 },
    });
  }
  for (let i = 0; i < EXPORTS; i++) {
    new ScheduledExport(stack, `Export${i}`, {
      destination,
      tracingProjectId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      start: '2025-01-01T00:00:00Z',
      every: Duration.hours(1 + (i % 168)),
      fields: ['id', 'name', 'run_type', 'start_time', 'end_time', 'total_tokens'],
      filter: Filter.and(Filter.eq('run_type', 'llm'), Filter.gt('total_tokens', i)),
    });
  }
  app.synth();
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function main(): void {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-synth-'));
  try {
    const cold: number[] = [];
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const child = spawnSync(process.execPath, [__filename, '--synth-once', outdir], { stdio: 'inherit' });
      if (child.status !== 0) throw new Error(`the synth process failed (exit ${child.status})`);
      cold.push(performance.now() - started);
    }
    const warm: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      synthBenchStack(outdir);
      warm.push(performance.now() - started);
    }
    const written = JSON.parse(readFileSync(join(outdir, 'stacks', 'bench', 'cdk.tf.json'), 'utf8')) as { resource: Record<string, object> };
    const count = (type: string): number => Object.keys(written.resource[type] ?? {}).length;
    if (count('agentplatform_deployment') !== DEPLOYMENTS || count('agentplatform_bulk_export') !== EXPORTS) {
      throw new Error('the synthesized stack does not hold the resources the benchmark builds');
    }
    console.log(`synth of ${DEPLOYMENTS} deployments and ${EXPORTS} scheduled exports (plus provider and destination)`);
    console.log(`  cold (new process: load, construct, synth): median ${seconds(median(cold))} of ${cold.map(seconds).join(', ')}`);
    console.log(`  warm (construct and synth only):            median ${seconds(median(warm))} of ${warm.map(seconds).join(', ')}`);
    console.log(`  goal <= ${GOAL_SECONDS} s (cold): ${median(cold) <= GOAL_SECONDS * 1000 ? 'met' : 'NOT met'}`);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [flag, outdir] = process.argv.slice(2);
  if (flag === '--synth-once' && outdir) synthBenchStack(outdir);
  else main();
}
