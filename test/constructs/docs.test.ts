import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as constructs from '../../lib/constructs';
import { exportPermissionsMarkdown, exportPolicyDocument } from '../../lib/constructs/export-permissions';
import { packageRoot } from '../../lib/provider/constants';

const read = (path: string): string => readFileSync(join(packageRoot(), path), 'utf8');

describe('documentation', () => {
  const guide = read('docs/constructs.md');

  test('docs/constructs.md shows the permissions table the policy is made from', () => {
    expect(guide).toContain(exportPermissionsMarkdown());
  });

  test.each(['AgentPlatformProvider', 'Deployment', 'ExportBucket', 'ExportDestination', 'ScheduledExport', 'BulkExport', 'DeploymentRevisions', 'SandboxTemplates'])(
    '%s has its own section',
    (name) => {
      expect(typeof (constructs as Record<string, unknown>)[name]).toBe('function');
      expect(guide).toMatch(new RegExp(`^## ${name}$`, 'm'));
    },
  );

  test('the HCL version of the GitOps example grants the same actions as ExportBucket, on the same keys', () => {
    const hcl = read('examples/hcl/gitops/main.tf');
    const list = (text: string) => text.split(',').map((a) => a.trim().replace(/"/g, ''));
    const actions = [...hcl.matchAll(/Action\s*=\s*\[([^\]]*)\]/g)].map((m) => list(m[1]!));
    const resources = [...hcl.matchAll(/Resource\s*=\s*\[([^\]]*)\]/g)].map((m) => list(m[1]!));
    const objects = '${aws_s3_bucket.traces.arn}/${local.export_prefix}/*';
    const document = exportPolicyDocument(objects) as { Statement: { Action: string[]; Resource: string[] }[] };
    expect(actions).toEqual(document.Statement.map((statement) => statement.Action));
    expect(resources).toEqual(document.Statement.map((statement) => statement.Resource));
  });
});
