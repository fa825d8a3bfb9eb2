import { Testing, TerraformVariable } from 'cdktf';
import { validateFilter } from '../../lib/api/filter';
import { Duration } from '../../lib/constructs/duration';
import { Filter } from '../../lib/constructs/filter';
import { BulkExport as BulkExportResource } from '../../lib/constructs/generated/bulk-export';
import type { ScheduledExportProps } from '../../lib/constructs/scheduled-export';
import { DESTINATION, PROJECT, oneOff, scheduled } from './support/exports';
import { messageOf, onlyResource, providerStack, synthesized, violationsOf, warningsOf } from './support/synth';

describe('ScheduledExport', () => {
  test('synthesizes a scheduled bulk export with typed fields and a built filter', () => {
    const filter = Filter.and(Filter.eq('run_type', 'llm'), Filter.gt('total_tokens', 1000));
    const stack = scheduled({
      start: new Date(Date.UTC(2025, 0, 1)),
      every: Duration.days(1),
      fields: ['id', 'name', 'run_type', 'total_tokens'],
      filter,
      formatVersion: 'v2_beta',
      cancelSpawnedOnDestroy: true,
    });
    expect(Testing.synth(stack)).toHaveResourceWithProperties(BulkExportResource, {
      destination_id: DESTINATION,
      session_id: PROJECT,
      start_time: '2025-01-01T00:00:00.000Z',
      interval_hours: 24,
      export_fields: ['id', 'name', 'run_type', 'total_tokens'],
      filter: 'and(eq(run_type, "llm"), gt(total_tokens, 1000))',
      format_version: 'v2_beta',
      cancel_spawned_on_destroy: true,
    });
    expect(filter.toString()).toBe('and(eq(run_type, "llm"), gt(total_tokens, 1000))');
  });

  test('a raw filter string passes through when the shared parser accepts it', () => {
    expect(Testing.synth(scheduled({ filter: 'has(tags, "prod")' }))).toHaveResourceWithProperties(BulkExportResource, { filter: 'has(tags, "prod")' });
  });

  test.each([
    ['0 hours', Duration.hours(0)],
    ['169 hours', Duration.hours(169)],
    ['8 days', Duration.days(8)],
    ['90 minutes', Duration.minutes(90)],
  ])('every %s is refused at synth', (_, every) => {
    expect(violationsOf(() => scheduled({ every }))).toEqual([{ prop: 'every', message: expect.stringContaining('whole number of hours from 1 to 168') }]);
  });

  test.each([Duration.hours(1), Duration.days(7)])('every %s is accepted', (every) => {
    expect(Testing.synth(scheduled({ every }))).toHaveResourceWithProperties(BulkExportResource, { interval_hours: every.toHours() });
  });

  test('a bad filter string shows the parser\'s own message', () => {
    const text = 'and(eq(run_type, "llm"), gt(total_tokens,))';
    const parser = validateFilter(text);
    if (parser.ok) throw new Error('the filter was expected not to parse');
    const [violation] = violationsOf(() => scheduled({ filter: text }));
    expect(violation).toEqual({ prop: 'filter', message: expect.stringContaining(parser.error.message) });
  });

  test.each([
    ['an empty filter', { filter: ' ' }, 'filter'],
    ['an unknown field', { fields: ['id', 'cost'] as never }, 'fields[1]'],
    ['a start that is not a timestamp', { start: 'yesterday' }, 'start'],
    ['a tracing project that is not a UUID', { tracingProjectId: 'my-project' }, 'tracingProjectId'],
  ])('%s', (_, props, prop) => {
    expect(violationsOf(() => scheduled(props as Partial<ScheduledExportProps>)).map((v) => v.prop)).toEqual([prop]);
  });

  // what the spec does not state: the real platform may take it
  test.each([
    ['a field listed twice', { fields: ['id', 'name', 'id'] as never }, 'fields[2]: "id" is listed twice.'],
    ['no fields', { fields: [] }, 'fields: names no field, so the files would have no column'],
    ['an unknown format', { formatVersion: 'v3' }, 'formatVersion: "v3" is not a format version this library knows (v1, v2_beta).'],
    ['an operator this library does not know', { filter: 'similar(agent_name, "support")' }, 'filter: names what this library does not know'],
  ])('%s is warned of, and synthesized', (_, props, warning) => {
    const stack = scheduled(props as Partial<ScheduledExportProps>);
    expect(warningsOf(stack.node.findChild('Daily'))).toEqual([expect.stringContaining(warning)]);
    expect(Testing.synth(stack)).toHaveResourceWithProperties(BulkExportResource, { interval_hours: 24 });
  });

  test('no format_version is sent when none is set', () => {
    expect(onlyResource(synthesized(scheduled()), 'agentplatform_bulk_export')).not.toHaveProperty('format_version');
  });

  test('every violation at once', () => {
    expect(messageOf(() => scheduled({ every: Duration.hours(200), fields: ['cost'] as never, filter: 'eq(', start: 'soon' }))).toMatch(/^Invalid ScheduledExport "test\/Daily" \(4 problems\)/);
  });

  test('tokens are left to Terraform', () => {
    const stack = providerStack();
    const hours = new TerraformVariable(stack, 'hours', { type: 'number' }).numberValue;
    const start = new TerraformVariable(stack, 'start', { type: 'string' }).stringValue;
    const project = new TerraformVariable(stack, 'project', { type: 'string' }).stringValue;
    scheduled({ every: Duration.hours(hours), start, tracingProjectId: project }, stack);
    expect(Testing.synth(stack)).toHaveResourceWithProperties(BulkExportResource, { interval_hours: '${var.hours}', start_time: '${var.start}', session_id: '${var.project}' });
  });

  test('a token in another unit is converted by a Terraform expression', () => {
    const stack = providerStack();
    const days = new TerraformVariable(stack, 'days', { type: 'number' }).numberValue;
    scheduled({ every: Duration.days(days) }, stack);
    expect(Testing.synth(stack)).toHaveResourceWithProperties(BulkExportResource, { interval_hours: '${(var.days * 24)}' });
    // a time limit in days given by a token is written in hours, a unit Terraform's durations have
    const limited = providerStack();
    const limit = new TerraformVariable(limited, 'limit_days', { type: 'number' }).numberValue;
    oneOff({ waitForCompletion: true, timeout: Duration.days(limit) }, limited);
    expect(Testing.synth(limited)).toHaveResourceWithProperties(BulkExportResource, { timeouts: { create: '${(var.limit_days * 24)}h' } });
  });
});

describe('BulkExport', () => {
  test('synthesizes a one-off export that is waited for', () => {
    const stack = oneOff({ waitForCompletion: true, timeout: Duration.hours(2), fields: ['id', 'name'] });
    expect(Testing.synth(stack)).toHaveResourceWithProperties(BulkExportResource, {
      start_time: '2025-01-01T00:00:00Z',
      end_time: '2025-02-01T00:00:00Z',
      wait_for_completion: true,
      timeouts: { create: '2h' },
      export_fields: ['id', 'name'],
    });
  });

  test.each([
    ['an end before the start', { end: '2024-12-31T00:00:00Z' }, 'end'],
    ['an end equal to the start', { end: new Date('2025-01-01T00:00:00Z') }, 'end'],
    ['an invalid end Date', { end: new Date('not a date') }, 'end'],
    ['a zero timeout', { timeout: Duration.minutes(0), waitForCompletion: true }, 'timeout'],
  ])('%s', (_, props, prop) => {
    expect(violationsOf(() => oneOff(props)).map((v) => v.prop)).toEqual([prop]);
  });
});
