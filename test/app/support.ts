/**
 * What the tests of a new app share: the README's commands, run as they are written (through bash, one line at a
 * time); the local platform and the in-process S3 server the app deploys onto; and the dependency trees of the
 * app's `node_modules`, to find out which package brought a native addon.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { BulkExportClient } from '../../lib/api/bulk-export';
import { ControlPlaneClient } from '../../lib/api/control-plane';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { startInProcessS3, type InProcessS3 } from '../../lib/local/s3';
import { utcMidnight } from '../../scripts/demo';

export const REPOSITORY_ROOT = resolve(__dirname, '..', '..');

/** How this machine reaches the npm registry, passed on to npm in the app. */
const NETWORK_VARIABLES = /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR)$/i;

/** The shell lines of the README's code block that starts with `firstLine`, without their comments. */
export function readmeBlock(firstLine: string): string[] {
  const readme = readFileSync(join(REPOSITORY_ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((text) => text.startsWith(firstLine));
  if (!block) throw new Error(`README.md has no sh block that starts with ${JSON.stringify(firstLine)}`);
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** The end of a command. */
export interface CommandResult {
  readonly code: number | null;
  /** stdout and stderr, interleaved as they came. */
  readonly output: string;
}

/**
 * Runs the README's lines one after the other, each in bash, each from the folder the lines before it `cd`-ed to
 * (a line `cd <folder> && …` moves the later lines there too).
 */
export class ReadmeSession {
  private cwd = REPOSITORY_ROOT;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Runs `line`; throws with its output when it fails. */
  async run(line: string): Promise<CommandResult> {
    const moved = /^cd (\S+) && /.exec(line);
    const from = this.cwd;
    if (moved) this.cwd = resolve(from, moved[1]!);
    const result = await runCommand('bash', ['-c', line], { cwd: from, env: this.env });
    if (result.code !== 0) throw new Error(`${line} failed (exit ${result.code}):\n${result.output.slice(-6000)}`);
    return result;
  }
}

/** Runs a command in a process group of its own, stopped with this process if it ends first. */
export function runCommand(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CommandResult> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stopGroup = (): void => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  };
  process.once('exit', stopGroup);
  let output = '';
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => (output += `${line}\n`));
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      process.off('exit', stopGroup);
      resolvePromise({ code, output });
    });
  });
}

/** The local platform, an S3 server and a tracing project, and the environment an app deploys onto them with. */
export class AppPlatform {
  private constructor(
    readonly platform: LocalPlatform,
    readonly s3: InProcessS3,
    readonly controlPlane: ControlPlaneClient,
    readonly tracing: BulkExportClient,
    readonly tracingProjectId: string,
  ) {}

  static async start(dir: string): Promise<AppPlatform> {
    const step = 20;
    const platform = await startLocalPlatform({
      dataDir: join(dir, 'platform'),
      timings: { creatingMs: step, queuedMs: step, awaitingBuildMs: step, buildingMs: step, awaitingDeployMs: step, deployingMs: step, deleteDelayMs: step },
    });
    const s3 = await startInProcessS3({ directory: join(dir, 's3'), buckets: ['agent-traces'] });
    const auth = { kind: 'api-key' as const, apiKey: platform.devApiKey };
    const tracing = new BulkExportClient({ baseUrl: platform.url, auth });
    const projectId = (await tracing.createSession({ name: 'my-agent' })).id;
    return new AppPlatform(platform, s3, new ControlPlaneClient({ baseUrl: platform.url, auth }), tracing, projectId);
  }

  /**
   * The environment of the README's lines: the variables the new app's main.ts lists, terraform with no CLI
   * configuration, and a HOME of the test's own. npm keeps the cache and the user configuration of the user running
   * the tests (the registry they use; the packages already fetched), and the way this machine reaches the registry
   * (proxies, extra CA certificates: npm on another Node finds no global npmrc, which is looked up beside that Node).
   * The PATH loses the `node_modules/.bin` folders npx put on it for jest: the app must bring its own CLI.
   */
  environment(dir: string, path: string): NodeJS.ProcessEnv {
    const home = join(dir, 'home');
    writeFileSync(join(dir, 'empty.tfrc'), '');
    const network = Object.fromEntries(Object.entries(process.env).filter(([name]) => NETWORK_VARIABLES.test(name)));
    return {
      ...network,
      PATH: path
        .split(delimiter)
        .filter((entry) => !entry.endsWith(`${sep}node_modules${sep}.bin`) && !entry.includes(`${sep}node-gyp-bin`))
        .join(delimiter),
      HOME: home,
      CI: '1',
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc'),
      CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
      npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), '.npmrc'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      AGENTPLATFORM_API_KEY: this.platform.devApiKey,
      AGENTPLATFORM_CONTROL_PLANE_URL: this.platform.url,
      AGENTPLATFORM_TRACING_URL: this.platform.url,
      TF_VAR_tracing_project_id: this.tracingProjectId,
      TF_VAR_export_start: utcMidnight(new Date(Date.now() + 86_400_000)),
      TF_VAR_s3_endpoint: this.s3.endpoint,
      TF_VAR_s3_secret_access_key: this.s3.secretAccessKey,
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.controlPlane.close(), this.tracing.close()]);
    await this.s3.close();
    await this.platform.close();
  }
}

/** Folder of the package `name` as Node would find it from `fromDir` (its own node_modules, then its parents'). */
function resolvePackage(name: string, fromDir: string, appDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === appDir || dirname(dir) === dir) return undefined;
  }
}

/**
 * The folders (relative to the app) of the package installed as `name` and of everything it depends on,
 * transitively: dependencies, optional dependencies and peer dependencies, as installed in the app.
 */
export function dependencyTree(appDir: string, name: string): Set<string> {
  const found = new Set<string>();
  const visit = (packageDir: string): void => {
    const rel = relative(appDir, packageDir);
    if (found.has(rel)) return;
    found.add(rel);
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const names = new Set([manifest.dependencies, manifest.optionalDependencies, manifest.peerDependencies].flatMap((deps) => Object.keys(deps ?? {})));
    for (const dependency of names) {
      const dir = resolvePackage(dependency, packageDir, appDir);
      if (dir) visit(dir);
    }
  };
  const root = resolvePackage(name, appDir, appDir);
  if (!root) throw new Error(`${name} is not installed in ${appDir}`);
  visit(root);
  return found;
}

/** The packages (folders relative to the app) under the app's node_modules that hold a `binding.gyp`. */
export function packagesWithBindingGyp(appDir: string): Set<string> {
  const packages = new Set<string>();
  const walk = (dir: string, packageDir: string | undefined): void => {
    const here = existsSync(join(dir, 'package.json')) && dirname(dir).split(sep).pop()?.match(/^(node_modules|@.+)$/) ? dir : packageDir;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(path, here);
      else if (entry === 'binding.gyp' && here) packages.add(relative(appDir, here));
    }
  };
  walk(join(appDir, 'node_modules'), undefined);
  return packages;
}
