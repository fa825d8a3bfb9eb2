/**
 * The CDK Terrain flavour (`@agentplatform/cdktn`) is the cdktf package with its modules renamed: its tarball's
 * compiled files import `cdktn` and `@cdktn/provider-aws`, and no module of cdktf at all; a cdktn app that installs
 * it (with cdktn and constructs from the registry, and no cdktf) synthesises a stack with it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CDKTN_RENAMES, moduleSpecifiers, packageOf, renameModules } from '../../scripts/packages/module-specifiers';
import { packageTarball } from '../support/packages';

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));

/** The packages each compiled file of an unpacked tarball imports, by file. */
function importsOf(tarball: string): Map<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'package-'));
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const root = join(dir, 'package');
  const compiled = filesUnder(root).filter((file) => /\.(js|d\.ts)$/.test(file) && !relative(root, file).startsWith('node_modules/'));
  return new Map(compiled.map((file) => [relative(root, file), moduleSpecifiers(readFileSync(file, 'utf8')).map((specifier) => packageOf(specifier.name))]));
}

const isCdktf = (pkg: string): boolean => pkg === 'cdktf' || pkg.startsWith('@cdktf/');

describe('renameModules', () => {
  it('renames the package of every specifier, keeping subpaths, quotes and everything else', () => {
    const text = [
      '"use strict";',
      'const cdktf_1 = require("cdktf");',
      "const aws = () => require('@cdktf/provider-aws/lib/s3-bucket').S3Bucket;",
      'export * from "cdktf/lib/testing";',
      'import type { Construct } from "constructs";',
      'type T = import("cdktf").TerraformStack; // "cdktf" in a comment stays',
      'const name = "cdktf-like";',
    ].join('\n');
    expect(renameModules(text, CDKTN_RENAMES)).toBe(
      [
        '"use strict";',
        'const cdktf_1 = require("cdktn");',
        "const aws = () => require('@cdktn/provider-aws/lib/s3-bucket').S3Bucket;",
        'export * from "cdktn/lib/testing";',
        'import type { Construct } from "constructs";',
        'type T = import("cdktn").TerraformStack; // "cdktf" in a comment stays',
        'const name = "cdktf-like";',
      ].join('\n'),
    );
  });
});

describe('@agentplatform/cdktn', () => {
  let cdktn: Map<string, string[]>;
  let cdktf: Map<string, string[]>;
  beforeAll(() => {
    cdktn = importsOf(packageTarball('cdktn'));
    cdktf = importsOf(packageTarball('cdktf'));
  }, 15 * 60_000);

  it('has the compiled files of the cdktf package, none of which imports a module of cdktf', () => {
    expect([...cdktn.keys()].sort()).toEqual([...cdktf.keys()].sort());
    const offending = [...cdktn].filter(([, imports]) => imports.some(isCdktf)).map(([file]) => file);
    expect(offending).toEqual([]);
  });

  it('imports cdktn and @cdktn/provider-aws where the cdktf package imports cdktf and @cdktf/provider-aws', () => {
    for (const [file, imports] of cdktf) {
      expect({ file, imports: cdktn.get(file) }).toEqual({ file, imports: imports.map((pkg) => CDKTN_RENAMES[pkg] ?? pkg) });
    }
    const all = new Set([...cdktn.values()].flat());
    expect([...all].filter((pkg) => pkg.includes('cdktn')).sort()).toEqual(['@cdktn/provider-aws', 'cdktn']);
  });
});

const APP = `
const { App, TerraformStack } = require('cdktn');
const { AgentPlatformProvider, Deployment, DeploymentSource } = require('@agentplatform/cdktn');
const app = new App({ outdir: 'cdktf.out' });
const stack = new TerraformStack(app, 'agents');
new AgentPlatformProvider(stack, 'agentplatform');
new Deployment(stack, 'Agent', {
  name: 'support-agent',
  source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main' }),
});
app.synth();
`;

describe('a CDK Terrain app that installs @agentplatform/cdktn', () => {
  let app: string;
  beforeAll(() => {
    const tarball = packageTarball('cdktn');
    app = mkdtempSync(join(tmpdir(), 'cdktn-app-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', tarball, 'cdktn@0.24.0', 'constructs@10.7.0'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  }, 15 * 60_000);

  it('has no cdktf, and synthesises a stack with a Deployment and the provider installed', () => {
    expect(existsSync(join(app, 'node_modules', 'cdktf'))).toBe(false);
    const run = spawnSync(process.execPath, ['-e', APP], { cwd: app, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const stackDir = join(app, 'cdktf.out', 'stacks', 'agents');
    const json = JSON.parse(readFileSync(join(stackDir, 'cdk.tf.json'), 'utf8')) as { resource: Record<string, Record<string, { name: string }>> };
    expect(Object.values(json.resource.agentplatform_deployment ?? {}).map((deployment) => deployment.name)).toEqual(['support-agent']);
    expect(readFileSync(join(stackDir, '.terraform.lock.hcl'), 'utf8')).toContain('registry.terraform.io/agentplatform/agentplatform');
  });
});
