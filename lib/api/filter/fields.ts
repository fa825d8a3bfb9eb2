/**
 * The fields a filter may name and what each accepts: every exportable field of a run, plus the derived fields the
 * platform's filter language offers over a run record (`latency`, metadata keys and values, feedback keys and
 * scores). The parser checks against this table, the evaluator reads it, and the typed builder's signatures come
 * from it.
 */
import {
  EXPORTABLE_FIELDS,
  type ExportableFieldName,
  type ExportableFieldTypeOf,
  type TraceFieldType,
} from '../schemas/trace-fields';

/** Value types of the derived fields, beyond the column types. */
export type DerivedFieldType = 'duration' | 'metadata_key' | 'metadata_value' | 'feedback_key' | 'feedback_score';
export type FilterFieldType = TraceFieldType | DerivedFieldType;

/** Fields computed from a run record rather than stored in a column. */
export const DERIVED_FILTER_FIELDS = [
  {
    name: 'latency',
    type: 'duration',
    description: 'end_time minus start_time, in seconds; compare with a number of seconds or a duration such as "5s".',
    reads: ['start_time', 'end_time'],
  },
  {
    name: 'metadata_key',
    type: 'metadata_key',
    description: 'A key of extra.metadata; paired with metadata_value inside one and(…).',
    reads: ['extra'],
  },
  {
    name: 'metadata_value',
    type: 'metadata_value',
    description: 'A value of extra.metadata; restricted to the keys named by metadata_key inside one and(…).',
    reads: ['extra'],
  },
  {
    name: 'feedback_key',
    type: 'feedback_key',
    description: 'A key of feedback_stats; paired with feedback_score inside one and(…).',
    reads: ['feedback_stats'],
  },
  {
    name: 'feedback_score',
    type: 'feedback_score',
    description: 'The average score (feedback_stats.<key>.avg); restricted to the keys named by feedback_key.',
    reads: ['feedback_stats'],
  },
] as const;

export type DerivedFieldName = (typeof DERIVED_FILTER_FIELDS)[number]['name'];
export type FilterFieldName = ExportableFieldName | DerivedFieldName;

/** The value type of filter field `F`. */
export type FilterFieldTypeOf<F extends FilterFieldName> = F extends ExportableFieldName
  ? ExportableFieldTypeOf<F>
  : Extract<(typeof DERIVED_FILTER_FIELDS)[number], { name: F }>['type'];

/** Operators that compare a field with one value. */
export const COMPARATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const;
export type Comparator = (typeof COMPARATORS)[number];
export type FieldOperator = Comparator | 'in' | 'has' | 'like' | 'search';

/** Literal kinds a value position may hold. */
export type LiteralKind = 'string' | 'number' | 'boolean';

/** What one field type accepts. */
export interface FieldTypeRule {
  /** Operators that apply to the type; `eq`/`neq` with `null` are listed apart in `nullable`. */
  readonly operators: readonly FieldOperator[];
  /** Whether `eq(field, null)` / `neq(field, null)` apply. */
  readonly nullable: boolean;
  /** Literal kinds accepted as the compared value (for lists: as the element given to `has`). */
  readonly literals: readonly LiteralKind[];
  /** How the expected value reads in an error message. */
  readonly expected: string;
}

const ORDERED: readonly FieldOperator[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in'];

export const FIELD_TYPE_RULES: Readonly<Record<FilterFieldType, FieldTypeRule>> = {
  string: { operators: [...ORDERED, 'like', 'search'], nullable: true, literals: ['string'], expected: 'a string' },
  uuid: { operators: ['eq', 'neq', 'in', 'like'], nullable: true, literals: ['string'], expected: 'a uuid string' },
  timestamp: {
    operators: ORDERED,
    nullable: true,
    literals: ['string'],
    expected: 'an ISO 8601 timestamp string such as "2024-05-01T00:00:00Z"',
  },
  boolean: { operators: ['eq', 'neq'], nullable: true, literals: ['boolean'], expected: 'true or false' },
  integer: { operators: ORDERED, nullable: true, literals: ['number'], expected: 'an integer' },
  float: { operators: ORDERED, nullable: true, literals: ['number'], expected: 'a number' },
  json: { operators: ['search'], nullable: true, literals: [], expected: 'null' },
  string_list: { operators: ['has', 'search'], nullable: true, literals: ['string'], expected: 'a string' },
  uuid_list: { operators: ['has'], nullable: true, literals: ['string'], expected: 'a uuid string' },
  duration: {
    operators: ORDERED.filter((op) => op !== 'in'),
    nullable: false,
    literals: ['number', 'string'],
    expected: 'a number of seconds or a duration such as "500ms", "5s", "2m" or "1h"',
  },
  metadata_key: { operators: ['eq', 'neq', 'in'], nullable: false, literals: ['string'], expected: 'a string' },
  metadata_value: {
    operators: ['eq', 'neq', 'in'],
    nullable: false,
    literals: ['string', 'number', 'boolean'],
    expected: 'a string, a number or a boolean',
  },
  feedback_key: { operators: ['eq', 'neq', 'in'], nullable: false, literals: ['string'], expected: 'a string' },
  feedback_score: { operators: ORDERED, nullable: false, literals: ['number'], expected: 'a number' },
};

/** One field a filter may name. */
export interface FilterField {
  /** Name used in expressions. */
  readonly name: FilterFieldName;
  /** Value type. */
  readonly type: FilterFieldType;
  /** Whether the field is computed from other fields of the run record. */
  readonly derived: boolean;
  /** Record fields the evaluator reads to decide on this field. */
  readonly reads: readonly string[];
}

export const FILTER_FIELDS: ReadonlyMap<string, FilterField> = new Map<string, FilterField>([
  ...EXPORTABLE_FIELDS.map((f): [string, FilterField] => [f.name, { name: f.name, type: f.type, derived: false, reads: [f.name] }]),
  ...DERIVED_FILTER_FIELDS.map((f): [string, FilterField] => [f.name, { name: f.name, type: f.type, derived: true, reads: f.reads }]),
]);

export const FILTER_FIELD_NAMES: readonly FilterFieldName[] = [...FILTER_FIELDS.keys()] as FilterFieldName[];

/** Record fields that `search("text")` without a field looks through. */
export const FULL_TEXT_FIELDS = ['name', 'error', 'inputs', 'outputs'] as const;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const DURATION_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600 };

export { isUuid } from '../ids';

/** Seconds of a duration literal (`"500ms"`, `"5s"`, `"2m"`, `"1h"`), or NaN. */
export function parseDurationSeconds(text: string): number {
  const match = DURATION.exec(text);
  return match ? Number(match[1]) * DURATION_SECONDS[match[2]] : Number.NaN;
}
