import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as constructs from '../../lib/constructs';
import { exportActions, exportPermissionsMarkdown } from '../../lib/constructs/export-permissions';
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

  test('the HCL version of the GitOps example grants the same actions as ExportBucket', () => {
    const action = /Action\s*=\s*\[([^\]]*)\]/.exec(read('examples/hcl/gitops/main.tf'))?.[1];
    expect(action?.split(',').map((a) => a.trim().replace(/"/g, ''))).toEqual(exportActions());
  });
});
