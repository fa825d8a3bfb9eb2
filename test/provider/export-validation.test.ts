/**
 * What the export resources refuse at plan time, before any API call, each time on the attribute at fault, and only
 * by a rule of the spec: a filter that is not of function-style operators (with its caret), `interval_hours` out of
 * 1–168, both or neither of `end_time` and `interval_hours`, an unknown field in `export_fields`; what the spec sets
 * no rule for is a warning (a schedule's intervals due at once, an end in the platform's future, a region or endpoint
 * of an unusual form, an unknown `format_version`, a field listed twice); the platform's own refusals on their
 * attribute; and the checks' module loads the API's constants without loading zod (the provider's start-up path).
 */
import { spawnSync } from 'node:child_process';
import { validateFilter } from '../../lib/api/filter';
import { FINAL_BULK_EXPORT_STATUSES } from '../../lib/api/schemas/bulk-export';
import { FINAL_EXPORT_STATUSES } from '../../lib/provider/resources/bulk-export/checks';
import { ExportTestPlatform, diagnostic, diagnostics, flat } from './support/export-platform';

const DESTINATION_ID = '0b7e4a6c-3f21-4d8e-9c55-2a1f6e9b3d70';
const SESSION_ID = '3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68';
const BAD_FILTER = 'and(eq(run_type, "llm"), gt(total_tokens 1000))';

function bulkExport(label: string, attributes: string): string {
  return `resource "agentplatform_bulk_export" "${label}" {
  destination_id = "${DESTINATION_ID}"
  session_id     = "${SESSION_ID}"
  start_time     = "2025-01-01T00:00:00Z"
${attributes}
}
`;
}

/** Whether `block` points at `attribute`'s line of resource `label`. */
function pointsAt(block: string | undefined, type: string, label: string, attribute: string): boolean {
  return !!block && block.includes(`in resource "${type}" "${label}":`) && new RegExp(`\\d+:\\s+${attribute}\\s+=`).test(block);
}

describe('export resources: input checks', () => {
  let lp: ExportTestPlatform;
  beforeAll(async () => {
    lp = await ExportTestPlatform.start();
  });
  afterAll(() => lp.close());

  it('reports each invalid argument at plan time, on its attribute, before calling the API', async () => {
    const dir = lp.terraform();
    dir.configure(
      [
        bulkExport('bad_filter', `  end_time = "2025-01-02T00:00:00Z"\n  filter   = ${JSON.stringify(BAD_FILTER)}`),
        bulkExport('zero_hours', '  interval_hours = 0'),
        bulkExport('too_many_hours', '  interval_hours = 169'),
        bulkExport('both', '  end_time       = "2025-01-02T00:00:00Z"\n  interval_hours = 24'),
        bulkExport('neither', ''),
        bulkExport('unknown_field', '  end_time      = "2025-01-02T00:00:00Z"\n  export_fields = ["id", "run_typ", "total_tokens"]'),
        bulkExport('backwards', '  end_time = "2024-12-31T00:00:00Z"'),
        `resource "agentplatform_export_destination" "version_only" {
  display_name        = "x"
  bucket_name         = "b"
  credentials_version = 1
}
`,
        `resource "agentplatform_export_destination" "password_in_url" {
  display_name = "x"
  bucket_name  = "b"
  endpoint_url = "https://minio:minio-password@s3.example.com"
}
`,
        // refused however malformed the rest of the URL (it used to pass as a mere warning, quoting the password)
        `resource "agentplatform_export_destination" "password_in_spaced_url" {
  display_name = "x"
  bucket_name  = "b"
  endpoint_url = "https://minio:minio-password@s3.example.com/a b"
}
`,
      ].join('\n'),
    );
    expect((await dir.init()).code).toBe(0);
    const before = lp.requests.length;

    const { code, stderr } = await dir.plan();

    expect(code).toBe(1);
    expect(lp.requests.length).toBe(before);
    const type = 'agentplatform_bulk_export';

    const filter = diagnostic(stderr, 'Invalid filter');
    expect(pointsAt(filter, type, 'bad_filter', 'filter')).toBe(true);
    // the platform parser's own message: the position, and a caret under the offending token
    const parsed = validateFilter(BAD_FILTER);
    expect(parsed.ok).toBe(false);
    expect(filter).toContain((parsed as { error: Error }).error.message);
    const lines = filter!.split('\n');
    const shown = lines.findIndex((line) => line.trim() === BAD_FILTER);
    expect(lines[shown + 1]!.indexOf('^')).toBe(lines[shown]!.indexOf('1000'));

    const hours = diagnostics(stderr, 'Invalid interval_hours');
    const zero = hours.find((b) => b.includes('"zero_hours"'));
    expect(pointsAt(zero, type, 'zero_hours', 'interval_hours')).toBe(true);
    expect(zero).toContain('must be at least 1; got 0.');
    const tooMany = hours.find((b) => b.includes('"too_many_hours"'));
    expect(pointsAt(tooMany, type, 'too_many_hours', 'interval_hours')).toBe(true);
    expect(tooMany).toContain('must be at most 168; got 169.');

    expect(pointsAt(diagnostic(stderr, 'Conflicting end_time and interval_hours'), type, 'both', 'end_time')).toBe(true);
    const neither = diagnostic(stderr, 'Missing end_time or interval_hours');
    expect(neither).toContain(`in resource "${type}" "neither":`);
    expect(flat(neither)).toContain('Set `end_time` for a one-off export of the range, or `interval_hours` for a scheduled export');

    const field = diagnostic(stderr, 'Invalid export_fields[1]');
    expect(pointsAt(field, type, 'unknown_field', 'export_fields')).toBe(true);
    expect(flat(field)).toContain('"run_typ" is not an exportable field; did you mean "run_type"?');

    expect(pointsAt(diagnostic(stderr, 'Invalid end_time'), type, 'backwards', 'end_time')).toBe(true);
    expect(pointsAt(diagnostic(stderr, 'credentials_version without credentials'), 'agentplatform_export_destination', 'version_only', 'credentials_version')).toBe(true);
    const userInfo = diagnostic(stderr, 'Invalid endpoint_url');
    expect(pointsAt(userInfo, 'agentplatform_export_destination', 'password_in_url', 'endpoint_url')).toBe(true);
    expect(flat(userInfo)).toContain('must not carry a user name or password: set the keys in `credentials`');
    const endpointErrors = stderr.split(/\n(?=│? ?Error: )/).filter((b) => b.includes('Error: Invalid endpoint_url'));
    expect(endpointErrors.map((b) => /"(password_in_\w+)"/.exec(b)?.[1]).sort()).toEqual(['password_in_spaced_url', 'password_in_url']);
  });

  it('plans a schedule with thousands of intervals due at once, warning how many (the platform queues them)', async () => {
    const dir = lp.terraform();
    dir.configure(bulkExport('far_back', '  interval_hours = 1'));
    expect((await dir.init()).code).toBe(0);

    const { code, stdout, stderr } = await dir.plan();

    expect([code, stderr]).toEqual([2, '']);
    const warning = diagnostic(stdout, 'Scheduled export starts in the past');
    expect(pointsAt(warning, 'agentplatform_bulk_export', 'far_back', 'start_time')).toBe(true);
    const due = Math.floor((Date.now() - 600_000 - Date.parse('2025-01-01T00:00:00Z')) / 3_600_000);
    const said = Number(/is (\d+) interval\(s\) of 1h in the past: \1 interval\(s\) are due at once/.exec(flat(warning))?.[1]);
    expect(said).toBeGreaterThan(1000);
    expect(Math.abs(said - due)).toBeLessThanOrEqual(1);
    expect(flat(warning)).toContain('15 exports of a workspace at a time; the others wait in its queue');
  });

  it('warns at plan of a one-off export that ends in the platform\'s future (10 minutes of skew allowed)', async () => {
    const dir = lp.terraform();
    const inADay = new Date(Date.now() + 86_400_000).toISOString();
    const inFiveMinutes = new Date(Date.now() + 300_000).toISOString();
    dir.configure([bulkExport('ahead', `  end_time = "${inADay}"`), bulkExport('nearly_now', `  end_time = "${inFiveMinutes}"`)].join('\n'));
    expect((await dir.init()).code).toBe(0);

    const { code, stdout, stderr } = await dir.plan();

    expect([code, stderr]).toEqual([2, '']);
    const warnings = diagnostics(stdout, 'One-off export ends in the future');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Warning: One-off export ends in the future/);
    expect(pointsAt(warnings[0], 'agentplatform_bulk_export', 'ahead', 'end_time')).toBe(true);
    expect(flat(warnings[0])).toMatch(/is after the platform's time \(.*\): an export writes the runs stored when it runs, and later ones would be missed; the platform may refuse it/);
  });

  it('warns at plan of what the spec sets no rule for, and takes ids the spec types as plain strings as they are', async () => {
    const dir = lp.terraform();
    dir.configure(
      [
        `resource "agentplatform_bulk_export" "odd" {
  destination_id = "dest-7"
  session_id     = "${SESSION_ID}"
  start_time     = "2025-01-01T00:00:00Z"
  end_time       = "2025-01-02T00:00:00Z"
  format_version = "v3"
  export_fields  = ["id", "name", "id"]
  filter         = "and(eq(run_type, \\"llm\\"), similar(agent_name, \\"support\\"))"
}
`,
        `resource "agentplatform_bulk_export" "no_columns" {
  destination_id = "dest-7"
  session_id     = "${SESSION_ID}"
  start_time     = "2025-01-01T00:00:00Z"
  end_time       = "2025-01-02T00:00:00Z"
  export_fields  = []
}
`,
        `resource "agentplatform_export_destination" "empty_key" {
  display_name = ""
  bucket_name  = "b"
  endpoint_url = "https://s3.example.com"
  credentials = {
    access_key_id     = ""
    secret_access_key = "secret"
  }
  credentials_version = 1
}
`,
        `resource "agentplatform_export_destination" "spaced_region" {
  display_name = "x"
  bucket_name  = "b"
  region       = "eu west 1"
  endpoint_url = "s3.example.com"
}
`,
      ].join('\n'),
    );
    expect((await dir.init()).code).toBe(0);

    const { code, stdout, stderr } = await dir.plan();

    expect([code, stderr]).toEqual([2, '']);
    const version = diagnostic(stdout, 'Unknown format_version');
    expect(pointsAt(version, 'agentplatform_bulk_export', 'odd', 'format_version')).toBe(true);
    expect(flat(version)).toContain('"v3" is not a format version the provider knows (v1, v2_beta): it is sent as it is, and the platform may refuse it.');
    // a filter of function-style operators is sent, whatever operators and fields it names
    const filter = diagnostic(stdout, 'Filter not known to the provider');
    expect(pointsAt(filter, 'agentplatform_bulk_export', 'odd', 'filter')).toBe(true);
    expect(flat(filter)).toContain('unknown operator "similar"');
    expect(flat(filter)).toContain('The filter is sent as it is: the platform judges the operators and fields it names, and may refuse it.');
    expect(flat(diagnostic(stdout, 'Repeated export_fields[2]'))).toContain('"id" is listed twice; the platform may refuse the list.');
    expect(pointsAt(diagnostic(stdout, 'Empty export_fields'), 'agentplatform_bulk_export', 'no_columns', 'export_fields')).toBe(true);
    const emptyKey = diagnostic(stdout, 'Empty credentials.access_key_id');
    expect(emptyKey).toContain('in resource "agentplatform_export_destination" "empty_key":');
    expect(flat(emptyKey)).toContain('`credentials.access_key_id` is empty (is its variable set?): the platform may refuse it.');
    expect(pointsAt(diagnostic(stdout, 'Empty display_name'), 'agentplatform_export_destination', 'empty_key', 'display_name')).toBe(true);
    const region = diagnostic(stdout, 'Unusual region');
    expect(pointsAt(region, 'agentplatform_export_destination', 'spaced_region', 'region')).toBe(true);
    expect(flat(region)).toContain('is not a region name such as "eu-west-1" (letters, digits and dashes): the platform may refuse it.');
    expect(pointsAt(diagnostic(stdout, 'Unusual endpoint_url'), 'agentplatform_export_destination', 'spaced_region', 'endpoint_url')).toBe(true);
  });

  it('warns at plan of a setting that does nothing for the kind of export, on its attribute', async () => {
    const dir = lp.terraform();
    dir.configure(
      [
        bulkExport('scheduled_waited', '  interval_hours      = 24\n  wait_for_completion = true'),
        bulkExport('one_off_spawns_none', '  end_time                  = "2025-01-02T00:00:00Z"\n  cancel_spawned_on_destroy = true'),
        bulkExport('one_off_waited', '  end_time            = "2025-01-02T00:00:00Z"\n  wait_for_completion = true'),
      ].join('\n'),
    );
    expect((await dir.init()).code).toBe(0);

    const { code, stdout, stderr } = await dir.plan();

    expect(code).toBe(2);
    const waited = diagnostics(stdout + stderr, 'wait_for_completion is ignored for a scheduled export');
    expect(waited).toHaveLength(1);
    expect(pointsAt(waited[0], 'agentplatform_bulk_export', 'scheduled_waited', 'wait_for_completion')).toBe(true);
    const spawnsNone = diagnostics(stdout + stderr, 'cancel_spawned_on_destroy is ignored for a one-off export');
    expect(spawnsNone).toHaveLength(1);
    expect(pointsAt(spawnsNone[0], 'agentplatform_bulk_export', 'one_off_spawns_none', 'cancel_spawned_on_destroy')).toBe(true);
    expect(flat(spawnsNone[0])).toContain('a one-off export (`end_time`) spawns none');
  });

  it('shows the platform\'s refusal of a create on the attribute it names', async () => {
    const dir = lp.terraform();
    dir.configure(bulkExport('dangling', '  end_time = "2025-01-02T00:00:00Z"'));
    expect((await dir.init()).code).toBe(0);

    const { code, stderr } = await dir.apply();

    expect(code).toBe(1);
    expect(lp.requests.some((line) => line.startsWith('POST /api/v1/bulk-exports 422'))).toBe(true);
    const refusals = diagnostics(stderr, 'The platform refused to create the bulk export');
    const destination = refusals.find((b) => flat(b).includes(`bulk export destination ${DESTINATION_ID} not found`));
    expect(pointsAt(destination, 'agentplatform_bulk_export', 'dangling', 'destination_id')).toBe(true);
    const project = refusals.find((b) => flat(b).includes(`tracing project ${SESSION_ID} not found`));
    expect(pointsAt(project, 'agentplatform_bulk_export', 'dangling', 'session_id')).toBe(true);
    expect(dir.stateText()).not.toContain('agentplatform_bulk_export');
  });

  it('uses the API constants, loaded without zod', () => {
    expect(FINAL_EXPORT_STATUSES).toEqual(FINAL_BULK_EXPORT_STATUSES);
    const loaded = spawnSync(
      process.execPath,
      ['-e', "require('./dist/lib/provider/resources/bulk-export/checks'); console.log(Object.keys(require.cache).filter((k) => k.includes('node_modules')).length)"],
      { encoding: 'utf8' },
    );
    expect(loaded.stderr).toBe('');
    expect(loaded.stdout.trim()).toBe('0');
  });
});

