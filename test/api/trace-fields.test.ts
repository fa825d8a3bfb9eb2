import {
  EXPORTABLE_FIELDS,
  EXPORTABLE_FIELD_NAMES,
  ExportableFieldNameSchema,
  TRACE_FIELD_GROUPS,
  TraceRun,
  getExportableField,
  isExportableField,
  parseIsoInstant,
} from '../../lib/api/schemas/trace';

/** The exportable fields table of the platform spec (area B), group title → fields, in the spec's order. */
const SPEC_TABLE: ReadonlyArray<[string, string[]]> = [
  ['Identifiers and hierarchy', ['id', 'tenant_id', 'session_id', 'trace_id', 'parent_run_id', 'parent_run_ids', 'reference_example_id']],
  ['Basic metadata', ['name', 'run_type', 'start_time', 'end_time', 'status', 'is_root', 'dotted_order', 'trace_tier']],
  ['Run data', ['inputs', 'outputs', 'error', 'extra', 'events']],
  ['Tags and feedback', ['tags', 'feedback_stats']],
  ['Token usage and costs', ['total_tokens', 'prompt_tokens', 'completion_tokens', 'total_cost', 'prompt_cost', 'completion_cost', 'first_token_time']],
];

/** Types the spec states or implies: "(list)", "(JSON)", "(UTC)", "(boolean)", "(string)", token counts, costs. */
const SPEC_TYPES: Readonly<Record<string, string>> = {
  parent_run_ids: 'uuid_list',
  tags: 'string_list',
  inputs: 'json',
  outputs: 'json',
  extra: 'json',
  events: 'json',
  feedback_stats: 'json',
  start_time: 'timestamp',
  end_time: 'timestamp',
  first_token_time: 'timestamp',
  is_root: 'boolean',
  dotted_order: 'string',
  error: 'string',
  total_tokens: 'integer',
  prompt_tokens: 'integer',
  completion_tokens: 'integer',
  total_cost: 'float',
  prompt_cost: 'float',
  completion_cost: 'float',
};

const ROOT_ID = '7b0c5a86-2f1e-4d5b-9a43-6c1f0e2d3b4a';

function validRun(): Record<string, unknown> {
  return {
    id: ROOT_ID,
    tenant_id: '0d9c4f7e-8a61-4b1f-b3a2-1e5d6c7b8a90',
    session_id: '3e2f1a0b-4c5d-4e6f-8a9b-0c1d2e3f4a5b',
    trace_id: ROOT_ID,
    parent_run_id: null,
    parent_run_ids: [],
    reference_example_id: null,
    name: 'Agent',
    run_type: 'chain',
    start_time: '2024-05-01T10:00:00.123456Z',
    end_time: '2024-05-01T10:00:02Z',
    status: 'success',
    is_root: true,
    dotted_order: '20240501T100000123456Z7b0c5a86-2f1e-4d5b-9a43-6c1f0e2d3b4a',
    trace_tier: 'longlived',
    inputs: { question: 'hi' },
    outputs: { answer: 'hello' },
    error: null,
    extra: { metadata: { env: 'prod' } },
    events: [{ name: 'start', time: '2024-05-01T10:00:00.123456Z' }],
    tags: ['prod'],
    feedback_stats: { correctness: { n: 1, avg: 1 } },
    total_tokens: 30,
    prompt_tokens: 10,
    completion_tokens: 20,
    total_cost: 0.0003,
    prompt_cost: 0.0001,
    completion_cost: 0.0002,
    first_token_time: '2024-05-01T10:00:00.5Z',
  };
}

describe('exportable fields table', () => {
  it('lists exactly the fields of the spec, in its order and groups', () => {
    const expected = SPEC_TABLE.flatMap(([title, names]) => names.map((name) => ({ name, title })));
    const actual = EXPORTABLE_FIELDS.map((field) => ({ name: field.name, title: TRACE_FIELD_GROUPS[field.group] }));
    expect(actual).toEqual(expected);
    expect(EXPORTABLE_FIELD_NAMES).toEqual(expected.map((entry) => entry.name));
  });

  it('types each field as the spec describes it, and identifiers as uuids', () => {
    for (const [name, type] of Object.entries(SPEC_TYPES)) expect({ name, type: getExportableField(name)?.type }).toEqual({ name, type });
    for (const name of ['id', 'tenant_id', 'session_id', 'trace_id', 'parent_run_id', 'reference_example_id']) {
      expect(getExportableField(name)?.type).toBe('uuid');
    }
  });

  it('marks tenant_id and is_root, and only them, as export-only', () => {
    expect(EXPORTABLE_FIELDS.filter((field) => 'exportOnly' in field && field.exportOnly).map((field) => field.name)).toEqual([
      'tenant_id',
      'is_root',
    ]);
  });

  it('describes every field', () => {
    for (const field of EXPORTABLE_FIELDS) expect(field.description.length).toBeGreaterThan(10);
  });

  it('answers isExportableField and validates export_fields entries', () => {
    expect(isExportableField('feedback_stats')).toBe(true);
    expect(isExportableField('latency')).toBe(false);
    expect(isExportableField('Name')).toBe(false);
    expect(ExportableFieldNameSchema.safeParse('inputs').success).toBe(true);
    expect(ExportableFieldNameSchema.safeParse('input').success).toBe(false);
  });
});

describe('TraceRun schema', () => {
  it('has one key per exportable field', () => {
    expect(Object.keys(TraceRun.shape).sort()).toEqual([...EXPORTABLE_FIELD_NAMES].sort());
  });

  it('accepts a complete stored run', () => {
    expect(TraceRun.parse(validRun())).toEqual(validRun());
  });

  it.each([
    ['id', 'not-a-uuid'],
    ['start_time', 'yesterday'],
    ['end_time', '2024-02-30T00:00:00Z'],
    ['is_root', 'true'],
    ['tags', 'prod'],
    ['parent_run_ids', ['nope']],
    ['total_tokens', 1.5],
    ['inputs', null],
  ])('rejects %s = %j and names the field', (field, value) => {
    const result = TraceRun.safeParse({ ...validRun(), [field]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].path[0]).toBe(field);
  });
});

describe('parseIsoInstant', () => {
  it('keeps microseconds and honours offsets', () => {
    expect(parseIsoInstant('2024-05-01T10:00:00.123456Z') - parseIsoInstant('2024-05-01T10:00:00.123455Z')).toBe(1);
    expect(parseIsoInstant('2024-05-01T12:00:00+02:00')).toBe(parseIsoInstant('2024-05-01T10:00:00Z'));
    expect(parseIsoInstant('2024-05-01T04:30:00-0530')).toBe(parseIsoInstant('2024-05-01T10:00:00Z'));
    expect(parseIsoInstant('2024-05-01T15:00+05')).toBe(parseIsoInstant('2024-05-01T10:00:00Z'));
    expect(parseIsoInstant('2024-05-01T10:00:00')).toBe(parseIsoInstant('2024-05-01T10:00:00Z'));
    expect(parseIsoInstant('2024-05-01')).toBe(Date.UTC(2024, 4, 1) * 1000);
    expect(parseIsoInstant('0050-01-01T00:00:00Z')).toBe(new Date('0050-01-01T00:00:00Z').getTime() * 1000);
  });

  it.each(['', 'x', '2024-5-1', '2024-13-01', '2023-02-29', '2024-04-31', '2024-01-01T24:00:00Z', '2024-01-01T10:60Z', '2024-01-01T10:00:00.Z', '2024-01-01T10:00:00Zjunk', '2024-01-01T10:00:00+25:00', '2024-01-01T10:00:00+05:', '2024-01-01T10:00:00+05:3', '2024-01-01T10:00:00+5', '2024-01-01+05:00', '2024-01-01Z'])(
    'rejects %j',
    (text) => expect(parseIsoInstant(text)).toBeNaN(),
  );

  it('agrees with Date.parse to the millisecond over a spread of instants', () => {
    for (let ms = Date.UTC(1901, 0, 1); ms < Date.UTC(2150, 0, 1); ms += 86_400_000 * 97 + 3_601_001) {
      const iso = new Date(ms).toISOString();
      expect({ iso, micros: parseIsoInstant(iso) }).toEqual({ iso, micros: ms * 1000 });
    }
    expect(parseIsoInstant('2024-02-29T23:59:59.999Z')).toBe(Date.parse('2024-02-29T23:59:59.999Z') * 1000);
  });
});
