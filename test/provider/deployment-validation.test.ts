/**
 * What the provider refuses before calling the API (only by a rule of the spec, or to keep a secret out of plan and
 * state), each time against the attribute at fault; what it warns of at plan (the local platform's rules, which the
 * spec does not state); and what it never lets out: secrets stay out of the state file, the plan output and the
 * logs, even at TRACE level.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestPlatform, githubDeployment } from './support/deployment-platform';
import { DIST_ENTRY, TerraformDir, providerConfig } from './support/terraform';

const SECRET = 'sk-test-4f1d9a7c2b-never-shown';
const NEW_SECRET = 'sk-test-8e3b5d0a91-rotated';

/** Runs terraform commands and keeps everything they printed, for the checks that no secret was. */
function recording(): { outputs: string[]; run: <R extends { stdout: string; stderr: string }>(result: Promise<R>) => Promise<R> } {
  const outputs: string[] = [];
  return {
    outputs,
    run: async (result) => {
      const r = await result;
      outputs.push(r.stdout, r.stderr);
      return r;
    },
  };
}

/** The diagnostic block (summary to the next one) terraform printed for `summary` at `resource`'s `attribute` line. */
function diagnosticAt(stderr: string, summary: string, resource: string, attribute: string): boolean {
  const blocks = stderr.split(/\n(?=│? ?Error: |Warning: )/);
  return blocks.some((b) => b.includes(`Error: ${summary}`) && b.includes(`in ${resource}:`) && new RegExp(`\\d+:\\s+${attribute}\\s+=`).test(b));
}

describe('agentplatform_deployment input checks and secrets', () => {
  let lp: TestPlatform;
  beforeAll(async () => {
    lp = await TestPlatform.start();
  });
  afterAll(() => lp.close());

  it('reports each invalid argument at validate time, on its attribute', async () => {
    const dir = lp.terraform();
    dir.configure(
      [
        githubDeployment('unknown_source', { name: 'a', source: 'gitlab' }),
        githubDeployment('tag_and_push', { name: 'b', repo_ref: 'refs/tags/v1.0.0', build_on_push: true }),
        githubDeployment('image_for_github', { name: 'c', image_uri: 'registry.example.com/agent:1' }),
        `resource "agentplatform_deployment" "docker_ref" {\n  name      = "e"\n  source    = "external_docker"\n  image_uri = "registry.example.com/agent:1"\n  repo_ref  = "main"\n}\n`,
        // past 2^53 a whole number is no longer exact as the JSON number the API takes
        githubDeployment('huge_scale', { name: 'm' }, '  resource_spec = { max_scale = 9007199254740993 }\n'),
        githubDeployment('token_in_url', { name: 'h', repo_url: 'https://x-access-token:ghp_0123@github.com/acme/agent' }),
        githubDeployment('password_in_custom_url', { name: 'i', custom_url: 'https://user:pw@agent.example.com' }),
        // a user-info is refused however malformed the rest of the URL, and never quoted
        githubDeployment('token_in_spaced_url', { name: 'k', repo_url: 'https://user:TOKEN_SPACED@github.com/acme/my agent' }),
        githubDeployment('token_in_one_slash_url', { name: 'l', repo_url: 'http:/user:TOKEN_SLASH@github.com/acme/agent' }),
        githubDeployment('token_in_backslash_url', { name: 'n', custom_url: 'https://user:TOKEN_BACKSLASH@agent.example.com\\x' }),
        githubDeployment('fractional_version', { name: 'j', secrets_version: 1.5 }),
        `resource "agentplatform_deployment" "docker_secrets" {\n  name            = "g"\n  source          = "external_docker"\n  secrets_version = 1\n}\n`,
        `data "agentplatform_revisions" "zero" {\n  deployment_id = "6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24"\n  limit = 0\n}\n`,
      ].join('\n'),
    );
    expect((await dir.init()).code).toBe(0);

    const result = await dir.tf.run(['validate', '-no-color']);

    expect(result.code).toBe(1);
    const { stderr } = result;
    expect(stderr).toContain('must be one of "github", "external_docker"; got "gitlab"');
    expect(diagnosticAt(stderr, 'Invalid source', 'resource "agentplatform_deployment" "unknown_source"', 'source')).toBe(true);
    expect(stderr).toContain('`build_on_push` must be false when `repo_ref` is a tag');
    expect(diagnosticAt(stderr, 'Invalid build_on_push', 'resource "agentplatform_deployment" "tag_and_push"', 'build_on_push')).toBe(true);
    expect(diagnosticAt(stderr, 'Invalid image_uri', 'resource "agentplatform_deployment" "image_for_github"', 'image_uri')).toBe(true);
    expect(diagnosticAt(stderr, 'Invalid repo_ref', 'resource "agentplatform_deployment" "docker_ref"', 'repo_ref')).toBe(true);
    // Inside an object expression terraform can only point at the resource: the summary names the attribute.
    expect(stderr).toMatch(/Error: Invalid resource_spec\.max_scale[\s\S]*must be at most 9007199254740991; got 9007199254740993/);
    expect(stderr).toMatch(/Error: Missing image_uri[\s\S]*in resource "agentplatform_deployment" "docker_secrets"/);
    expect(diagnosticAt(stderr, 'Invalid repo_url', 'resource "agentplatform_deployment" "token_in_url"', 'repo_url')).toBe(true);
    expect(diagnosticAt(stderr, 'Invalid custom_url', 'resource "agentplatform_deployment" "password_in_custom_url"', 'custom_url')).toBe(true);
    expect(stderr.replace(/\s+/g, ' ')).toContain('must not carry a user name or password: the URL is kept in plan and state and returned by the platform. A private repository is reached through `integration_id`.');
    expect(diagnosticAt(stderr, 'Invalid repo_url', 'resource "agentplatform_deployment" "token_in_spaced_url"', 'repo_url')).toBe(true);
    expect(diagnosticAt(stderr, 'Invalid repo_url', 'resource "agentplatform_deployment" "token_in_one_slash_url"', 'repo_url')).toBe(true);
    expect(diagnosticAt(stderr, 'Invalid custom_url', 'resource "agentplatform_deployment" "token_in_backslash_url"', 'custom_url')).toBe(true);
    // terraform quotes the configuration line itself; no diagnostic of the provider's own names the token
    expect(stderr.match(/TOKEN_[A-Z]+/g)?.length ?? 0).toBe((stderr.match(/(repo|custom)_url\s+=\s+"[^"\n]*TOKEN_/g) ?? []).length);
    expect(diagnosticAt(stderr, 'Invalid secrets_version', 'resource "agentplatform_deployment" "fractional_version"', 'secrets_version')).toBe(true);
    expect(diagnosticAt(stderr, 'Invalid limit', 'data "agentplatform_revisions" "zero"', 'limit')).toBe(true);
    expect(stderr).toContain('must be at least 1; got 0');
    // what the spec sets no rule for is no error
    expect(stderr).not.toMatch(/Error: (Invalid name|Missing repo_url|Invalid secret name|Secret (name|value) too long|Too many secrets)/);
  });

  it('warns at plan of what the local platform refuses and the spec does not state, and refuses none of it', async () => {
    const dir = lp.terraform();
    dir.configure(
      [
        githubDeployment('bad_name', { name: '-leading-dash' }),
        `resource "agentplatform_deployment" "no_repo" {\n  name   = "d"\n  source = "github"\n}\n`,
        githubDeployment('scales', { name: 'f' }, '  resource_spec = { min_scale = 3, max_scale = 2 }\n'),
        githubDeployment('no_cpu', { name: 'o' }, '  resource_spec = { cpu = 0 }\n'),
        // (terraform shows one warning of a summary and counts the others: one per summary here)
        githubDeployment('fractional', { name: 'p' }, '  resource_spec = { max_scale = 2.5, memory_mb = 512.5 }\n'),
        // no scheme: a warning, which quotes no user name or password
        githubDeployment('schemeless_token', { name: 'q', custom_url: 'x-access-token:TOKEN_SCHEMELESS@agent.example.com' }),
        // URLs that a WHATWG parser mends, and the local platform refuses
        githubDeployment('spaced_url', { name: 'k', repo_url: 'https://github.com/acme/my agent' }),
        githubDeployment('empty_ref', { name: 'j', repo_ref: '' }),
        // the longest value the local platform takes passes; one character more is warned of, naming the secret
        githubDeployment('long_secret', { name: 'm', secrets_version: 1 }, `  secrets = { LARGEST = "${'x'.repeat(65_536)}", TOO_LONG = "${'y'.repeat(65_537)}" }\n`),
        githubDeployment('long_secret_name', { name: 'n', secrets_version: 1 }, `  secrets = { ${'N'.repeat(128)} = "fits", ${'L'.repeat(129)} = "named too long" }\n`),
        `resource "agentplatform_deployment" "docker_secrets" {\n  name            = "g"\n  source          = "external_docker"\n  image_uri       = "registry.example.com/agent:1"\n  deployment_type = "dev_free_zero"\n  secrets         = { "not-an-env-name" = "x" }\n  secrets_version = 1\n}\n`,
      ].join('\n'),
    );
    expect((await dir.init()).code).toBe(0);
    const before = lp.requests.length;

    const { code, stdout, stderr } = await dir.plan();

    expect([code, stderr]).toEqual([2, '']);
    expect(lp.requests.length).toBe(before);
    const warnedAt = (summary: string, label: string, attribute: string): boolean =>
      diagnosticAt(stdout.replace(/Warning: /g, 'Error: '), summary, `resource "agentplatform_deployment" "${label}"`, attribute);
    const text = stdout.replace(/\s+/g, ' ');
    expect(warnedAt('Unusual deployment name', 'bad_name', 'name')).toBe(true);
    expect(text).toContain('"-leading-dash" is not a letter or digit followed by letters, digits, "-" and "_", at most 63 characters: the platform may refuse it.');
    expect(stdout).toMatch(/Warning: Missing repo_url[\s\S]*in resource "agentplatform_deployment" "no_repo"/);
    expect(stdout).toMatch(/Warning: Unusual resource_spec\.min_scale[\s\S]*`min_scale` \(3\) is more than `max_scale` \(2\)/);
    expect(stdout).toMatch(/Warning: Unusual resource_spec\.cpu[\s\S]*`cpu` \(0\) is not more than 0: the platform may refuse it\./);
    expect(warnedAt('Unusual repo_url', 'spaced_url', 'repo_url')).toBe(true);
    for (const key of ['max_scale', 'memory_mb']) expect(stdout).toMatch(new RegExp(`Warning: Unusual resource_spec\\.${key}[\\s\\S]*\`${key}\` \\([\\d.]+\\) is not a whole number: the platform may refuse it\\.`));
    expect(warnedAt('Unusual custom_url', 'schemeless_token', 'custom_url')).toBe(true);
    expect(text).toContain('"x-access-token:***@agent.example.com" is not an absolute http:// or https:// URL');
    expect(warnedAt('Empty repo_ref', 'empty_ref', 'repo_ref')).toBe(true);
    expect(stdout).toMatch(/Warning: Long secret value[\s\S]*in resource "agentplatform_deployment" "long_secret"/);
    expect(text).toContain('The value of secret "TOO_LONG" has 65537 characters, more than 65536: the platform may refuse it.');
    expect(stdout).not.toContain('"LARGEST" has');
    expect(stdout).toMatch(/Warning: Long secret name[\s\S]*in resource "agentplatform_deployment" "long_secret_name"/);
    expect(text).toContain(`Secret name "${'L'.repeat(129)}" has 129 characters, more than 128: the platform may refuse it.`);
    expect(stdout).not.toContain(`"${'N'.repeat(128)}" has`);
    expect(text).toContain('"not-an-env-name" is not an environment variable name');
    // a kind of deployment the real platform takes, outside the local platform's first two
    expect(stdout).toContain('+ deployment_type    = "dev_free_zero"');
  });

  it('stops the plan clearly when no API key is configured', async () => {
    const tf = TerraformDir.create(DIST_ENTRY, { AGENTPLATFORM_CONTROL_PLANE_URL: lp.platform.url });
    try {
      tf.write('main.tf', `${providerConfig()}\n${githubDeployment('agent', { name: 'keyless' })}`);
      expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);

      const result = await tf.run(['plan', '-input=false', '-no-color']);

      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Error: Missing API key');
      expect(result.stderr).toContain('AGENTPLATFORM_API_KEY');
      expect(result.stderr).toContain('with provider["registry.terraform.io/agentplatform/agentplatform"]');
    } finally {
      tf.remove();
    }
  });

  it('names the setting to check when a read or an import meets a refused key or a platform out of reach', async () => {
    const reads = `data "agentplatform_sandbox_templates" "all" {}\n\ndata "agentplatform_bulk_export_runs" "runs" {\n  export_id = "6d2c8f0a-91b3-4e7d-a5c4-0f3b2e1d9a87"\n}\n`;
    const run = async (env: NodeJS.ProcessEnv, args: string[]) => {
      const tf = TerraformDir.create(DIST_ENTRY, env);
      try {
        tf.write('main.tf', `${providerConfig()}\n${reads}\n${githubDeployment('agent', { name: 'imported' })}`);
        expect((await tf.run(['init', '-input=false', '-no-color'])).code).toBe(0);
        return await tf.run(args);
      } finally {
        tf.remove();
      }
    };
    const urls = { AGENTPLATFORM_CONTROL_PLANE_URL: lp.platform.url, AGENTPLATFORM_TRACING_URL: lp.platform.url };

    const wrongKey = await run({ ...urls, AGENTPLATFORM_API_KEY: 'lp_not-a-key-of-this-platform' }, ['plan', '-input=false', '-no-color']);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('Error: API key refused');
    expect(wrongKey.stderr.replace(/\s+/g, ' ')).toContain('Check `api_key` in the provider block or the AGENTPLATFORM_API_KEY environment variable.');

    const existing = await lp.client.createDeployment({ name: lp.uniqueName('import'), source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
    const imported = await run({ ...urls, AGENTPLATFORM_API_KEY: 'lp_not-a-key-of-this-platform' }, ['import', '-input=false', '-no-color', 'agentplatform_deployment.agent', existing.id]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('Error: API key refused');

    const away = await run(
      { AGENTPLATFORM_CONTROL_PLANE_URL: 'http://127.0.0.1:1', AGENTPLATFORM_TRACING_URL: 'http://127.0.0.1:1', AGENTPLATFORM_API_KEY: lp.platform.devApiKey },
      ['plan', '-input=false', '-no-color'],
    );
    expect(away.code).toBe(1);
    const flatAway = away.stderr.replace(/\s+/g, ' ');
    expect(flatAway).toContain('Check `control_plane_url` in the provider block or the AGENTPLATFORM_CONTROL_PLANE_URL environment variable');
    expect(flatAway).toContain('Check `tracing_url` in the provider block or the AGENTPLATFORM_TRACING_URL environment variable');
  });

  it('sends secrets on create and on a version change, and never shows or stores them', async () => {
    const dir = lp.terraform({ TF_LOG: 'TRACE' });
    const logFile = join(dir.tf.dir, 'terraform.log');
    dir.tf.env.TF_LOG_PATH = logFile;
    const name = lp.uniqueName('secrets');
    const configure = (secret: string, version: number) =>
      dir.configure(githubDeployment('agent', { name, secrets_version: version }, `  secrets = { OPENAI_API_KEY = "${secret}", DB_PASSWORD = "${secret}-db" }\n`));
    configure(SECRET, 1);
    expect((await dir.init()).code).toBe(0);
    const { outputs, run } = recording();

    const created = await run(dir.apply());
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/secrets\s+= \(write-only attribute\)/);
    const { id, latest_revision_id: firstRevision } = dir.instance('agentplatform_deployment.agent').attributes as { id: string; latest_revision_id: string };
    expect((await lp.client.getDeployment(id)).secrets).toEqual(expect.arrayContaining([{ name: 'OPENAI_API_KEY' }, { name: 'DB_PASSWORD' }]));
    expect((await run(dir.plan())).code).toBe(0);

    // A new value alone is invisible to terraform; with a new secrets_version it is sent and deploys a new revision.
    configure(NEW_SECRET, 2);
    const rotatePlan = await run(dir.plan());
    expect(rotatePlan.code).toBe(2);
    expect(rotatePlan.stdout).toMatch(/secrets_version\s+= 1 -> 2/);
    expect((await run(dir.apply())).code).toBe(0);
    const rotated = dir.instance('agentplatform_deployment.agent').attributes;
    expect(rotated).toMatchObject({ id, secrets: null, secrets_version: 2, revision_status: 'DEPLOYED' });
    expect(rotated.latest_revision_id).not.toBe(firstRevision);

    const everything = [dir.stateText(), readFileSync(logFile, 'utf8'), ...outputs, ...lp.requests].join('\n');
    expect(readFileSync(logFile, 'utf8')).toContain('provider.agentplatform');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(NEW_SECRET);
  });

  it('sends the secrets again when their names on the platform differ from the configuration, with no new secrets_version', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('secret-names');
    const configure = (secrets: string) => dir.configure(githubDeployment('agent', { name, secrets_version: 1 }, `  secrets = { ${secrets} }\n`));
    configure(`OPENAI_API_KEY = "${SECRET}", DB_PASSWORD = "${SECRET}-db"`);
    expect((await dir.init()).code).toBe(0);
    const { outputs, run } = recording();
    expect((await run(dir.apply())).code).toBe(0);
    const { id } = dir.instance('agentplatform_deployment.agent').attributes as { id: string };
    expect(dir.instance('agentplatform_deployment.agent').attributes.secret_names).toEqual(['DB_PASSWORD', 'OPENAI_API_KEY']);
    const secretNames = async () => ((await lp.client.getDeployment(id)).secrets ?? []).map((secret) => secret.name).sort();

    // GIVEN the secrets replaced through the API, WHEN planning, THEN the names show the drift and the apply restores them
    await lp.client.updateDeployment(id, { secrets: [{ name: 'OTHER', value: NEW_SECRET }] });
    const drifted = await run(dir.plan());
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('agentplatform_deployment.agent will be updated in-place');
    expect(drifted.stdout).toMatch(/~ secret_names\s+= \[\s+- "OTHER",\s+\+ "DB_PASSWORD",\s+\+ "OPENAI_API_KEY",\s+\]/);
    expect(drifted.stdout).not.toMatch(/secrets_version\s+=.*->/);
    expect((await run(dir.apply())).code).toBe(0);
    expect(await secretNames()).toEqual(['DB_PASSWORD', 'OPENAI_API_KEY']);
    expect((await run(dir.plan())).code).toBe(0);

    // a name removed from `secrets` is removed on the platform, without a new secrets_version
    configure(`OPENAI_API_KEY = "${SECRET}"`);
    const removed = await run(dir.plan());
    expect(removed.code).toBe(2);
    expect(removed.stdout).toMatch(/- "DB_PASSWORD",/);
    expect((await run(dir.apply())).code).toBe(0);
    expect(await secretNames()).toEqual(['OPENAI_API_KEY']);
    expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ secrets: null, secrets_version: 1, secret_names: ['OPENAI_API_KEY'] });
    expect((await run(dir.plan())).code).toBe(0);

    const everything = [dir.stateText(), ...outputs].join('\n');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(NEW_SECRET);
  });

  it('warns of secrets_version without secrets when planning, and not again when destroying', async () => {
    const dir = lp.terraform();
    dir.configure(githubDeployment('agent', { name: lp.uniqueName('version-only'), secrets_version: 1 }));
    expect((await dir.init()).code).toBe(0);

    const applied = await dir.apply();
    expect(applied.code).toBe(0);
    expect(applied.stdout + applied.stderr).toContain('Warning: secrets_version without secrets');

    const destroyed = await dir.destroy();
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    expect(destroyed.stdout + destroyed.stderr).not.toContain('Warning:');
  });

  it('refuses a secret whose variable is unset when planning, at the secret, and destroys all the same', async () => {
    const dir = lp.terraform();
    const variable = 'variable "maybe" {\n  type      = string\n  default   = null\n  sensitive = true\n  ephemeral = true\n}\n';
    dir.configure(variable + githubDeployment('agent', { name: lp.uniqueName('unset'), secrets_version: 1 }, '  secrets = { OPENAI_API_KEY = var.maybe, OTHER = "set" }\n'));
    expect((await dir.init()).code).toBe(0);

    const planned = await dir.plan();
    expect(planned.code).toBe(1);
    expect(diagnosticAt(planned.stderr, 'Invalid secrets["OPENAI_API_KEY"]', 'resource "agentplatform_deployment" "agent"', 'secrets')).toBe(true);
    expect(planned.stderr.replace(/\s+/g, ' ')).toContain('is null: give it a value or leave it out (is its variable set?)');

    expect((await dir.apply('-var', `maybe=${SECRET}`)).code).toBe(0);
    const destroyed = await dir.destroy();
    expect(destroyed.stderr).toBe('');
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
  });

  it('plans a docker deployment without the github-only attributes: they stay null, nothing to learn after apply', async () => {
    const dir = lp.terraform();
    const docker = (maxScale: number) =>
      `resource "agentplatform_deployment" "agent" {\n  name      = "${lp.uniqueName('docker')}"\n  source    = "external_docker"\n` +
      `  image_uri = "registry.example.com/agent:1"\n  resource_spec = { max_scale = ${maxScale} }\n}\n`;
    const config = docker(2);
    dir.configure(config);
    expect((await dir.init()).code).toBe(0);
    const created = await dir.plan();
    expect(created.stdout).not.toMatch(/repo_ref|graph_config_path|repo_commit_sha/);
    expect((await dir.apply()).code).toBe(0);
    dir.configure(config.replace('max_scale = 2', 'max_scale = 3'));
    const updated = await dir.plan();
    expect(updated.stdout).toContain('will be updated in-place');
    expect(updated.stdout).not.toMatch(/repo_ref|graph_config_path|repo_commit_sha/);
    expect((await dir.apply()).code).toBe(0);
  });

  it('leaves the secrets as they are without `secrets`, and removes them all with `secrets = {}`', async () => {
    const dir = lp.terraform();
    const name = lp.uniqueName('kept-secrets');
    dir.configure(githubDeployment('agent', { name, secrets_version: 1 }, `  secrets = { OPENAI_API_KEY = "${SECRET}" }\n`));
    expect((await dir.init()).code).toBe(0);
    expect((await dir.apply()).code).toBe(0);
    const { id, latest_revision_id: firstRevision } = dir.instance('agentplatform_deployment.agent').attributes as { id: string; latest_revision_id: string };
    const secretNames = async () => ((await lp.client.getDeployment(id)).secrets ?? []).map((secret) => secret.name);
    expect(await secretNames()).toEqual(['OPENAI_API_KEY']);

    // no longer managed here: both left out; the plan brings no new revision, and the apply sends no secrets
    dir.configure(githubDeployment('agent', { name }));
    const unmanaged = await dir.plan();
    expect(unmanaged.stdout).toMatch(/secrets_version\s+= 1 -> null/);
    expect(unmanaged.stdout).not.toMatch(/latest_revision_id/);
    expect((await dir.apply()).code).toBe(0);
    expect(await secretNames()).toEqual(['OPENAI_API_KEY']);
    expect(dir.instance('agentplatform_deployment.agent').attributes.latest_revision_id).toBe(firstRevision);

    // a version with no secrets: a warning, and still nothing sent
    dir.configure(githubDeployment('agent', { name, secrets_version: 2 }));
    const warned = await dir.apply();
    expect(warned.code).toBe(0);
    expect(warned.stdout + warned.stderr).toMatch(/Warning: secrets_version without secrets[\s\S]*secrets = \{\}/);
    expect(await secretNames()).toEqual(['OPENAI_API_KEY']);

    // an empty map, with a new version, removes them all
    dir.configure(githubDeployment('agent', { name, secrets_version: 3 }, '  secrets = {}\n'));
    expect((await dir.apply()).code).toBe(0);
    expect(await secretNames()).toEqual([]);
  });
});
