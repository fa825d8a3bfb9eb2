/**
 * The resources' readers of answers (deployment/body.ts, bulk-export/body.ts): what an answer leaves out keeps the
 * planned or prior value, what it says (null included) is taken, and an unknown kind or status is kept as it is.
 */
import { toModel as deploymentModel } from '../../lib/provider/resources/deployment/body';
import type { DeploymentModel } from '../../lib/provider/resources/deployment/schema';
import { toModel as exportModel } from '../../lib/provider/resources/bulk-export/body';
import type { BulkExportModel } from '../../lib/provider/resources/bulk-export/schema';

const ID = '6f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f';

const deployment: DeploymentModel = {
  id: ID,
  name: 'agent',
  source: 'github',
  integration_id: null,
  repo_url: 'https://github.com/acme/agent',
  deployment_type: 'prod',
  repo_ref: 'main',
  graph_config_path: 'langgraph.json',
  image_uri: null,
  build_on_push: false,
  custom_url: 'https://agent.example.com',
  resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.5, memory_mb: 512 },
  secrets: null,
  secrets_version: 1,
  secret_names: ['TOKEN'],
  wait_for_deployed: true,
  timeouts: null,
  latest_revision_id: ID,
  active_revision_id: ID,
  revision_status: 'DEPLOYED',
  repo_commit_sha: 'abc',
  url: 'https://agent.example.com',
  created_at: '2025-01-01T00:00:00Z',
  tenant_id: ID,
  smoke_test: { assistant_id: 'chat', input: '{"messages":[]}', expect_contains: null, timeout: null },
  smoke_test_revision_id: ID,
};

test('a deployment answer of the two fields the spec shows keeps every other value', () => {
  expect(deploymentModel({ id: ID, latest_revision_id: ID }, 'DEPLOYED', deployment)).toEqual(deployment);
});

test('what a deployment answer says is taken, null and unknown kinds included; a partial resource_spec keeps the rest', () => {
  const model = deploymentModel(
    { id: ID, latest_revision_id: ID, url: null, secrets: [], source_config: { deployment_type: 'dev_free', custom_url: null, resource_spec: { cpu: 2 } } },
    'BUILDING_IMAGE',
    deployment,
  );
  expect(model).toMatchObject({
    url: null,
    custom_url: null,
    secret_names: [],
    deployment_type: 'dev_free',
    revision_status: 'BUILDING_IMAGE',
    resource_spec: { min_scale: 1, max_scale: 2, cpu: 2, memory_mb: 512 },
    repo_url: deployment.repo_url,
  });
});

const bulkExport: BulkExportModel = {
  id: ID,
  destination_id: ID,
  session_id: ID,
  start_time: '2025-03-01T00:00:00Z',
  end_time: '2025-03-03T00:00:00Z',
  interval_hours: null,
  filter: 'eq(run_type, "llm")',
  export_fields: ['id', 'name'],
  format_version: 'v1',
  wait_for_completion: true,
  cancel_spawned_on_destroy: false,
  timeouts: null,
  status: 'Running',
  created_at: '2025-03-04T00:00:00Z',
  finished_at: null,
  tenant_id: ID,
};

test('an export answer of id and status keeps every other value, and an unknown status as it is', () => {
  expect(exportModel({ id: ID, status: 'Exporting' }, bulkExport)).toEqual({ ...bulkExport, status: 'Exporting' });
});

test('what an export answer says is taken, null included', () => {
  expect(exportModel({ id: ID, status: 'Completed', finished_at: '2025-03-05T00:00:00Z', filter: null, format_version: 'v3' }, bulkExport)).toMatchObject({
    status: 'Completed',
    finished_at: '2025-03-05T00:00:00Z',
    filter: null,
    format_version: 'v3',
  });
});
