/**
 * A cdktf app that installs `@agentplatform/cdktf` (the tarball, with cdktf and constructs from the registry) gets
 * none of the local platform's dependencies, no native addon and no AWS bindings it did not ask for; it loads the
 * package, synthesises a stack with a Deployment, and terraform validates that stack with the provider bundled in
 * the package, found offline in the stack's local mirror.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ENTRY_FILE } from '../../lib/install/provider';
import { packageTarball } from '../support/packages';

/** The local platform's runtime dependencies and the AWS bindings: an app of constructs needs none of them. */
const UNWANTED = ['better-sqlite3', 'hono', '@hono/node-server', 's3rver', '@aws-sdk/client-s3', 'snappy', 'hyparquet-writer', 'undici', '@cdktf/provider-aws'];

/** Every installed package under a node_modules folder, nested ones included, by name. */
function installedPackages(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules).flatMap((name) => {
    if (name.startsWith('.')) return [];
    const names = name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((sub) => `${name}/${sub}`) : [name];
    return names.flatMap((pkg) => [pkg, ...installedPackages(join(nodeModules, pkg, 'node_modules'))]);
  });
}

function filesNamed(dir: string, name: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesNamed(path, name);
    return entry.name === name ? [path] : [];
  });
}

const APP = `
const { App, TerraformStack } = require('cdktf');
const { AgentPlatformProvider, Deployment, DeploymentSource, ExportBucket } = require('@agentplatform/cdktf');
const app = new App({ outdir: 'cdktf.out' });
const stack = new TerraformStack(app, 'agents');
new AgentPlatformProvider(stack, 'agentplatform');
new Deployment(stack, 'Agent', {
  name: 'support-agent',
  source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main' }),
});
app.synth();
let bucket = 'made';
try {
  new ExportBucket(new TerraformStack(new App({ outdir: 'unused.out' }), 'other'), 'Traces');
} catch (err) {
  bucket = err.message;
}
process.stdout.write(JSON.stringify({ bucket }));
`;

describe('an app that installs @agentplatform/cdktf', () => {
  let app: string;
  beforeAll(() => {
    const tarball = packageTarball('cdktf');
    app = mkdtempSync(join(tmpdir(), 'cdktf-app-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', tarball, 'cdktf@0.21.0', 'constructs@10.4.2'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  }, 15 * 60_000);

  it('gets none of the local platform dependencies, no AWS bindings and no native addon', () => {
    const installed = installedPackages(join(app, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['@agentplatform/cdktf', 'cdktf', 'constructs', 'zod']));
    expect(installed.filter((pkg) => UNWANTED.includes(pkg) || pkg.startsWith('@aws-sdk/'))).toEqual([]);
    expect(filesNamed(join(app, 'node_modules'), 'binding.gyp')).toEqual([]);
  });

  it('synthesises a stack with a Deployment, and says what to install for an ExportBucket', () => {
    const run = spawnSync(process.execPath, ['-e', APP], { cwd: app, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ bucket: expect.stringContaining('npm install @cdktf/provider-aws@21') });
    const stackDir = join(app, 'cdktf.out', 'stacks', 'agents');
    const json = JSON.parse(readFileSync(join(stackDir, 'cdk.tf.json'), 'utf8')) as { resource: Record<string, Record<string, { name: string }>> };
    expect(Object.values(json.resource.agentplatform_deployment ?? {}).map((deployment) => deployment.name)).toEqual(['support-agent']);
    const entry = readFileSync(join(stackDir, 'terraform.d', ENTRY_FILE), 'utf8').trim();
    expect(realpathSync(resolve(stackDir, 'terraform.d', entry))).toBe(realpathSync(join(app, 'node_modules', '@agentplatform', 'cdktf', 'provider', 'agentplatform-provider.js')));
  });

  it('has a stack terraform validates with the bundled provider, offline', () => {
    const stackDir = join(app, 'cdktf.out', 'stacks', 'agents');
    writeFileSync(join(app, 'empty.tfrc'), '');
    const env = { PATH: process.env.PATH, HOME: app, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: join(app, 'empty.tfrc'), TF_IN_AUTOMATION: '1' };
    for (const args of [['init', '-input=false', '-no-color'], ['validate', '-no-color']]) {
      const run = spawnSync('terraform', args, { cwd: stackDir, env, encoding: 'utf8' });
      expect({ args, status: run.status, stderr: run.stderr }).toEqual({ args, status: 0, stderr: '' });
    }
  });

  it('has the agentplatform-provider command in node_modules/.bin', () => {
    const bin = join(app, 'node_modules', '.bin', 'agentplatform-provider');
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    const run = spawnSync(bin, ['--help'], { cwd: app, encoding: 'utf8' });
    expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 0, stdout: expect.stringContaining('agentplatform-provider install') });
    expect(run.stdout).toContain('agentplatform-provider mirror --release DIR --dir MIRROR');
  });
});
