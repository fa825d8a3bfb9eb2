/**
 * The framework under the real terraform, through the example provider (the compiled framework plus a resource
 * whose "API" is a JSON file): create → no-op plan → update → replace → drift → import → destroy, write-only
 * values, partial-failure state, exact numbers, Ctrl-C and SIGKILL of terraform.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_ENTRY, TerraformDir, collect, eventually, isRunning, providerConfig } from './support/terraform';

const SECRET = 'hunter2-write-only-value';

function exampleConfig(resource: string, provider = '  api_key = "k"\n  control_plane_url = "http://127.0.0.1:9"'): string {
  return `${providerConfig(provider)}
resource "agentplatform_example" "a" {
${resource}
}
`;
}

describe('a resource through terraform', () => {
  let tf: TerraformDir;
  let store: string;
  const objects = (): Record<string, Record<string, unknown>> => (existsSync(store) ? JSON.parse(readFileSync(store, 'utf8')) : {});
  const state = (): string => readFileSync(join(tf.dir, 'terraform.tfstate'), 'utf8');
  const resourceState = (): Record<string, unknown> => JSON.parse(state()).resources[0].instances[0].attributes;

  beforeEach(async () => {
    tf = TerraformDir.create(EXAMPLE_ENTRY);
    store = join(tf.dir, 'store.json');
    tf.env.EXAMPLE_STORE = store;
    tf.write('main.tf', exampleConfig('  name = "alpha"'));
    expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);
  });
  afterEach(() => tf.remove());

  const apply = (...args: string[]) => tf.run(['apply', '-auto-approve', '-input=false', '-no-color', ...args]);
  const plan = (...args: string[]) => tf.run(['plan', '-input=false', '-no-color', '-detailed-exitcode', ...args]);

  it('creates, plans no change, updates in place, replaces, notices drift, imports and destroys', async () => {
    const body = `  name = "alpha"
  size = 0.1
  tags = { team = "a" }
  secret = "${SECRET}"
  secret_version = 1
  spec = { min = 12345678901234567890 }
  rule { match = "x" }`;
    tf.write('main.tf', exampleConfig(body));

    const created = await apply();
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('Apply complete! Resources: 1 added');
    const id = resourceState().id as string;
    expect(objects()[id]).toMatchObject({ name: 'alpha', kind: 'plain', revision: 1, secret_digest: String(SECRET.length) });
    expect(resourceState()).toMatchObject({ kind: 'plain', secret: null, spec: { label: 'default' } });
    // Exact numbers: the big integer and the decimal survive the float64-based handler unchanged.
    expect(state()).toContain('"min": 12345678901234567890');
    expect(state()).toContain('"size": 0.1');

    expect((await plan()).code).toBe(0);

    tf.write('main.tf', exampleConfig(body.replace('size = 0.1', 'size = 2')));
    const updatePlan = await plan();
    expect(updatePlan.code).toBe(2);
    expect(updatePlan.stdout).toContain('~ update in-place');
    expect(updatePlan.stdout).toMatch(/revision\s+= 1 -> \(known after apply\)/);
    expect(updatePlan.stdout).toMatch(/id\s+= "ex-/);
    expect((await apply()).code).toBe(0);
    expect(resourceState()).toMatchObject({ id, size: 2, revision: 2 });

    tf.write('main.tf', exampleConfig(body.replace('size = 0.1', 'size = 2').replace('"alpha"', '"beta"')));
    const replacePlan = await plan();
    expect(replacePlan.stdout).toMatch(/name\s+= "alpha" -> "beta" # forces replacement/);
    expect(replacePlan.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    expect((await apply()).code).toBe(0);
    const newId = resourceState().id as string;
    expect(newId).not.toBe(id);
    expect(Object.keys(objects())).toEqual([newId]);

    const changed = objects();
    changed[newId]!.kind = 'fancy';
    writeFileSync(store, JSON.stringify(changed));
    const drift = await plan();
    expect(drift.code).toBe(2);
    expect(drift.stdout).toMatch(/kind\s+= "fancy" -> "plain"/);

    writeFileSync(join(tf.dir, 'terraform.tfstate'), '');
    const imported = await tf.run(['import', '-input=false', '-no-color', 'agentplatform_example.a', newId]);
    expect(imported.stdout).toContain('Import successful!');
    expect(resourceState()).toMatchObject({ id: newId, name: 'beta', secret: null });

    expect((await apply()).code).toBe(0);
    const destroyed = await tf.run(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    expect(objects()).toEqual({});
    expect(`${state()}${readFileSync(store, 'utf8')}`).not.toContain(SECRET);
  });

  it('keeps the id in state when create fails after the object exists', async () => {
    tf.write('main.tf', exampleConfig('  name = "alpha"\n  fail_create = true'));

    const result = await apply();

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: Create failed after the object existed');
    const id = resourceState().id as string;
    expect(Object.keys(objects())).toEqual([id]);
    // Terraform marks the instance tainted: the next plan replaces it instead of orphaning it.
    expect(JSON.parse(state()).resources[0].instances[0].status).toBe('tainted');
  });

  it('reports configuration errors against the attribute, at validate time', async () => {
    tf.write('main.tf', exampleConfig('  name = "has space"\n  kind = "odd"\n  size = -1\n  timeouts = { create = "soon" }'));

    const result = await tf.run(['validate', '-no-color']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: Invalid kind');
    expect(result.stderr).toContain('must be one of "plain", "fancy"; got "odd".');
    expect(result.stderr).toContain('Error: Invalid size');
    expect(result.stderr).toContain('Error: Invalid timeouts.create');
    // Inside an object expression terraform can only point at the resource: the summary names the attribute.
    expect(result.stderr).toContain('"soon" is not a duration');
    expect(result.stderr).toContain('Error: Invalid name');
    expect(result.stderr).toMatch(/on main.tf line \d+, in resource "agentplatform_example" "a":\s+\d+:\s+name = "has space"/);
  });

  it('stops a plan clearly when no API key is configured', async () => {
    tf.write('main.tf', exampleConfig('  name = "alpha"', '  control_plane_url = "http://127.0.0.1:9"'));

    const result = await plan();

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: Missing API key');
    expect(result.stderr).toContain('AGENTPLATFORM_API_KEY');
    expect(result.stderr).toContain('provider "agentplatform"');
    expect(await plan()).toMatchObject({ code: 1 });
    const withEnv = await tf.run(['plan', '-input=false', '-no-color'], { AGENTPLATFORM_API_KEY: 'from-env' });
    expect(withEnv.code).toBe(0);
  });

  it('ends a wait cleanly on Ctrl-C, keeping the id in state', async () => {
    tf.write('main.tf', exampleConfig('  name = "alpha"\n  wait_seconds = 120'));
    const child = tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
    const done = collect(child);
    expect(await eventually(() => existsSync(`${store}.waiting`), 20_000)).toBe(true);

    // Ctrl-C in a terminal signals the whole process group; the provider ignores it and waits for StopProvider.
    process.kill(-child.pid!, 'SIGINT');
    const result = await done;

    expect(result.stdout).toContain('Interrupt received');
    expect(result.stderr).toContain('Error: Interrupted');
    expect(result.stderr).not.toContain('panic');
    expect(Object.keys(objects())).toEqual([resourceState().id]);
  });

  it('leaves no provider process behind when terraform is killed', async () => {
    tf.write('main.tf', exampleConfig('  name = "alpha"\n  wait_seconds = 120'));
    const child = tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
    const done = collect(child);
    expect(await eventually(() => existsSync(`${store}.waiting`), 20_000)).toBe(true);
    const providerPid = Number(readFileSync(`${store}.waiting`, 'utf8'));
    expect(isRunning(providerPid)).toBe(true);

    child.kill('SIGKILL');
    await done;

    expect(await eventually(() => !isRunning(providerPid), 5000)).toBe(true);
  });
});
