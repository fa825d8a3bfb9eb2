/**
 * What jsii and jsii-pacmak make of the construct library: the `.jsii` assembly with every construct and the
 * configured language targets, and the Python, Java, C# and Go packages (code only where the build machine lacks
 * the toolchain or registry, see the README). The Python sources are parsed by the machine's Python; the other
 * languages are checked for their package names and the constructs' classes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageFolder, packageTarball } from '../support/packages';

const CONSTRUCTS = ['AgentPlatformProvider', 'Deployment', 'DeploymentRevisions', 'SandboxTemplates', 'ExportBucket', 'ExportDestination', 'ScheduledExport', 'BulkExport', 'TracingProject', 'Filter', 'Duration'];

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));

describe('the jsii assembly and the language packages', () => {
  let dir: string;
  let dist: string;
  beforeAll(() => {
    packageTarball('cdktf');
    dir = packageFolder('cdktf');
    dist = join(dir, 'dist');
  }, 15 * 60_000);

  it('has every construct in the .jsii assembly, with the language targets of package.json', () => {
    const assembly = JSON.parse(readFileSync(join(dir, '.jsii'), 'utf8')) as { name: string; types: Record<string, unknown>; targets: Record<string, unknown> };
    expect(assembly.name).toBe('@agentplatform/cdktf');
    expect(Object.keys(assembly.types)).toEqual(expect.arrayContaining(CONSTRUCTS.map((name) => `@agentplatform/cdktf.${name}`)));
    expect(assembly.targets).toEqual({
      js: { npm: '@agentplatform/cdktf' },
      python: { distName: 'agentplatform-cdktf', module: 'agentplatform_cdktf' },
      java: { package: 'io.agentplatform.cdktf', maven: { groupId: 'io.agentplatform', artifactId: 'cdktf' } },
      dotnet: { namespace: 'AgentPlatform.Cdktf', packageId: 'AgentPlatform.Cdktf' },
      go: { moduleName: 'github.com/agentplatform/agentplatform-cdktf-go' },
    });
  });

  it('has a Python package whose sources parse, and whose wheel, when built, carries the assembly', () => {
    const init = readFileSync(join(dist, 'python', 'src', 'agentplatform_cdktf', '__init__.py'), 'utf8');
    for (const name of CONSTRUCTS) expect(init).toMatch(new RegExp(`^class ${name}\\b`, 'm'));
    const sources = filesUnder(join(dist, 'python', 'src')).filter((file) => file.endsWith('.py'));
    const compiled = spawnSync('python3', ['-c', 'import sys, ast\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)', ...sources], { encoding: 'utf8' });
    expect({ status: compiled.status, stderr: compiled.stderr }).toEqual({ status: 0, stderr: '' });
    const wheels = readdirSync(join(dist, 'python')).filter((name) => name.endsWith('.whl'));
    for (const wheel of wheels) {
      expect(wheel).toBe('agentplatform_cdktf-0.1.0-py3-none-any.whl');
      const listing = spawnSync('python3', ['-m', 'zipfile', '-l', join(dist, 'python', wheel)], { encoding: 'utf8' }).stdout;
      expect(listing).toContain('agentplatform_cdktf/_jsii/cdktf@0.1.0.jsii.tgz');
    }
  });

  it('has Java, C# and Go packages with the constructs, under their package names', () => {
    const java = join(dist, 'java', 'src', 'main', 'java', 'io', 'agentplatform', 'cdktf');
    const dotnet = join(dist, 'dotnet', 'AgentPlatform.Cdktf', 'AgentPlatform', 'Cdktf');
    const go = join(dist, 'go', 'agentplatformcdktf');
    expect(readFileSync(join(dist, 'java', 'pom.xml'), 'utf8')).toMatch(/<groupId>io\.agentplatform<\/groupId>\s*<artifactId>cdktf<\/artifactId>/);
    expect(readFileSync(join(go, 'go.mod'), 'utf8')).toMatch(/^module github\.com\/agentplatform\/agentplatform-cdktf-go\/agentplatformcdktf$/m);
    for (const name of CONSTRUCTS) {
      expect(readFileSync(join(java, `${name}.java`), 'utf8')).toMatch(/^package io\.agentplatform\.cdktf;$/m);
      expect(readFileSync(join(dotnet, `${name}.cs`), 'utf8')).toMatch(/^namespace AgentPlatform\.Cdktf$/m);
      expect(existsSync(join(go, `${name}.go`))).toBe(true);
      expect(readFileSync(join(go, `${name}.go`), 'utf8')).toMatch(/^package agentplatformcdktf$/m);
    }
  });
});
