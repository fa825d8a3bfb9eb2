import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Manifest, Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { Duration } from '../../lib/constructs/duration';
import { messages } from '../../lib/constructs/errors';
import { AgentPlatformProvider } from '../../lib/constructs/provider';
import { AgentplatformProvider } from '../../lib/constructs/generated/provider';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_SOURCE, PROVIDER_VERSION } from '../../lib/provider/constants';
import { ENTRY_FILE, packageHash, terraformPlatform } from '../../lib/install/provider';
import { PROVIDER_ENV } from '../../lib/provider/provider-config';
import { synthesized, violationsOf, warningsOf } from './support/synth';

const newStack = () => new TerraformStack(Testing.app(), 'test');

describe('AgentPlatformProvider', () => {
  test('declares the provider source and exact version in required_providers', () => {
    const stack = newStack();
    new AgentPlatformProvider(stack, 'agentplatform');
    expect(synthesized(stack).terraform.required_providers.agentplatform).toEqual({ source: PROVIDER_SOURCE, version: PROVIDER_VERSION });
  });

  test('maps its props to the provider block', () => {
    const stack = newStack();
    const key = new TerraformVariable(stack, 'api_key', { type: 'string', sensitive: true });
    new AgentPlatformProvider(stack, 'agentplatform', {
      apiKey: key.stringValue,
      tenantId: 'tenant-1',
      controlPlaneUrl: 'http://127.0.0.1:8123',
      tracingUrl: 'http://127.0.0.1:8123',
      requestTimeout: Duration.seconds(45),
      maxRetries: 5,
      alias: 'staging',
    });
    expect(Testing.synth(stack)).toHaveProviderWithProperties(AgentplatformProvider, {
      api_key: '${var.api_key}',
      tenant_id: 'tenant-1',
      control_plane_url: 'http://127.0.0.1:8123',
      tracing_url: 'http://127.0.0.1:8123',
      request_timeout: '45s',
      max_retries: 5,
      alias: 'staging',
    });
  });

  test('a literal API key synthesizes with a warning naming the environment variable', () => {
    const stack = newStack();
    const provider = new AgentPlatformProvider(stack, 'agentplatform', { apiKey: 'lp_literal' });
    expect(warningsOf(provider)).toEqual([expect.stringContaining(PROVIDER_ENV.apiKey)]);
  });

  test('reports every invalid setting at once', () => {
    expect(
      violationsOf(
        () => new AgentPlatformProvider(newStack(), 'agentplatform', { controlPlaneUrl: 'localhost:8123', tracingUrl: 'ftp://x', maxRetries: 21, requestTimeout: Duration.seconds(0) }),
      ).map((v) => v.prop),
    ).toEqual(['controlPlaneUrl', 'tracingUrl', 'maxRetries', 'requestTimeout']);
  });

  test('the messages name the provider\'s real environment variables', () => {
    expect(messages.literalApiKey()).toContain(PROVIDER_ENV.apiKey);
  });

  describe('offline installation at synth', () => {
    const launcherDir = (outdir: string, stackName: string) =>
      join(outdir, 'stacks', stackName, 'terraform.d', 'plugins', ...PROVIDER_ADDRESS.split('/'), PROVIDER_VERSION, terraformPlatform());

    test('writes the launcher into the implied local mirror and a lock file with its hash and version constraint', () => {
      const stack = newStack();
      new AgentPlatformProvider(stack, 'agentplatform');
      const outdir = Testing.fullSynth(stack);
      const launcher = join(launcherDir(outdir, 'test'), `${PROVIDER_EXECUTABLE_PREFIX}_v${PROVIDER_VERSION}`);
      expect(statSync(launcher).mode & 0o111).not.toBe(0);
      expect(readFileSync(join(outdir, 'stacks', 'test', 'terraform.d', ENTRY_FILE), 'utf8')).toMatch(/dist\/lib\/provider\/main\.js\n$/);
      const lock = readFileSync(join(outdir, 'stacks', 'test', '.terraform.lock.hcl'), 'utf8');
      expect(lock).toContain(`provider "${PROVIDER_ADDRESS}" {\n  version = "${PROVIDER_VERSION}"\n  constraints = "${PROVIDER_VERSION}"\n`);
      expect(lock).toContain(`"${packageHash(launcherDir(outdir, 'test'))}"`);
    });

    test('a second synth into the same directory leaves the lock file as it was', () => {
      const stack = newStack();
      new AgentPlatformProvider(stack, 'agentplatform');
      const outdir = Testing.fullSynth(stack);
      const lockPath = join(outdir, 'stacks', 'test', '.terraform.lock.hcl');
      const first = readFileSync(lockPath, 'utf8');
      stack.synthesizer.synthesize({ outdir, manifest: new Manifest('stubbed', outdir, false) });
      expect(readFileSync(lockPath, 'utf8')).toBe(first);
    });

    test('aliased providers in one stack share one installation; installLauncher: false installs nothing', () => {
      const shared = newStack();
      new AgentPlatformProvider(shared, 'a');
      new AgentPlatformProvider(shared, 'b', { alias: 'second' });
      expect(existsSync(launcherDir(Testing.fullSynth(shared), 'test'))).toBe(true);

      const none = newStack();
      new AgentPlatformProvider(none, 'a', { installLauncher: false });
      const outdir = Testing.fullSynth(none);
      expect(existsSync(join(outdir, 'stacks', 'test', 'terraform.d'))).toBe(false);
      expect(existsSync(join(outdir, 'stacks', 'test', '.terraform.lock.hcl'))).toBe(false);
    });
  });
});
