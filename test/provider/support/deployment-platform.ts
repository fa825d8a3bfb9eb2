/**
 * The local platform in the test process, with a client and terraform directories pointed at it: what the
 * deployment and data source tests share. Terraform gets the URL and key from the environment, so they never appear
 * in a configuration or a state file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneClient } from '../../../lib/api/control-plane';
import { localControlPlane, type LocalControlPlaneClient } from '../../support/complete-answers';
import type { PipelineTimings } from '../../../lib/local/control-plane/pipeline';
import { startLocalPlatform, type LocalPlatform } from '../../../lib/local/platform';
import { DIST_ENTRY, TerraformDir, providerConfig, type TerraformResult } from './terraform';
import type { Clock } from '../../../lib/local/clock';

/** Every step 20 ms (a deployment is DEPLOYED in ~120 ms) and deletions done after 200 ms. */
export const FAST_TIMINGS: Partial<PipelineTimings> = {
  creatingMs: 20,
  queuedMs: 20,
  awaitingBuildMs: 20,
  buildingMs: 20,
  awaitingDeployMs: 20,
  deployingMs: 20,
  deleteDelayMs: 200,
};

/** A platform for one test file, with the directories made against it (all removed by `close`). */
export class TestPlatform {
  private readonly dirs: TerraformDir[] = [];
  private names = 0;

  private constructor(
    readonly platform: LocalPlatform,
    readonly client: LocalControlPlaneClient,
    private readonly dataDir: string,
    /** Every request line the platform logged (method, path, status), for counting polls. */
    readonly requests: string[],
  ) {}

  /** Starts a platform on a free port with these timings. */
  static async start(timings: Partial<PipelineTimings> = FAST_TIMINGS, clock?: Clock): Promise<TestPlatform> {
    const dataDir = mkdtempSync(join(tmpdir(), 'provider-platform-'));
    const requests: string[] = [];
    const platform = await startLocalPlatform({ dataDir, port: 0, timings, log: (line) => requests.push(line), ...(clock ? { clock } : {}) });
    const client = new ControlPlaneClient({ baseUrl: platform.url, auth: { kind: 'api-key', apiKey: platform.devApiKey } });
    return new TestPlatform(platform, localControlPlane(client), dataDir, requests);
  }

  /** The environment that points the provider at this platform. */
  providerEnv(): NodeJS.ProcessEnv {
    return { AGENTPLATFORM_CONTROL_PLANE_URL: this.platform.url, AGENTPLATFORM_API_KEY: this.platform.devApiKey };
  }

  /** A new terraform directory with the compiled provider, configured for this platform through the environment. */
  terraform(extraEnv: NodeJS.ProcessEnv = {}): DeploymentDir {
    const dir = new DeploymentDir(TerraformDir.create(DIST_ENTRY, { ...this.providerEnv(), ...extraEnv }));
    this.dirs.push(dir.tf);
    return dir;
  }

  /** A deployment name not used before on this platform. */
  uniqueName(prefix: string): string {
    return `${prefix}-${process.pid}-${++this.names}`;
  }

  /** Stops the platform and removes every directory. */
  async close(): Promise<void> {
    this.dirs.forEach((d) => d.remove());
    await this.client.close();
    await this.platform.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** A terraform directory with the commands the tests run. */
export class DeploymentDir {
  constructor(readonly tf: TerraformDir) {}

  /** Writes `main.tf`: the provider requirement, an empty provider block, and `body`. */
  configure(body: string): void {
    this.tf.write('main.tf', `${providerConfig()}\n${body}\n`);
  }

  init(): Promise<TerraformResult> {
    return this.tf.run(['init', '-input=false', '-no-color']);
  }

  apply(...args: string[]): Promise<TerraformResult> {
    return this.tf.run(['apply', '-auto-approve', '-input=false', '-no-color', ...args]);
  }

  /** `terraform plan -detailed-exitcode`: 0 no changes, 2 changes, 1 error. */
  plan(...args: string[]): Promise<TerraformResult> {
    return this.tf.run(['plan', '-input=false', '-no-color', '-detailed-exitcode', ...args]);
  }

  destroy(): Promise<TerraformResult> {
    return this.tf.run(['destroy', '-auto-approve', '-input=false', '-no-color']);
  }

  /** The raw state file. */
  stateText(): string {
    return readFileSync(join(this.tf.dir, 'terraform.tfstate'), 'utf8');
  }

  /** The attributes of the only instance of resource `address` (`agentplatform_deployment.agent`). */
  instance(address: string): { attributes: Record<string, unknown>; status?: string; private?: string } {
    const [type, name] = address.split('.');
    const state = JSON.parse(this.stateText()) as {
      resources: { type: string; name: string; mode: string; instances: { attributes: Record<string, unknown>; status?: string; private?: string }[] }[];
    };
    const resource = state.resources.find((r) => r.type === type && r.name === name && r.mode === 'managed');
    if (!resource) throw new Error(`${address} is not in the state`);
    return resource.instances[0]!;
  }

  remove(): void {
    this.tf.remove();
  }
}

/** Polls an async check until it holds or `timeoutMs` passes; returns whether it held. */
export async function until(check: () => Promise<boolean>, timeoutMs = 10_000, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return check();
}

/** A github deployment block. */
export function githubDeployment(label: string, attributes: Record<string, string | number | boolean>, extra = ''): string {
  const lines = Object.entries({ source: 'github', repo_url: 'https://github.com/acme/agent', ...attributes }).map(
    ([k, v]) => `  ${k} = ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`,
  );
  return `resource "agentplatform_deployment" "${label}" {\n${lines.join('\n')}\n${extra}}\n`;
}
