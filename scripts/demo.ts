/**
 * `npm run demo`: the whole product on one machine, offline. Starts the local platform (its CLI, as a user would) and
 * the in-process S3 server, deploys `examples/local` with `cdktf deploy`, shows the deployment DEPLOYED, streams one
 * run from it, exports the run's traces to Parquet and lists the files, then `cdktf destroy`s everything.
 *
 * `LocalExampleProject` (the cdktf project of `examples/local` in a scratch directory, with a hermetic environment)
 * is shared with the test that deploys the example.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { AgentServerClient } from '../lib/api/agent-server';
import { BulkExportClient } from '../lib/api/bulk-export';
import { ControlPlaneClient } from '../lib/api/control-plane';
import { startInProcessS3, type InProcessS3 } from '../lib/local/s3';
import { packageRoot } from '../lib/provider/constants';

/** What `examples/local` needs to know about the platform and the S3 server it runs against. */
export interface LocalExampleSettings {
  /** The local platform's base URL (control plane, tracing API and agent servers). */
  readonly platformUrl: string;
  /** An API key of the platform. */
  readonly apiKey: string;
  /** Id of the tracing project the deployment's runs go to. */
  readonly tracingProjectId: string;
  /** The S3 server: endpoint, bucket and keys. */
  readonly s3: { readonly endpoint: string; readonly bucket: string; readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Start of the daily export schedule (ISO 8601). */
  readonly exportStart: string;
}

/** The end of a cdktf command. */
export interface CdktfResult {
  readonly code: number | null;
  /** Everything cdktf printed, stdout and stderr interleaved. */
  readonly output: string;
}

/** The cdktf project of `examples/local` in a directory of its own, run with no CLI configuration and no network. */
export class LocalExampleProject {
  /** The environment every cdktf command gets (and passes on to terraform and the provider). */
  readonly env: NodeJS.ProcessEnv;

  constructor(
    /** The project directory: cdktf.json, cdktf.out, the state file and a scratch HOME. */
    readonly dir: string,
    settings: LocalExampleSettings,
  ) {
    const example = join(packageRoot(), 'examples', 'local');
    const config = JSON.parse(readFileSync(join(example, 'cdktf.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ ...config, app: `"${process.execPath}" "${join(example, 'app.js')}"` }, null, 2));
    mkdirSync(join(dir, 'home'), { recursive: true });
    writeFileSync(join(dir, 'empty.tfrc'), '');
    const blackhole = 'http://127.0.0.1:9';
    this.env = {
      PATH: process.env.PATH,
      HOME: join(dir, 'home'),
      CI: '1',
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc'),
      CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
      // Anything that tries the internet fails fast: the deploy must not need it.
      HTTP_PROXY: blackhole,
      HTTPS_PROXY: blackhole,
      NO_PROXY: '127.0.0.1,localhost',
      AGENTPLATFORM_API_KEY: settings.apiKey,
      AGENTPLATFORM_CONTROL_PLANE_URL: settings.platformUrl,
      AGENTPLATFORM_TRACING_URL: settings.platformUrl,
      TF_VAR_tracing_project_id: settings.tracingProjectId,
      TF_VAR_s3_endpoint: settings.s3.endpoint,
      TF_VAR_s3_bucket: settings.s3.bucket,
      TF_VAR_s3_access_key_id: settings.s3.accessKeyId,
      TF_VAR_s3_secret_access_key: settings.s3.secretAccessKey,
      TF_VAR_export_start: settings.exportStart,
      // Node.js's own options go on: a test run on another Node version preloads the native addons built for it
      // there (scripts/ci/other-node.sh), which the cdktf CLI needs; the provider's launcher clears them
      ...(process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS }),
    };
  }

  /** Runs `cdktf <args>` in the project; `onLine` sees each line of output as it comes. */
  run(args: readonly string[], onLine: (line: string) => void = () => undefined): Promise<CdktfResult> {
    const cli = join(dirname(require.resolve('cdktf-cli/package.json')), 'bundle', 'bin', 'cdktf');
    // Its own process group, so that terraform and the provider stop with it if this process ends first.
    const child = spawn(process.execPath, [cli, ...args], { cwd: this.dir, env: this.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stopGroup = (): void => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    };
    process.once('exit', stopGroup);
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        output += `${line}\n`;
        onLine(line);
      });
    }
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        process.off('exit', stopGroup);
        resolve({ code, output });
      });
    });
  }

  /** `cdktf deploy`, approved, with the stack outputs written to a file; returns them. */
  async deploy(onLine?: (line: string) => void): Promise<Record<string, string>> {
    const outputsFile = join(this.dir, 'outputs.json');
    const result = await this.run(['deploy', '--auto-approve', '--no-color', '--outputs-file', outputsFile], onLine);
    if (result.code !== 0) throw new Error(`cdktf deploy failed (exit ${result.code}):\n${result.output}`);
    return (JSON.parse(readFileSync(outputsFile, 'utf8')) as { local: Record<string, string> }).local;
  }

  /** `cdktf destroy`, approved. */
  async destroy(onLine?: (line: string) => void): Promise<CdktfResult> {
    const result = await this.run(['destroy', '--auto-approve', '--no-color'], onLine);
    if (result.code !== 0) throw new Error(`cdktf destroy failed (exit ${result.code}):\n${result.output}`);
    return result;
  }
}

/** Midnight (UTC) of the day of `at`, as ISO 8601. */
export function utcMidnight(at: Date): string {
  return `${at.toISOString().slice(0, 10)}T00:00:00Z`;
}

// ---- the demo ----

const PHASES = 8;
let phase = 0;
const step = (text: string): void => console.log(`\n[${++phase}/${PHASES}] ${text}`);
const detail = (text: string): void => console.log(`      ${text}`);
/** Shows a line of cdktf's output that matters for the story, without the stack name cdktf puts first. */
const cdktfLine = (pattern: RegExp) => (line: string): void => {
  if (pattern.test(line)) detail(line.trim().replace(/^local\s+/, ''));
};

interface PlatformProcess {
  readonly url: string;
  readonly apiKey: string;
  stop(): Promise<void>;
}

/**
 * Starts `agentplatform-local` as a child process, with an API key of the demo's own (in its environment, not on its
 * command line), and reads its ready line. The user's AGENTPLATFORM_LOCAL_* settings (their keys, port, reset,
 * timings) are for their own platform, not the demo's: the child does not inherit them.
 */
async function startPlatform(dataDir: string): Promise<PlatformProcess> {
  const bin = join(packageRoot(), 'bin', 'agentplatform-local.js');
  const apiKey = `demo_${randomBytes(24).toString('base64url')}`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGENTPLATFORM_LOCAL_')));
  // the key goes in the environment: a command line is readable by every user of the machine (ps)
  env.AGENTPLATFORM_LOCAL_API_KEYS = apiKey;
  const args = ['--port', '0', '--data-dir', dataDir, '--step-ms', '250', '--delete-delay-ms', '250'];
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  // The platform must not outlive the demo, however the demo ends (an error, a closed stdout).
  const killPlatform = (): void => void child.kill('SIGTERM');
  process.once('exit', killPlatform);
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    let ready: string | undefined;
    lines.on('line', (line) => {
      ready ??= /^local platform ready at (\S+)/.exec(line)?.[1];
      // the key line follows the ready line: both printed, the platform serves
      if (ready && line.startsWith('dev api key:')) resolve(ready);
    });
    child.once('exit', (code) => reject(new Error(`the local platform exited (code ${code}) before it was ready`)));
  });
  return {
    url,
    apiKey,
    stop: () =>
      new Promise((resolve) => {
        process.off('exit', killPlatform);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function main(): Promise<void> {
  // Node 20 is supported: the AWS SDK's notice about future versions is noise here (the platform inherits this too).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const work = mkdtempSync(join(tmpdir(), 'agentplatform-demo-'));
  // Ctrl-C (or a SIGTERM, SIGHUP) ends the demo through 'exit', where the platform and cdktf are stopped and the
  // scratch directory removed; Node itself would end without 'exit' on these signals.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) process.once(signal, () => process.exit(code));
  process.once('exit', () => rmSync(work, { recursive: true, force: true }));
  let platform: PlatformProcess | undefined;
  let s3: InProcessS3 | undefined;
  let project: LocalExampleProject | undefined;
  let deployed = false;
  try {
    step('Starting the local platform (bin/agentplatform-local.js)');
    platform = await startPlatform(join(work, 'platform'));
    detail(`control plane, tracing API and agent servers at ${platform.url}`);
    const auth = { kind: 'api-key' as const, apiKey: platform.apiKey };

    step('Starting the in-process S3 server');
    s3 = await startInProcessS3({ directory: join(work, 's3'), buckets: ['agent-traces'] });
    detail(`S3 API at ${s3.endpoint}, bucket agent-traces`);

    step('Creating the tracing project "demo-agent" (the deployment\'s runs are traced there)');
    const tracing = new BulkExportClient({ baseUrl: platform.url, auth });
    const projectId = (await tracing.createSession({ name: 'demo-agent' })).id;
    detail(`tracing project ${projectId}`);

    step('cdktf deploy examples/local (provider installed at synth; no registry, no CLI configuration)');
    project = new LocalExampleProject(mkdirScratch(work, 'project'), {
      platformUrl: platform.url,
      apiKey: platform.apiKey,
      tracingProjectId: projectId,
      s3: { endpoint: s3.endpoint, bucket: 'agent-traces', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      exportStart: utcMidnight(new Date(Date.now() + 86_400_000)),
    });
    const outputs = await project.deploy(cdktfLine(/Creating|Creation complete|Apply complete|Error/));
    deployed = true;

    step('The deployment, as the control plane reports it');
    const controlPlane = new ControlPlaneClient({ baseUrl: platform.url, auth });
    const deployment = await controlPlane.getDeployment(outputs.deployment_id!);
    const revision = await controlPlane.getRevision(deployment.id, deployment.latest_revision_id!);
    detail(`${deployment.name} ${deployment.id}: latest revision ${revision.id} is ${revision.status}`);
    detail(`served at ${outputs.url}; export destination ${outputs.destination_id}; daily export ${outputs.scheduled_export_id}`);

    step('Streaming one run from the deployment (graph "chat")');
    const agent = new AgentServerClient({ baseUrl: outputs.url!, auth });
    const question = 'What does this demo show?';
    detail(`user: ${question}`);
    process.stdout.write('      agent: ');
    for await (const chunk of agent.runs.stream(null, { assistant_id: 'chat', input: { messages: [{ role: 'user', content: question }] }, stream_mode: 'messages-tuple' })) {
      if (chunk.mode === 'messages-tuple') process.stdout.write(String(chunk.data[0].content ?? ''));
    }
    process.stdout.write('\n');

    step('Exporting today\'s traces of "demo-agent" to Parquet');
    const started = new Date();
    const exported = await tracing.createExport({
      bulk_export_destination_id: outputs.destination_id!,
      session_id: projectId,
      start_time: utcMidnight(started),
      end_time: new Date(started.getTime() + 60_000).toISOString(),
    });
    const finished = await waitForExport(tracing, exported.id);
    detail(`export ${exported.id}: ${finished}`);
    const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'agent-traces', Prefix: `agent-traces/export_id=${exported.id}/` }));
    for (const object of listed.Contents ?? []) detail(`s3://agent-traces/${object.Key} (${object.Size} bytes)`);
    client.destroy();
    await Promise.all([tracing.close(), controlPlane.close(), agent.close()]);

    step('cdktf destroy examples/local');
    await project.destroy(cdktfLine(/Destroying|Destruction complete|Destroy complete|Warning|Error/));
    deployed = false;
    console.log('\nDone: deployed, streamed, exported and destroyed, offline.');
  } finally {
    if (deployed && project) await project.destroy().catch((error: Error) => console.error(`cleanup: ${error.message.split('\n')[0]}`));
    await s3?.close();
    await platform?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function mkdirScratch(parent: string, name: string): string {
  mkdirSync(join(parent, name), { recursive: true });
  return join(parent, name);
}

async function waitForExport(client: BulkExportClient, id: string): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { status } = await client.getExport(id);
    if (['Completed', 'Failed', 'Cancelled', 'TimedOut'].includes(status)) {
      if (status !== 'Completed') throw new Error(`the export ended ${status}`);
      return status;
    }
    if (Date.now() > deadline) throw new Error(`the export is still ${status} after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

if (require.main === module) {
  main().catch((error: Error) => {
    console.error(`\ndemo failed: ${error.message}`);
    process.exitCode = 1;
  });
}
