/**
 * The provider as users get it: installed offline into a configuration's implied local mirror, found by the real
 * `terraform init` through the lock file we wrote, serving its schema and checking its provider block.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_ADDRESS, PROVIDER_VERSION } from '../../lib/provider/constants';
import { packageHash } from '../../lib/install/provider';
import { DIST_ENTRY, EXAMPLE_ENTRY, TerraformDir, eventually, providerConfig, processesWithEnv } from './support/terraform';

describe('terraform with the installed provider', () => {
  const dirs: TerraformDir[] = [];
  const newDir = (entry?: string, env?: NodeJS.ProcessEnv): TerraformDir => {
    const dir = TerraformDir.create(entry, env);
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((d) => d.remove()));

  it('initialises offline from the implied local mirror, accepting the lock file as written', async () => {
    const tf = newDir();
    tf.write('main.tf', providerConfig());
    const lockBefore = readFileSync(join(tf.dir, '.terraform.lock.hcl'), 'utf8');

    const init = await tf.run(['init', '-input=false', '-no-color']);

    expect(init.stderr).toBe('');
    expect(init.stdout).toContain(`Installed agentplatform/agentplatform v${PROVIDER_VERSION} (unauthenticated)`);
    expect(init.code).toBe(0);
    // terraform verified the package against our h1: hash; a wrong hash fails init with "checksums" instead.
    expect(readFileSync(join(tf.dir, '.terraform.lock.hcl'), 'utf8')).toBe(lockBefore);
    expect(lockBefore).toContain(`provider "${PROVIDER_ADDRESS}"`);
    expect(lockBefore).toContain(packageHash(tf.install.packageDir));
  });

  it('refuses a lock file whose hash does not match the installed launcher', async () => {
    const tf = newDir();
    tf.write('main.tf', providerConfig());
    const lockPath = join(tf.dir, '.terraform.lock.hcl');
    const lock = readFileSync(lockPath, 'utf8').replace(tf.install.hash, 'h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    tf.write('.terraform.lock.hcl', lock);

    const init = await tf.run(['init', '-input=false', '-no-color']);

    expect(init.code).not.toBe(0);
    expect(init.stderr).toMatch(/checksum/i);
  });

  it('validates a configuration with a provider block', async () => {
    const tf = newDir();
    tf.write('main.tf', providerConfig('  api_key = "not-a-real-key"\n  request_timeout = "45s"\n  max_retries = 2'));
    expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);

    const validate = await tf.run(['validate', '-no-color']);

    expect(validate.stderr).toBe('');
    expect(validate.stdout).toContain('The configuration is valid.');
    expect(validate.code).toBe(0);
  });

  it('shows the provider configuration schema in `terraform providers schema -json`', async () => {
    const tf = newDir();
    tf.write('main.tf', providerConfig());
    expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);

    const result = await tf.run(['providers', 'schema', '-json']);

    expect(result.code).toBe(0);
    const schemas = JSON.parse(result.stdout) as {
      provider_schemas: Record<string, { provider: { block: { attributes: Record<string, Record<string, unknown>> } } }>;
    };
    const attributes = schemas.provider_schemas[PROVIDER_ADDRESS]!.provider.block.attributes;
    expect(Object.keys(attributes).sort()).toEqual(
      ['api_key', 'control_plane_url', 'max_retries', 'request_timeout', 'tenant_id', 'tracing_url'].sort(),
    );
    expect(attributes.api_key).toMatchObject({ type: 'string', optional: true, sensitive: true, description_kind: 'markdown' });
    expect(attributes.max_retries).toMatchObject({ type: 'number', optional: true });
    expect(String(attributes.api_key!.description)).toContain('AGENTPLATFORM_API_KEY');
  });

  it('reports a malformed provider setting against that attribute', async () => {
    // A provider block is only validated when something uses the provider: the example data source does.
    const tf = newDir(EXAMPLE_ENTRY, { EXAMPLE_STORE: '/nonexistent/store.json' });
    tf.write(
      'main.tf',
      providerConfig('  api_key = "k"\n  request_timeout = "abc"\n  control_plane_url = "ftp://example.com"') +
        'data "agentplatform_example_info" "all" {}\n',
    );
    expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);

    const validate = await tf.run(['validate', '-no-color']);

    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('Error: Invalid request_timeout');
    expect(validate.stderr).toContain('request_timeout = "abc"');
    expect(validate.stderr).toContain('"abc" is not a duration');
    expect(validate.stderr).toContain('Error: Invalid control_plane_url');
    expect(validate.stderr).toContain('control_plane_url = "ftp://example.com"');
  });

  it('leaves no provider process behind once terraform exits', async () => {
    const marker = `AGENTPLATFORM_TEST_MARKER=${process.pid}-${Date.now()}`;
    const [key, value] = marker.split('=') as [string, string];
    const tf = newDir(DIST_ENTRY, { [key]: value });
    tf.write('main.tf', providerConfig());
    expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);

    expect((await tf.run(['providers', 'schema', '-json'])).code).toBe(0);
    expect((await tf.run(['validate', '-no-color'])).code).toBe(0);

    expect(await eventually(() => processesWithEnv(marker).length === 0, 3000)).toBe(true);
  });

  it('refuses to run by hand, with a message for humans', () => {
    const { launcherPath } = newDir().install;

    const result = spawnSync(launcherPath, [], { env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 10_000 });

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('This binary is a plugin for terraform');
    expect(result.stderr).toContain('node_modules/.bin/agentplatform-provider install');
  });
});
