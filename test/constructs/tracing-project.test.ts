/** `TracingProject` and `TracingProject.fromName` at synth, and the export constructs given either. */
import { Testing, TerraformVariable } from 'cdktf';
import { Duration } from '../../lib/constructs/duration';
import { ExportDestination } from '../../lib/constructs/export-destination';
import { DataAgentplatformTracingProject } from '../../lib/constructs/generated/data-agentplatform-tracing-project';
import { TracingProject as TracingProjectResource } from '../../lib/constructs/generated/tracing-project';
import { ScheduledExport } from '../../lib/constructs/scheduled-export';
import { TracingProject } from '../../lib/constructs/tracing-project';
import * as library from '../../lib/constructs';
import { DESTINATION, PROJECT, oneOff, scheduled } from './support/exports';
import { onlyResource, providerStack, synthesized, violationsOf, warningsOf } from './support/synth';

/** The one key of `blocks` (a resource or data source type's blocks in synthesized JSON). */
const onlyKey = (blocks: Record<string, unknown> | undefined): string => {
  const keys = Object.keys(blocks ?? {});
  if (keys.length !== 1) throw new Error(`expected one block, found ${keys.length}`);
  return keys[0]!;
};

test('TracingProject synthesizes the resource with what was given, and nothing else', () => {
  const stack = providerStack();
  const project = new TracingProject(stack, 'Support', { name: 'support-agent', description: 'prod traces', metadata: { team: 'support' } });
  const bare = new TracingProject(stack, 'Bare', { name: 'bare' });
  const json = Testing.synth(stack);
  expect(json).toHaveResourceWithProperties(TracingProjectResource, { name: 'support-agent', description: 'prod traces', metadata: { team: 'support' } });
  const resources = (JSON.parse(json) as { resource: Record<string, Record<string, Record<string, unknown>>> }).resource.agentplatform_tracing_project!;
  expect(Object.values(resources).find((r) => r.name === 'bare')).toEqual({ name: 'bare' });
  expect(project.projectName).toBe('support-agent');
  expect(bare.projectName).toBe('bare');
  expect(library.TracingProject).toBe(TracingProject);
});

test('TracingProject.fromName reads the project by name through the data source', () => {
  const stack = providerStack();
  const project = TracingProject.fromName(stack, 'Project', 'made-elsewhere');
  expect(Testing.synth(stack)).toHaveDataSourceWithProperties(DataAgentplatformTracingProject, { name: 'made-elsewhere' });
  expect(project.projectName).toBe('made-elsewhere');
});

test('an export given a TracingProject reads the project id from it', () => {
  const stack = providerStack();
  const project = TracingProject.fromName(stack, 'Project', 'made-elsewhere');
  scheduled({ tracingProjectId: undefined, tracingProject: project }, stack);
  const json = synthesized(stack);
  const lookup = onlyKey(json.data?.agentplatform_tracing_project);
  expect(onlyResource(json, 'agentplatform_bulk_export')).toMatchObject({
    session_id: `\${data.agentplatform_tracing_project.${lookup}.id}`,
    destination_id: DESTINATION,
  });
  const created = providerStack();
  const made = new TracingProject(created, 'Made', { name: 'made-here' });
  oneOff({ tracingProjectId: undefined, tracingProject: made }, created);
  const createdJson = synthesized(created);
  const address = onlyKey(createdJson.resource.agentplatform_tracing_project);
  expect(onlyResource(createdJson, 'agentplatform_bulk_export')).toMatchObject({ session_id: `\${agentplatform_tracing_project.${address}.id}` });
});

test('an export needs the tracing project once: by construct or by id', () => {
  const stack = providerStack();
  const project = new TracingProject(stack, 'Made', { name: 'made-here' });
  const destination = ExportDestination.fromDestinationId(stack, 'Destination', DESTINATION);
  expect(violationsOf(() => new ScheduledExport(stack, 'Both', { destination, tracingProject: project, tracingProjectId: PROJECT, start: '2025-01-01T00:00:00Z', every: Duration.hours(24) }))).toEqual([
    { prop: 'tracingProjectId', message: expect.stringContaining('not both') },
  ]);
  expect(violationsOf(() => new ScheduledExport(stack, 'Neither', { destination, start: '2025-01-01T00:00:00Z', every: Duration.hours(24) }))).toEqual([
    { prop: 'tracingProject', message: expect.stringContaining('is required') },
  ]);
});

test('an empty name is a warning; a name given as a token is not judged', () => {
  const stack = providerStack();
  const empty = new TracingProject(stack, 'Empty', { name: ' ' });
  const variable = new TerraformVariable(stack, 'project_name', { type: 'string' });
  const fromVariable = TracingProject.fromName(stack, 'FromVariable', variable.stringValue);
  expect(warningsOf(empty)).toEqual([expect.stringContaining('name: is empty')]);
  expect(warningsOf(fromVariable)).toEqual([]);
});
