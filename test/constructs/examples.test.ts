/**
 * The example apps as cdktf runs them: the `app` command of each cdktf.json, in a scratch output directory. The
 * GitOps example needs AWS, which cannot be reached here, so it is checked by what it synthesizes.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../lib/provider/constants';

type Stack = { resource: Record<string, Record<string, Record<string, unknown>>>; variable: Record<string, Record<string, unknown>> };

/** Runs the `app` of the cdktf.json in `projectDir` (as cdktf does: a shell command, in that directory). */
function synthApp(projectDir: string, stackName: string): { stack: Stack; stackDir: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'cdktf-example-'));
  const { app } = JSON.parse(readFileSync(join(projectDir, 'cdktf.json'), 'utf8')) as { app: string };
  execSync(app, { cwd: projectDir, env: { ...process.env, CDKTF_OUTDIR: outdir }, stdio: 'pipe' });
  const stackDir = join(outdir, 'stacks', stackName);
  return { stack: JSON.parse(readFileSync(join(stackDir, 'cdk.tf.json'), 'utf8')) as Stack, stackDir };
}

const only = (stack: Stack, type: string): Record<string, unknown> => {
  const all = Object.values(stack.resource[type] ?? {});
  if (all.length !== 1) throw new Error(`expected one ${type}, found ${all.length}`);
  return all[0]!;
};

describe('examples', () => {
  const created: string[] = [];
  afterAll(() => created.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test('the root cdktf.json synthesizes the GitOps example: GitHub deployment, export bucket, destination, daily export', () => {
    const { stack, stackDir } = synthApp(packageRoot(), 'gitops');
    created.push(join(stackDir, '..', '..'));
    expect(only(stack, 'agentplatform_deployment')).toMatchObject({ source: 'github', repo_url: 'https://github.com/acme/support-agent', build_on_push: true, secrets: { OPENAI_API_KEY: '${var.openai_api_key}' } });
    expect(stack.variable.openai_api_key).toMatchObject({ sensitive: true, ephemeral: true });
    for (const type of ['aws_s3_bucket', 'aws_s3_bucket_public_access_block', 'aws_s3_bucket_server_side_encryption_configuration', 'aws_s3_bucket_ownership_controls', 'aws_s3_bucket_lifecycle_configuration', 'aws_iam_user', 'aws_iam_access_key']) {
      expect(Object.keys(stack.resource[type] ?? {})).toHaveLength(1);
    }
    const policy = JSON.parse(only(stack, 'aws_iam_user_policy').policy as string) as { Statement: Array<{ Resource: string[] }> };
    expect(policy.Statement[0]!.Resource).toEqual([expect.stringMatching(/^\$\{aws_s3_bucket\.\w+\.arn\}\/agent-traces\/\*$/)]);
    expect(only(stack, 'agentplatform_export_destination').credentials).toEqual({
      access_key_id: expect.stringMatching(/^\$\{aws_iam_access_key\.\w+\.id\}$/),
      secret_access_key: expect.stringMatching(/^\$\{aws_iam_access_key\.\w+\.secret\}$/),
    });
    expect(only(stack, 'agentplatform_bulk_export')).toMatchObject({ interval_hours: 24, start_time: '${var.export_start}', filter: 'eq(is_root, true)', cancel_spawned_on_destroy: true });
    expect(existsSync(join(stackDir, '.terraform.lock.hcl'))).toBe(true);
  });

  test('examples/local synthesizes with its own cdktf.json, secrets only as ephemeral variables', () => {
    const { stack, stackDir } = synthApp(join(packageRoot(), 'examples', 'local'), 'local');
    created.push(join(stackDir, '..', '..'));
    expect(only(stack, 'agentplatform_export_destination')).toMatchObject({
      endpoint_url: '${var.s3_endpoint}',
      credentials: { access_key_id: '${var.s3_access_key_id}', secret_access_key: '${var.s3_secret_access_key}' },
    });
    expect(stack.variable.s3_secret_access_key).toMatchObject({ sensitive: true, ephemeral: true });
    expect(existsSync(join(stackDir, 'terraform.d'))).toBe(true);
  });
});
