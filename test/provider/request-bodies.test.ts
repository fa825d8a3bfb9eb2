/**
 * What the resources send when the user sets nothing: the create bodies carry only what the configuration sets (and
 * what the spec requires: a destination's `prefix`), so the platform applies its own defaults; an update sends no
 * value of an argument the configuration leaves out.
 */
import type { DeploymentModel } from '../../lib/provider/resources/deployment/schema';
import { createBody as deploymentBody, patchOf } from '../../lib/provider/resources/deployment/body';
import type { BulkExportModel } from '../../lib/provider/resources/bulk-export/schema';
import { createBody as exportBody } from '../../lib/provider/resources/bulk-export/body';
import { createBody as destinationBody } from '../../lib/provider/resources/export-destination/body';
import type { ExportDestinationModel } from '../../lib/provider/resources/export-destination/schema';

/** A planned deployment of the fewest arguments: what is left out is null, as in the plan of a create. */
const deployment = (extra: Partial<DeploymentModel> = {}): DeploymentModel =>
  ({
    id: null,
    name: 'agent',
    source: 'github',
    integration_id: null,
    repo_url: 'https://github.com/acme/agent',
    deployment_type: null,
    repo_ref: null,
    graph_config_path: null,
    image_uri: null,
    build_on_push: null,
    custom_url: null,
    resource_spec: null,
    secrets: null,
    secrets_version: null,
    secret_names: null,
    wait_for_deployed: true,
    timeouts: null,
    latest_revision_id: null,
    active_revision_id: null,
    revision_status: null,
    repo_commit_sha: null,
    url: null,
    created_at: null,
    tenant_id: null,
    ...extra,
  }) as DeploymentModel;

test('a deployment is created without deployment_type or build_on_push unless they are set', () => {
  expect(deploymentBody(deployment(), null)).toEqual({ name: 'agent', source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });
  const set = deploymentBody(deployment({ deployment_type: 'dev_free', build_on_push: false }), null);
  expect(set.source_config).toEqual({ repo_url: 'https://github.com/acme/agent', deployment_type: 'dev_free', build_on_push: false });
});

test('an update sends no build_on_push that the configuration leaves out', () => {
  const prior = deployment({ id: 'd', deployment_type: 'prod', build_on_push: false, repo_ref: 'main' });
  expect(patchOf(prior, deployment({ ...prior, build_on_push: null, repo_ref: 'release' }), null)).toEqual({ source_revision_config: { repo_ref: 'release' } });
  expect(patchOf(prior, deployment({ ...prior, build_on_push: true }), null)).toEqual({ source_config: { build_on_push: true } });
});

test('an export is created without format_version unless it is set', () => {
  const planned = {
    destination_id: 'dest-1',
    session_id: '3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68',
    start_time: '2025-01-01T00:00:00Z',
    end_time: null,
    interval_hours: 6,
    filter: null,
    export_fields: null,
    format_version: null,
  } as unknown as BulkExportModel;
  expect(exportBody(planned)).toEqual({
    bulk_export_destination_id: 'dest-1',
    session_id: '3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68',
    start_time: '2025-01-01T00:00:00Z',
    interval_hours: 6,
  });
  expect(exportBody({ ...planned, format_version: 'v2_beta' }).format_version).toBe('v2_beta');
});

test('a destination is created without include_bucket_in_prefix unless it is set, and with its prefix', () => {
  const planned = {
    display_name: 'archive',
    bucket_name: 'traces',
    prefix: '',
    region: null,
    endpoint_url: 'https://s3.example.com',
    include_bucket_in_prefix: null,
  } as unknown as ExportDestinationModel;
  expect(destinationBody(planned, null)).toEqual({
    destination_type: 's3',
    display_name: 'archive',
    config: { bucket_name: 'traces', prefix: '', endpoint_url: 'https://s3.example.com' },
  });
  expect(destinationBody({ ...planned, include_bucket_in_prefix: true }, null).config.include_bucket_in_prefix).toBe(true);
});
