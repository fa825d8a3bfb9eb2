/**
 * The exportable fields of a trace run (area B of the platform API) and the ISO 8601 instant parser, without zod:
 * one table drives the bulk export's `export_fields` check, the Parquet columns and the filter language's field
 * names. Code on hot or start-up paths (export encode workers, the provider's plan checks) loads this module alone;
 * `trace.ts` builds the zod schemas on it and re-exports it.
 */
/** Value types of the exportable fields. */
export const TRACE_FIELD_TYPES = [
  'string',
  'uuid',
  'timestamp',
  'boolean',
  'integer',
  'float',
  'json',
  'string_list',
  'uuid_list',
] as const;
export type TraceFieldType = (typeof TRACE_FIELD_TYPES)[number];

/** Groups of the exportable fields, titled as the platform documents them. */
export const TRACE_FIELD_GROUPS = {
  identifiers: 'Identifiers and hierarchy',
  metadata: 'Basic metadata',
  run_data: 'Run data',
  tags_feedback: 'Tags and feedback',
  usage: 'Token usage and costs',
} as const;
export type TraceFieldGroup = keyof typeof TRACE_FIELD_GROUPS;

/** One column a bulk export can write. */
export interface ExportableField {
  /** Column name, as accepted in `export_fields` and in filter expressions. */
  readonly name: string;
  /** The group the platform lists the field under. */
  readonly group: TraceFieldGroup;
  /** Value type of the field in a stored run record. */
  readonly type: TraceFieldType;
  /** What the field holds. */
  readonly description: string;
  /**
   * True for the fields that only bulk export writes (they are not part of the run data format of the query API).
   * @default false
   */
  readonly exportOnly?: boolean;
}

/** Every exportable field, in the platform's documented order. */
export const EXPORTABLE_FIELDS = [
  { name: 'id', group: 'identifiers', type: 'uuid', description: 'Unique id of the run.' },
  {
    name: 'tenant_id',
    group: 'identifiers',
    type: 'uuid',
    description: 'Workspace that owns the run.',
    exportOnly: true,
  },
  { name: 'session_id', group: 'identifiers', type: 'uuid', description: 'Tracing project the run belongs to.' },
  { name: 'trace_id', group: 'identifiers', type: 'uuid', description: 'Id of the root run of the run\'s trace.' },
  { name: 'parent_run_id', group: 'identifiers', type: 'uuid', description: 'Id of the direct parent run; null for a root run.' },
  {
    name: 'parent_run_ids',
    group: 'identifiers',
    type: 'uuid_list',
    description: 'Ids of every ancestor run, root first.',
  },
  {
    name: 'reference_example_id',
    group: 'identifiers',
    type: 'uuid',
    description: 'Dataset example the run was evaluated against, if any.',
  },
  { name: 'name', group: 'metadata', type: 'string', description: 'Name of the run.' },
  { name: 'run_type', group: 'metadata', type: 'string', description: 'Kind of run, for example chain, llm or tool.' },
  { name: 'start_time', group: 'metadata', type: 'timestamp', description: 'When the run started (UTC).' },
  { name: 'end_time', group: 'metadata', type: 'timestamp', description: 'When the run ended (UTC); null while running.' },
  { name: 'status', group: 'metadata', type: 'string', description: 'Outcome, for example success, error or pending.' },
  {
    name: 'is_root',
    group: 'metadata',
    type: 'boolean',
    description: 'Whether the run is the root of its trace.',
    exportOnly: true,
  },
  {
    name: 'dotted_order',
    group: 'metadata',
    type: 'string',
    description: 'Sortable path of start times and ids from the root to the run.',
  },
  { name: 'trace_tier', group: 'metadata', type: 'string', description: 'Retention tier of the trace.' },
  { name: 'inputs', group: 'run_data', type: 'json', description: 'Inputs of the run.' },
  { name: 'outputs', group: 'run_data', type: 'json', description: 'Outputs of the run.' },
  { name: 'error', group: 'run_data', type: 'string', description: 'Error message of a failed run.' },
  { name: 'extra', group: 'run_data', type: 'json', description: 'Extra data, including `metadata` and runtime facts.' },
  { name: 'events', group: 'run_data', type: 'json', description: 'Events recorded during the run (for example new tokens).' },
  { name: 'tags', group: 'tags_feedback', type: 'string_list', description: 'Tags of the run.' },
  {
    name: 'feedback_stats',
    group: 'tags_feedback',
    type: 'json',
    description: 'Aggregated feedback keyed by feedback key (`n`, `avg`, …).',
  },
  { name: 'total_tokens', group: 'usage', type: 'integer', description: 'Prompt plus completion tokens.' },
  { name: 'prompt_tokens', group: 'usage', type: 'integer', description: 'Tokens of the prompt.' },
  { name: 'completion_tokens', group: 'usage', type: 'integer', description: 'Tokens of the completion.' },
  { name: 'total_cost', group: 'usage', type: 'float', description: 'Prompt plus completion cost, in US dollars.' },
  { name: 'prompt_cost', group: 'usage', type: 'float', description: 'Cost of the prompt tokens, in US dollars.' },
  { name: 'completion_cost', group: 'usage', type: 'float', description: 'Cost of the completion tokens, in US dollars.' },
  { name: 'first_token_time', group: 'usage', type: 'timestamp', description: 'When the first token was streamed (UTC).' },
] as const satisfies readonly ExportableField[];

export type ExportableFieldName = (typeof EXPORTABLE_FIELDS)[number]['name'];

/** The value type of exportable field `N`. */
export type ExportableFieldTypeOf<N extends ExportableFieldName> = Extract<
  (typeof EXPORTABLE_FIELDS)[number],
  { name: N }
>['type'];

export const EXPORTABLE_FIELD_NAMES = EXPORTABLE_FIELDS.map((field) => field.name) as readonly ExportableFieldName[];

const FIELDS_BY_NAME: ReadonlyMap<string, ExportableField> = new Map(EXPORTABLE_FIELDS.map((field) => [field.name, field]));

export function isExportableField(name: string): name is ExportableFieldName {
  return FIELDS_BY_NAME.has(name);
}

/** The field named `name`, or undefined when no exportable field has that name. */
export function getExportableField(name: string): ExportableField | undefined {
  return FIELDS_BY_NAME.get(name);
}

/** Value of `count` decimal digits at `from`, or NaN when any of them is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const code = text.charCodeAt(i) - 48;
    if (!(code >= 0 && code <= 9)) return Number.NaN;
    value = value * 10 + code;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse of H. Hinnant's algorithms). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * Microseconds since the epoch of an ISO 8601 instant (`2024-05-01`, `2024-05-01T10:00:00.123456Z`, `…+02:00`),
 * or NaN when `text` is not one. A time without an offset is UTC, as run timestamps are. Microseconds, not
 * milliseconds, because run timestamps carry them and two runs a few microseconds apart must not compare equal.
 * Hand-scanned rather than matched by a RegExp: filters parse a timestamp per record, millions of times.
 */
export function parseIsoInstant(text: string): number {
  const length = text.length;
  if (length < 10 || text[4] !== '-' || text[7] !== '-') return Number.NaN;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  let hour = 0;
  let minute = 0;
  let second = 0;
  let micros = 0;
  let i = 10;
  if (i < length && (text[i] === 'T' || text[i] === 't' || text[i] === ' ')) {
    if (text[i + 3] !== ':') return Number.NaN;
    hour = digitsAt(text, i + 1, 2);
    minute = digitsAt(text, i + 4, 2);
    i += 6;
    if (text[i] === ':') {
      second = digitsAt(text, i + 1, 2);
      i += 3;
      if (text[i] === '.') {
        const fractionStart = ++i;
        while (i < length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
        const digits = i - fractionStart;
        if (digits < 1 || digits > 9) return Number.NaN;
        micros = digitsAt(text, fractionStart, Math.min(digits, 6)) * 10 ** Math.max(0, 6 - digits);
      }
    }
  }
  let offsetMinutes = 0;
  // an offset (`Z`, `±HH`, `±HHMM`, `±HH:MM`) says where a time of day was read: a bare date takes none
  if (i < length && i > 10) {
    const sign = text[i];
    if ((sign === 'Z' || sign === 'z') && i === length - 1) {
      i++;
    } else if (sign === '+' || sign === '-') {
      const offsetHours = digitsAt(text, i + 1, 2);
      i += 3;
      let offsetMins = 0;
      if (i < length) {
        if (text[i] === ':') i++;
        offsetMins = digitsAt(text, i, 2);
        i += 2;
      }
      if (!(offsetHours <= 23 && offsetMins <= 59)) return Number.NaN;
      offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
    }
  }
  if (i !== length || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return Number.NaN;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1])) return Number.NaN;
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + (minute - offsetMinutes) * 60 + second;
  return seconds * 1_000_000 + micros;
}
