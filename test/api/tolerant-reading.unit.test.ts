/**
 * The response schemas read the platform tolerantly (lib/api/schemas/tolerant.ts): what the spec does not require
 * may be left out, fields they do not know are ignored, and enum values added since are kept as strings; the record
 * schemas, which the local platform answers, stay complete and closed.
 */
import { BulkExport, BulkExportRecord, BulkExportRun, Destination, DestinationRecord } from '../../lib/api/schemas/bulk-export';
import { Deployment, DeploymentRecord, DeploymentsList, Revision, SandboxTemplate } from '../../lib/api/schemas/control-plane';
import { isBeingDeleted, isFailedRevisionStatus } from '../../lib/api/schemas/control-plane-constants';
import { looseNumber } from '../../lib/api/schemas/tolerant';
import { Assistant, AssistantAnswer } from '../../lib/api/schemas/agent-server';
import { CronAnswer } from '../../lib/api/schemas/agent-server-crons';
import { Session, SessionRecord } from '../../lib/api/schemas/tracing';

const ID = '6f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f';
const EXTRA = { added_since: { nested: [1, 2] }, flag: true };

describe('deployments', () => {
  const full = {
    id: ID,
    tenant_id: ID,
    name: 'agent',
    source: 'github',
    source_config: { repo_url: 'https://github.com/acme/agent', deployment_type: 'prod', build_on_push: false, custom_url: null, resource_spec: null },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json', image_uri: null, repo_commit_sha: 'abc' },
    secrets: [{ name: 'TOKEN' }],
    status: 'READY',
    latest_revision_id: ID,
    active_revision_id: ID,
    url: 'https://agent.example.com',
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
  };

  test('only id and latest_revision_id are required', () => {
    expect(Deployment.parse({ id: ID, latest_revision_id: null })).toEqual({ id: ID, latest_revision_id: null });
    expect(Deployment.safeParse({ id: ID }).success).toBe(false);
    expect(Deployment.safeParse({ latest_revision_id: ID }).success).toBe(false);
  });

  test('unknown fields are ignored, at every level', () => {
    const parsed = Deployment.parse({ ...full, ...EXTRA, source_config: { ...full.source_config, ...EXTRA } });
    expect(parsed).not.toHaveProperty('added_since');
    expect(parsed.source_config).not.toHaveProperty('flag');
    expect(parsed.name).toBe('agent');
  });

  test.each([
    ['status', { status: 'AWAITING_FINAL_DELETE' }],
    ['deployment type', { source_config: { deployment_type: 'dev_free_zero' } }],
    ['source', { source: 'gitlab' }],
  ])('an unknown %s is kept as it is', (_what, change) => {
    expect(Deployment.parse({ ...full, ...change })).toMatchObject(change);
  });

  test('a page of deployments needs its resources only (the spec does not show the list)', () => {
    expect(DeploymentsList.parse({ resources: [{ id: ID, latest_revision_id: null }], ...EXTRA })).toEqual({ resources: [{ id: ID, latest_revision_id: null }] });
  });

  test('scaling numbers may come as decimal strings', () => {
    const parsed = Deployment.parse({ ...full, source_config: { resource_spec: { cpu: '0.5', min_scale: '1', max_scale: 3, memory_mb: ' 512 ' } } });
    expect(parsed.source_config?.resource_spec).toEqual({ cpu: 0.5, min_scale: 1, max_scale: 3, memory_mb: 512 });
    expect(Deployment.safeParse({ ...full, source_config: { resource_spec: { cpu: 'half' } } }).success).toBe(false);
  });

  test('the record the local platform answers stays complete and closed', () => {
    expect(DeploymentRecord.parse(full)).toMatchObject({ id: ID });
    expect(DeploymentRecord.safeParse({ ...full, status: 'AWAITING_FINAL_DELETE_X' }).success).toBe(false);
    const { url: _url, ...withoutUrl } = full;
    expect(DeploymentRecord.safeParse(withoutUrl).success).toBe(false);
  });
});

describe('revisions', () => {
  const revision = {
    id: ID,
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:01Z',
    status: 'BUILDING',
    source: 'github',
    source_revision_config: {},
  };

  test('every field the spec marks required stays required', () => {
    for (const field of Object.keys(revision)) {
      const { [field]: _left, ...rest } = revision as Record<string, unknown>;
      expect([field, Revision.safeParse(rest).success]).toEqual([field, false]);
    }
  });

  test('a status added since is kept, and is neither failed nor final to the waits', () => {
    expect(Revision.parse({ ...revision, status: 'BUILDING_IMAGE', ...EXTRA }).status).toBe('BUILDING_IMAGE');
    expect(isFailedRevisionStatus('BUILDING_IMAGE')).toBe(false);
    expect(isFailedRevisionStatus('BUILD_FAILED')).toBe(true);
  });
});

test('a deployment is being deleted in AWAITING_DELETE and AWAITING_FINAL_DELETE, not in a status this provider does not know', () => {
  expect(['AWAITING_DELETE', 'AWAITING_FINAL_DELETE', 'SERVING_V2', 'READY', undefined].map(isBeingDeleted)).toEqual([true, true, false, false, false]);
});

test('a sandbox template may leave out any field', () => {
  expect(SandboxTemplate.parse({ name: 'python', ...EXTRA })).toEqual({ name: 'python' });
  expect(SandboxTemplate.parse({})).toEqual({});
});

describe('destinations', () => {
  test('only id is required; an unknown destination type is kept', () => {
    expect(Destination.parse({ id: 'dest-1' })).toEqual({ id: 'dest-1' });
    expect(Destination.parse({ id: 'dest-1', destination_type: 'gcs', config: { bucket_name: 'b', ...EXTRA }, ...EXTRA })).toEqual({
      id: 'dest-1',
      destination_type: 'gcs',
      config: { bucket_name: 'b' },
    });
    expect(Destination.safeParse({ display_name: 'no id' }).success).toBe(false);
  });

  test('the record the local platform answers stays complete', () => {
    expect(DestinationRecord.safeParse({ id: ID }).success).toBe(false);
  });
});

describe('exports and their runs', () => {
  test('only id and status are required; statuses in either spelling, and unknown ones kept', () => {
    expect(BulkExport.parse({ id: 'e', status: 'COMPLETED' })).toEqual({ id: 'e', status: 'Completed' });
    expect(BulkExport.parse({ id: 'e', status: 'Paused', format_version: 'v3', ...EXTRA })).toEqual({ id: 'e', status: 'Paused', format_version: 'v3' });
    expect(BulkExport.safeParse({ id: 'e' }).success).toBe(false);
    expect(BulkExportRecord.safeParse({ id: ID, status: 'Completed' }).success).toBe(false);
  });

  test('interval_hours may come as a decimal string', () => {
    expect(BulkExport.parse({ id: 'e', status: 'Running', interval_hours: '6' }).interval_hours).toBe(6);
  });

  test('a run needs id and status only: retry_number, errors and metadata may be left out', () => {
    expect(BulkExportRun.parse({ id: 'r', status: 'Running', ...EXTRA })).toEqual({ id: 'r', status: 'Running' });
    expect(BulkExportRun.parse({ id: 'r', status: 'Running', retry_number: '2', metadata: { rows_written: '10', ...EXTRA } })).toEqual({
      id: 'r',
      status: 'Running',
      retry_number: 2,
      metadata: { rows_written: 10 },
    });
  });
});

test('a tracing project needs only its id', () => {
  expect(Session.parse({ id: 'project-1', ...EXTRA })).toEqual({ id: 'project-1' });
  expect(SessionRecord.safeParse({ id: ID }).success).toBe(false);
});

test('an assistant and a cron need only their ids; the assistant the local platform answers stays complete', () => {
  expect(AssistantAnswer.parse({ assistant_id: ID, ...EXTRA })).toEqual({ assistant_id: ID });
  expect(AssistantAnswer.parse({ assistant_id: ID, graph_id: null, version: 3 })).toEqual({ assistant_id: ID, graph_id: null, version: 3 });
  expect(Assistant.safeParse({ assistant_id: ID }).success).toBe(false);
  expect(CronAnswer.parse({ cron_id: ID, ...EXTRA })).toEqual({ cron_id: ID });
});

test.each([
  [0.5, 0.5],
  ['0.5', 0.5],
  ['.5', 0.5],
  ['1e3', 1000],
  ['-2', -2],
])('looseNumber reads %j as %j', (input, expected) => {
  expect(looseNumber.parse(input)).toBe(expected);
});

test.each(['', 'half', '0x10', '1,5', 'NaN'])('looseNumber refuses %j', (input) => {
  expect(looseNumber.safeParse(input).success).toBe(false);
});
