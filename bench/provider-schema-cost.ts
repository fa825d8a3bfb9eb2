/**
 * What a resource's schema costs terraform itself: no-change plans without refresh of 100 resources of a test
 * provider (the provider's own server, with resources whose handlers call no API) against 100 `terraform_data`.
 * Schemas: `tiny` (`id`, `name`), `wide` (the deployment's schema as it is), and `wide` changed one way each (no
 * nested attributes, `secrets` not write-only, strings only). It reports CPU time, which moves less with the machine's
 * load than wall time: terraform's under `/usr/bin/time` (which includes the provider processes it waited for) and
 * each provider process's own (`process.cpuUsage()` at exit, through a `--require` in NODE_OPTIONS); terraform's own
 * is the difference. Medians of interleaved plans.
 *
 *   npm run build && node dist/bench/provider-schema-cost.js
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNKNOWN, attr, defineResource, defineSchema, type Attributes, type ResourceDefinition } from '../lib/provider/framework';
import { serve } from '../lib/provider/main';
import { registry } from '../lib/provider/registry';
import { deploymentSchema } from '../lib/provider/resources/deployment/schema';

const PLANS = 5;
const VARIANT_ENV = 'SCHEMA_COST_VARIANT';
const CPU_LOG_ENV = 'SCHEMA_COST_CPU_LOG';

/** The test schemas, by name: each a resource type `agentplatform_<name>`. */
const VARIANTS: Readonly<Record<string, () => Attributes>> = {
  tiny: () => ({
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'Id.' }),
    name: attr.string({ required: true, description: 'Name.' }),
  }),
  wide: () => deploymentSchema.attributes,
  wide_no_nested: () => {
    const { resource_spec: _spec, timeouts: _timeouts, ...rest } = deploymentSchema.attributes;
    return rest;
  },
  wide_no_write_only: () => ({ ...deploymentSchema.attributes, secrets: { ...deploymentSchema.attributes.secrets, writeOnly: false } }),
  wide_strings: () =>
    Object.fromEntries(
      Object.entries(deploymentSchema.attributes as Attributes).map(([k, a]) => {
        const { optional, computed } = a as { optional?: boolean; computed?: boolean };
        return a.kind === 'string' || a.kind === 'bool' ? [k, a] : [k, attr.string({ optional, computed, description: 'Text.' })];
      }),
    ),
};

/** A resource of `attributes` whose handlers call nothing: create fills unknowns with nulls, read returns the state. */
function testResource(typeName: string, attributes: Attributes): ResourceDefinition {
  const known = (model: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(model).map(([k, v]) => [k, v !== UNKNOWN ? v : k === 'id' ? `id-${String(model.name)}` : null]));
  return defineResource({
    typeName,
    schema: defineSchema({ description: 'A test resource.', attributes }),
    create: async ({ planned }) => known(planned) as never,
    read: async ({ state }) => state,
    update: async ({ planned }) => known(planned) as never,
    delete: async () => undefined,
  }) as unknown as ResourceDefinition;
}

/** The provider process, as terraform launches it through the launcher this bench writes. */
function serveTestProvider(): void {
  const variant = process.env[VARIANT_ENV]!;
  const log = process.env[CPU_LOG_ENV]!;
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    writeFileSync(log, `${(cpu.user + cpu.system) / 1000}\n`, { flag: 'a' });
  });
  const resource = testResource(`agentplatform_${variant}`, VARIANTS[variant]!());
  void serve({ registry: { ...registry, resources: { [resource.typeName]: () => resource } } });
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  const root = mkdtempSync(join(tmpdir(), 'bench-schema-cost-'));
  const plugins = join(root, 'plugins');
  mkdirSync(plugins);
  const launcher = join(plugins, 'terraform-provider-agentplatform');
  writeFileSync(launcher, `#!/bin/sh\nexec '${process.execPath}' '${__filename}' --serve\n`);
  chmodSync(launcher, 0o755);
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim(), join(bin, 'terraform'));
  const rc = join(root, 'dev.tfrc');
  writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "agentplatform/agentplatform" = "${plugins}"\n  }\n  direct {}\n}\n`);
  const cpuLog = join(root, 'cpu.log');
  const workdir = (name: string, body: string): { name: string; dir: string; env: NodeJS.ProcessEnv } => {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'main.tf'), body);
    // the provider block needs a key and an address, which the test resources never call
    const api = { AGENTPLATFORM_API_KEY: 'not-used', AGENTPLATFORM_CONTROL_PLANE_URL: 'http://127.0.0.1:9' };
    const env = {
      ...api,
      PATH: bin,
      HOME: dir,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_CLI_CONFIG_FILE: rc,
      [VARIANT_ENV]: name,
      [CPU_LOG_ENV]: cpuLog,
    };
    return { name, dir, env };
  };
  const dirs = [
    workdir('terraform_data', 'resource "terraform_data" "item" {\n  count = 100\n  input = "item-${count.index}"\n}\n'),
    ...Object.keys(VARIANTS).map((name) =>
      workdir(
        name,
        'terraform {\n  required_providers {\n    agentplatform = { source = "agentplatform/agentplatform" }\n  }\n}\n\n' +
          `resource "agentplatform_${name}" "item" {\n  count    = 100\n  name     = "item-\${count.index}"\n` +
          (name === 'tiny' ? '}\n' : '  source   = "github"\n  repo_url = "https://github.com/acme/agent"\n  repo_ref = "main"\n}\n'),
      ),
    ),
  ];
  const terraform = (d: (typeof dirs)[number], ...args: string[]): { cpu: number; provider: number } => {
    rmSync(cpuLog, { force: true });
    const command = ['-f', '%U %S', 'terraform', ...args, '-no-color', '-input=false'];
    const run = spawnSync('/usr/bin/time', command, { cwd: d.dir, env: d.env, encoding: 'utf8' });
    const ok = run.status === 0 || (args[0] === 'plan' && run.status === 2);
    if (!ok) throw new Error(`terraform ${args.join(' ')} in ${d.name} exited with ${run.status}: ${run.stderr}`);
    if (args[0] === 'plan' && run.status !== 0) throw new Error(`the plan of ${d.name} found changes: the bench measures plans without`);
    const [user, sys] = run.stderr.trim().split('\n').pop()!.split(' ').map(Number);
    const provider = existsSync(cpuLog) ? readFileSync(cpuLog, 'utf8').trim().split('\n').reduce((sum, ms) => sum + Number(ms), 0) : 0;
    return { cpu: (user! + sys!) * 1000, provider };
  };
  try {
    for (const d of dirs) {
      if (d.name === 'terraform_data') terraform(d, 'init');
      terraform(d, 'apply', '-auto-approve');
    }
    const results = dirs.map(() => ({ cpu: [] as number[], own: [] as number[], provider: [] as number[] }));
    for (let i = 0; i < PLANS; i++) {
      for (const [j, d] of dirs.entries()) {
        const { cpu, provider } = terraform(d, 'plan', '-refresh=false', '-detailed-exitcode');
        results[j]!.cpu.push(cpu);
        results[j]!.own.push(cpu - provider);
        results[j]!.provider.push(provider);
      }
    }
    console.log(`no-change plans of 100 resources without refresh, CPU time (median of ${PLANS}, interleaved)`);
    for (const [j, d] of dirs.entries()) {
      const r = results[j]!;
      const ms = (xs: number[]): string => `${median(xs).toFixed(0)} ms`;
      console.log(`  ${d.name.padEnd(20)} plan ${ms(r.cpu)}  terraform's own ${ms(r.own)}  provider ${ms(r.provider)}`);
    }
    console.log(`  load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) serveTestProvider();
else main();
