/**
 * Compiles a filter AST into a predicate over run records. All per-expression work (literal conversion, LIKE
 * matchers, lower-cased search text, value sets) happens once at compile time; the predicate only reads the record.
 * Semantics: a comparison with a missing or null field is false (also for `neq`), as in SQL; `not` negates the
 * result; `eq(field, null)` / `neq(field, null)` test for absence / presence.
 */
import { FIELD_TYPE_RULES, FILTER_FIELDS, FULL_TEXT_FIELDS, parseDurationSeconds, type Comparator } from './fields';
import type { FilterComparison, FilterExpr, FilterIn, FilterScalar } from './parser';
import {
  containsText,
  feedbackScore,
  likeMatcher,
  metadataText,
  readBoolean,
  readInstant,
  readList,
  readNumber,
  jsonDocument,
  readObject,
  readString,
} from './values';

/** A run record: the stored shape (`TraceRun`) or any row with the same field names. */
export type TraceRunLike = { readonly [field: string]: unknown };
export type RunPredicate = (run: TraceRunLike) => boolean;

type Comparable = string | number | boolean;
type ValueTest = (value: Comparable | undefined) => boolean;

/** How one field type reads a record and converts a literal into the same comparable domain. */
interface Domain {
  readonly read: (run: TraceRunLike) => Comparable | undefined;
  readonly literal: (value: FilterScalar) => Comparable;
}

export function compileFilter(expr: FilterExpr): RunPredicate {
  switch (expr.op) {
    case 'and':
      return compileAnd(expr.args);
    case 'or': {
      const parts = expr.args.map(compileFilter);
      return (run) => parts.some((part) => part(run));
    }
    case 'not': {
      const inner = compileFilter(expr.arg);
      return (run) => !inner(run);
    }
    case 'has':
      return compileHas(expr.field, expr.value);
    case 'like': {
      // uuids compare ignoring case, in like as in eq and in
      const caseless = FILTER_FIELDS.get(expr.field)!.type === 'uuid';
      const matches = likeMatcher(caseless ? expr.pattern.toLowerCase() : expr.pattern);
      return (run) => {
        const value = run[expr.field];
        return typeof value === 'string' && matches(caseless ? value.toLowerCase() : value);
      };
    }
    case 'search':
      return compileSearch(expr.field, expr.text.toLowerCase());
    default:
      return compileFieldTest(expr);
  }
}

function compileFieldTest(expr: FilterComparison | FilterIn): RunPredicate {
  if (expr.op !== 'in' && expr.value === null) {
    const isNull = (run: TraceRunLike): boolean => run[expr.field] === null || run[expr.field] === undefined;
    return expr.op === 'eq' ? isNull : (run) => !isNull(run);
  }
  const keyed = keyedFamilyOf(expr.field);
  if (keyed) return keyedTest(keyed, expr);
  const domain = domainOf(expr.field);
  const test = valueTest(expr, domain.literal);
  return (run) => test(domain.read(run));
}

/** The test a comparison or `in` applies to one comparable value, its literal(s) converted once by `literal`. */
function valueTest(expr: FilterComparison | FilterIn, literal: (value: FilterScalar) => Comparable): ValueTest {
  if (expr.op === 'in') {
    const accepted = new Set(expr.values.map(literal));
    return (value) => value !== undefined && accepted.has(value);
  }
  return comparatorTest(expr.op, literal(expr.value as FilterScalar));
}

function comparatorTest(op: Comparator, expected: Comparable): ValueTest {
  switch (op) {
    case 'eq':
      return (value) => value !== undefined && value === expected;
    case 'neq':
      return (value) => value !== undefined && value !== expected;
    case 'gt':
      return (value) => value !== undefined && value > expected;
    case 'gte':
      return (value) => value !== undefined && value >= expected;
    case 'lt':
      return (value) => value !== undefined && value < expected;
    case 'lte':
      return (value) => value !== undefined && value <= expected;
  }
}

function domainOf(field: string): Domain {
  const { type } = FILTER_FIELDS.get(field)!;
  switch (type) {
    case 'uuid':
      return { read: (run) => readString(run[field])?.toLowerCase(), literal: (value) => String(value).toLowerCase() };
    case 'timestamp':
      return { read: (run) => readInstant(run[field]), literal: (value) => readInstant(value) as number };
    case 'boolean':
      return { read: (run) => readBoolean(run[field]), literal: (value) => value };
    case 'integer':
    case 'float':
      return { read: (run) => readNumber(run[field]), literal: (value) => value };
    case 'duration':
      return { read: readLatencySeconds, literal: (value) => (typeof value === 'number' ? value : parseDurationSeconds(String(value))) };
    default:
      return { read: (run) => readString(run[field]), literal: (value) => value };
  }
}

function readLatencySeconds(run: TraceRunLike): number | undefined {
  const start = readInstant(run.start_time);
  const end = readInstant(run.end_time);
  return start === undefined || end === undefined ? undefined : (end - start) / 1e6;
}

function compileHas(field: string, value: string): RunPredicate {
  const caseless = FILTER_FIELDS.get(field)!.type === 'uuid_list';
  const wanted = caseless ? value.toLowerCase() : value;
  return (run) => {
    const list = readList(run[field]);
    if (list === undefined) return false;
    return list.some((item) => typeof item === 'string' && (item === wanted || (caseless && item.toLowerCase() === wanted)));
  };
}

/** The value of a field as `search` reads it: a JSON field's text as its document. */
function searched(field: string, value: unknown): unknown {
  return FILTER_FIELDS.get(field)!.type === 'json' ? jsonDocument(value) : value;
}

function compileSearch(field: string | undefined, needle: string): RunPredicate {
  if (field === undefined) return (run) => FULL_TEXT_FIELDS.some((name) => containsText(searched(name, run[name]), needle));
  const list = FIELD_TYPE_RULES[FILTER_FIELDS.get(field)!.type] === FIELD_TYPE_RULES.string_list;
  return (run) => {
    const value = run[field];
    if (list) return readList(value)?.some((item) => containsText(item, needle)) ?? false;
    return value !== null && value !== undefined && containsText(searched(field, value), needle);
  };
}

/**
 * A derived map of a run with a key field and a value field: `extra.metadata` (metadata_key / metadata_value) and
 * `feedback_stats` (feedback_key / feedback_score). Key tests look at the map's keys (a run without the map has no
 * keys); alone, a value test holds when some value passes it (`neq`: when no value equals it); inside one `and(…)`
 * the value tests apply together to the value of a key that the `eq`/`in` key tests name.
 */
interface KeyedFamily {
  readonly keyField: string;
  readonly valueField: string;
  readonly readMap: (run: TraceRunLike) => Readonly<Record<string, unknown>> | undefined;
  readonly readValue: (entry: unknown) => Comparable | undefined;
  readonly valueLiteral: (value: FilterScalar) => Comparable;
}

const KEYED_FAMILIES: readonly KeyedFamily[] = [
  {
    keyField: 'metadata_key',
    valueField: 'metadata_value',
    readMap: (run) => readObject(readObject(run.extra)?.metadata),
    readValue: (entry) => (entry === undefined ? undefined : metadataText(entry)),
    valueLiteral: (value) => String(value),
  },
  {
    keyField: 'feedback_key',
    valueField: 'feedback_score',
    readMap: (run) => readObject(run.feedback_stats),
    readValue: feedbackScore,
    valueLiteral: (value) => value,
  },
];

function keyedFamilyOf(field: string): KeyedFamily | undefined {
  return KEYED_FAMILIES.find((family) => family.keyField === field || family.valueField === field);
}

function hasAnyKey(family: KeyedFamily, keys: ReadonlySet<string>): RunPredicate {
  return (run) => {
    const map = family.readMap(run);
    if (map === undefined) return false;
    for (const key of keys) if (Object.prototype.hasOwnProperty.call(map, key)) return true;
    return false;
  };
}

function keyedTest(family: KeyedFamily, expr: FilterComparison | FilterIn): RunPredicate {
  if (expr.field === family.keyField) {
    const present = hasAnyKey(family, keysNamed(expr));
    return expr.op === 'neq' ? (run) => !present(run) : present;
  }
  const someValue = (test: ValueTest): RunPredicate => (run) =>
    Object.values(family.readMap(run) ?? {}).some((entry) => test(family.readValue(entry)));
  if (expr.op === 'neq') {
    const equal = someValue(comparatorTest('eq', family.valueLiteral(expr.value as FilterScalar)));
    return (run) => !equal(run);
  }
  return someValue(valueTest(expr, family.valueLiteral));
}

function keysNamed(expr: FilterComparison | FilterIn): ReadonlySet<string> {
  return new Set(expr.op === 'in' ? expr.values.map(String) : [String(expr.value)]);
}

function isPositiveKeyTest(expr: FilterExpr, family: KeyedFamily): expr is FilterComparison | FilterIn {
  return (expr.op === 'eq' || expr.op === 'in') && expr.field === family.keyField;
}

function isValueTest(expr: FilterExpr, family: KeyedFamily): expr is FilterComparison | FilterIn {
  return 'field' in expr && expr.field === family.valueField && expr.op !== 'search';
}

function compileAnd(args: readonly FilterExpr[]): RunPredicate {
  let rest = args;
  const parts: RunPredicate[] = [];
  for (const family of KEYED_FAMILIES) {
    const keyTests = rest.filter((arg) => isPositiveKeyTest(arg, family));
    const valueTests = rest.filter((arg) => isValueTest(arg, family));
    if (keyTests.length === 0 || valueTests.length === 0) continue;
    const keySets = keyTests.map(keysNamed);
    const keys = [...keySets[0]].filter((key) => keySets.every((set) => set.has(key)));
    const tests = valueTests.map((arg) => valueTest(arg, family.valueLiteral));
    parts.push((run) => {
      const map = family.readMap(run);
      if (map === undefined) return false;
      return keys.some((key) => {
        if (!Object.prototype.hasOwnProperty.call(map, key)) return false;
        const value = family.readValue(map[key]);
        return tests.every((test) => test(value));
      });
    });
    const folded = new Set<FilterExpr>([...keyTests, ...valueTests]);
    rest = rest.filter((arg) => !folded.has(arg));
  }
  parts.push(...rest.map(compileFilter));
  return parts.length === 1 ? parts[0] : (run) => parts.every((part) => part(run));
}
