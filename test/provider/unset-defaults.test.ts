/**
 * Arguments whose value the platform chooses when they are left out (`deployment_type`, `build_on_push`,
 * `format_version`): a state that holds the value an older provider sent by default (`"prod"`, `false`, `"v1"`), or
 * that a configuration set and no longer does, plans no change and no replacement, through the real terraform.
 */
import { TestPlatform, githubDeployment } from './support/deployment-platform';
import { destinationOn, startTestS3 } from '../tracing/support/s3';
import { ExportTestPlatform, bulkExport } from './support/export-platform';

describe('a value left out of the configuration keeps what the state holds', () => {
  it('deployment_type and build_on_push as an older provider sent them by default', async () => {
    const lp = await TestPlatform.start();
    try {
      const dir = lp.terraform();
      const name = lp.uniqueName('defaults');
      dir.configure(githubDeployment('agent', { name, deployment_type: 'prod', build_on_push: false }));
      expect((await dir.init()).code).toBe(0);
      expect((await dir.apply()).code).toBe(0);
      expect(dir.instance('agentplatform_deployment.agent').attributes).toMatchObject({ deployment_type: 'prod', build_on_push: false });

      dir.configure(githubDeployment('agent', { name }));
      const planned = await dir.plan();
      expect([planned.code, planned.stderr]).toEqual([0, '']);
      expect(planned.stdout).toContain('No changes.');
      expect((await dir.destroy()).code).toBe(0);
    } finally {
      await lp.close();
    }
  });

  it('format_version as an older provider sent it by default', async () => {
    const lp = await ExportTestPlatform.start();
    const s3 = await startTestS3(['exports']);
    try {
      const sessionId = await lp.seedRuns('defaults', ['2025-01-01T12:00:00Z']);
      const destinationId = (await lp.client.createDestination(destinationOn(s3, 'defaults'))).id;
      const attributes = { destination_id: destinationId, session_id: sessionId, start_time: '2025-01-01T00:00:00Z', end_time: '2025-01-02T00:00:00Z' };
      const dir = lp.terraform();
      dir.configure(bulkExport('january', { ...attributes, format_version: 'v1' }));
      expect((await dir.init()).code).toBe(0);
      expect((await dir.apply()).code).toBe(0);
      expect(dir.instance('agentplatform_bulk_export.january').attributes.format_version).toBe('v1');

      dir.configure(bulkExport('january', attributes));
      const planned = await dir.plan();
      expect([planned.code, planned.stderr]).toEqual([0, '']);
      expect(planned.stdout).toContain('No changes.');
      expect((await dir.destroy()).code).toBe(0);
    } finally {
      await lp.close();
      await s3.close();
    }
  });
});
