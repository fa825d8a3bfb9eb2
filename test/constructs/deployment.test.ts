import { Testing, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import { Deployment, DeploymentSource, type DeploymentProps } from '../../lib/constructs/deployment';
import { Duration } from '../../lib/constructs/duration';
import { Deployment as DeploymentResource } from '../../lib/constructs/generated/deployment';
import { messageOf, onlyResource, providerStack, synthesized, violationsOf, warningsOf } from './support/synth';

const github = DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main', buildOnPush: true });

function deploy(props: Partial<DeploymentProps>, stack: TerraformStack = providerStack()): Deployment {
  return new Deployment(stack, 'Agent', { name: 'support-agent', source: github, ...props });
}

describe('Deployment', () => {
  test('a GitHub deployment synthesizes every source attribute', () => {
    const stack = providerStack();
    deploy({ source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', integrationId: 'int-1', ref: 'release', graphConfigPath: 'graphs.json', buildOnPush: true }) }, stack);
    expect(Testing.synth(stack)).toHaveResourceWithProperties(DeploymentResource, {
      name: 'support-agent',
      source: 'github',
      repo_url: 'https://github.com/acme/a',
      integration_id: 'int-1',
      repo_ref: 'release',
      graph_config_path: 'graphs.json',
      build_on_push: true,
    });
  });

  test('an image deployment synthesizes image_uri and no GitHub attributes', () => {
    const stack = providerStack();
    deploy({ source: DeploymentSource.image('registry.example.com/agent:1.2.0') }, stack);
    const resource = onlyResource(synthesized(stack), 'agentplatform_deployment');
    expect(resource).toMatchObject({ source: 'external_docker', image_uri: 'registry.example.com/agent:1.2.0' });
    expect(Object.keys(resource)).not.toEqual(expect.arrayContaining(['repo_url']));
  });

  test('resources, timeouts, deployment type and wait flag map to the resource', () => {
    const stack = providerStack();
    deploy(
      {
        deploymentType: 'dev',
        resources: { minScale: 1, maxScale: 3, cpu: 0.5, memoryMb: 1024 },
        timeouts: { create: Duration.minutes(45), delete: Duration.seconds(90) },
        waitForDeployed: false,
        customUrl: 'https://agent.example.com',
      },
      stack,
    );
    expect(Testing.synth(stack)).toHaveResourceWithProperties(DeploymentResource, {
      deployment_type: 'dev',
      resource_spec: { min_scale: 1, max_scale: 3, cpu: 0.5, memory_mb: 1024 },
      timeouts: { create: '45m', delete: '90s' },
      wait_for_deployed: false,
      custom_url: 'https://agent.example.com',
    });
  });

  test('secrets are references to sensitive variables, never their values', () => {
    const stack = providerStack();
    const key = new TerraformVariable(stack, 'openai_api_key', { type: 'string', sensitive: true });
    deploy({ secrets: { OPENAI_API_KEY: key.stringValue }, secretsVersion: 2 }, stack);
    expect(Testing.synth(stack)).toHaveResourceWithProperties(DeploymentResource, {
      secrets: { OPENAI_API_KEY: '${var.openai_api_key}' },
      secrets_version: 2,
    });
  });

  test('secrets without secretsVersion synthesize with a warning', () => {
    const stack = providerStack();
    const key = new TerraformVariable(stack, 'key', { type: 'string', sensitive: true });
    const agent = deploy({ secrets: { KEY: key.stringValue } }, stack);
    expect(warningsOf(agent)).toEqual([expect.stringContaining('set secretsVersion')]);
  });

  test('exposes deploymentId, latestRevisionId, activeRevisionId and url as references', () => {
    const stack = providerStack();
    const agent = deploy({}, stack);
    new TerraformOutput(stack, 'id', { value: agent.deploymentId });
    new TerraformOutput(stack, 'revision', { value: agent.latestRevisionId });
    new TerraformOutput(stack, 'serving', { value: agent.activeRevisionId });
    new TerraformOutput(stack, 'url', { value: agent.url });
    const outputs = (JSON.parse(Testing.synth(stack)) as { output: Record<string, { value: string }> }).output;
    const address = Object.keys(synthesized(stack).resource.agentplatform_deployment!)[0];
    expect(outputs.id!.value).toBe(`\${agentplatform_deployment.${address}.id}`);
    expect(outputs.revision!.value).toBe(`\${agentplatform_deployment.${address}.latest_revision_id}`);
    expect(outputs.serving!.value).toBe(`\${agentplatform_deployment.${address}.active_revision_id}`);
    expect(outputs.url!.value).toBe(`\${agentplatform_deployment.${address}.url}`);
  });

  test('fromDeploymentId imports a deployment by id', () => {
    const stack = providerStack();
    expect(Deployment.fromDeploymentId(stack, 'Existing', '0b6f5a4e-0000-4000-8000-000000000001').deploymentId).toBe(
      '0b6f5a4e-0000-4000-8000-000000000001',
    );
  });

  describe('validation', () => {
    test.each([
      [
        'build on push with a tag ref',
        { source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', ref: 'refs/tags/v1.0.0', buildOnPush: true }) },
        'source.buildOnPush',
        'a tag never moves',
      ],
      ['an empty image', { source: DeploymentSource.image(' ') }, 'source.imageUri', 'must name a container image'],
      ['memory that is no number', { resources: { memoryMb: '512' as unknown as number } }, 'resources.memoryMb', 'must be a number; got string "512".'],
      [
        'a repository URL with a token in it',
        { source: DeploymentSource.github({ repoUrl: 'https://x-access-token:ghs_secret@github.com/acme/a' }) },
        'source.repoUrl',
        'must not carry a user name or password',
      ],
      [
        'a token in a repository URL that is not written in full',
        { source: DeploymentSource.github({ repoUrl: 'https://x-access-token:ghs_secret@github.com/acme/my agent' }) },
        'source.repoUrl',
        'must not carry a user name or password',
      ],
      ['a password in a custom URL with a backslash', { customUrl: 'https://user:pw_secret@agent.example.com\\x' }, 'customUrl', 'must not carry a user name or password'],
      ['a zero create timeout', { timeouts: { create: Duration.minutes(0) } }, 'timeouts.create', 'longer than zero'],
      ['a timeout that is no number', { timeouts: { update: Duration.minutes(NaN) } }, 'timeouts.update', 'longer than zero'],
      ['a fractional secrets version', { secretsVersion: -3.5 }, 'secretsVersion', 'whole number of at least 1'],
    ] as const)('%s', (_, props, prop, message) => {
      const violations = violationsOf(() => deploy(props as Partial<DeploymentProps>));
      expect(violations).toEqual([{ prop, message: expect.stringContaining(message) }]);
      expect(JSON.stringify(violations)).not.toMatch(/ghs_secret|pw_secret/);
    });

    // the local platform's rules, which the spec does not state: the real platform may take what breaks them
    test.each([
      ['a name starting with a dash', { name: '-agent' }, 'name: "-agent" does not start with a letter or digit'],
      ['a name of 64 characters', { name: 'a'.repeat(64) }, 'name: has 64 characters, more than 63.'],
      ['a repository that is not a URL', { source: DeploymentSource.github({ repoUrl: 'github.com/acme/a' }) }, 'source.repoUrl: "github.com/acme/a" is not an absolute http:// or https:// URL'],
      // a URL parser mends it; the local platform refuses it
      ['a repository URL with a space', { source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/my agent' }) }, 'source.repoUrl: "https://github.com/acme/my agent" is not'],
      ['min scale above max scale', { resources: { minScale: 4, maxScale: 2 } }, 'resources.minScale: (4) is more than resources.maxScale (2).'],
      ['a negative min scale', { resources: { minScale: -1 } }, 'resources.minScale: (-1) is less than 0.'],
      ['a max scale of 0', { resources: { maxScale: 0 } }, 'resources.maxScale: (0) is less than 1.'],
      ['fractional memory', { resources: { memoryMb: 512.5 } }, 'resources.memoryMb: (512.5) is not a whole number.'],
      ['a fractional min scale', { resources: { minScale: 0.5 } }, 'resources.minScale: (0.5) is not a whole number.'],
      // no scheme: not refused, and the warning quotes no user name or password
      ['a repository with a token and no scheme', { source: DeploymentSource.github({ repoUrl: 'x-access-token:ghs_secret@github.com/acme/a' }) }, 'source.repoUrl: "x-access-token:***@github.com/acme/a" is not'],
      ['zero CPU', { resources: { cpu: 0 } }, 'resources.cpu: (0) is not more than 0.'],
      ['a custom URL that is not a URL', { customUrl: 'agent.example.com' }, 'customUrl: "agent.example.com" is not an absolute http:// or https:// URL'],
      ['an empty ref (an unset variable)', { source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', ref: '' }) }, 'source.ref: is empty (is its variable set?).'],
      ['an empty integration id', { source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', integrationId: ' ' }) }, 'source.integrationId: is empty'],
      ['an empty graph config path', { source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', graphConfigPath: '' }) }, 'source.graphConfigPath: is empty'],
    ] as const)('%s is warned of, and synthesized', (_, props, warning) => {
      const agent = deploy(props as Partial<DeploymentProps>);
      expect(warningsOf(agent)).toEqual([expect.stringContaining(warning)]);
      expect(warningsOf(agent)[0]).toMatch(/The platform may refuse it\.$/);
      expect(Object.keys(synthesized(agent.node.scope as TerraformStack).resource.agentplatform_deployment)).toHaveLength(1);
    });

    test('a secret with a literal value is refused; a bad name or a name too long is warned of', () => {
      const stack = providerStack();
      const value = new TerraformVariable(stack, 'v', { type: 'string', sensitive: true }).stringValue;
      const long = 'L'.repeat(129);
      expect(violationsOf(() => deploy({ secrets: { PLAIN: 'hunter2', '1BAD': value, [long]: value, ['N'.repeat(128)]: value } }, stack))).toEqual([
        { prop: 'secrets.PLAIN', message: expect.stringContaining('literal string') },
      ]);
      const agent = deploy({ secrets: { '1BAD': value, [long]: value, ['N'.repeat(128)]: value } }, providerStack());
      expect(warningsOf(agent).filter((w) => w.startsWith('secrets.'))).toEqual([
        expect.stringContaining('secrets.1BAD: "1BAD" is not an environment variable name'),
        expect.stringContaining(`secrets.${long}: secret name "${long}" has 129 characters, more than 128.`),
      ]);
    });

    test('any kind of deployment is taken and sent; none is sent when it is left out', () => {
      const stack = providerStack();
      deploy({ deploymentType: 'dev_free_zero' }, stack);
      expect(Testing.synth(stack)).toHaveResourceWithProperties(DeploymentResource, { deployment_type: 'dev_free_zero' });
      const plain = onlyResource(synthesized(deploy({ source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a' }) }).node.scope as TerraformStack), 'agentplatform_deployment');
      expect(plain).not.toHaveProperty('deployment_type');
      expect(plain).not.toHaveProperty('build_on_push');
    });

    test('every violation is reported at once, in one message that never shows a secret value', () => {
      const message = messageOf(() =>
        deploy({
          name: '_bad',
          customUrl: 'https://agent:url-password@agent.example.com',
          source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', ref: 'refs/tags/v2', buildOnPush: true }),
          timeouts: { create: Duration.minutes(0) },
          secrets: { TOKEN: 'hunter2' },
        }),
      );
      expect(message).toMatch(/^Invalid Deployment "test\/Agent" \(4 problems\):\n/);
      for (const prop of ['customUrl', 'source.buildOnPush', 'timeouts.create', 'secrets.TOKEN']) expect(message).toContain(`  - ${prop}: `);
      expect(message).not.toContain('hunter2');
      expect(message).not.toContain('url-password');
    });

    test('tokens are not checked at synth: Terraform knows them only at apply', () => {
      const stack = providerStack();
      const name = new TerraformVariable(stack, 'name', { type: 'string' }).stringValue;
      const ref = new TerraformVariable(stack, 'ref', { type: 'string' }).stringValue;
      const min = new TerraformVariable(stack, 'min', { type: 'number' }).numberValue;
      deploy({ name, source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/a', ref, buildOnPush: true }), resources: { minScale: min, maxScale: 1 } }, stack);
      expect(Testing.synth(stack)).toHaveResourceWithProperties(DeploymentResource, { name: '${var.name}', repo_ref: '${var.ref}', resource_spec: { min_scale: '${var.min}', max_scale: 1 } });
    });
  });
});
