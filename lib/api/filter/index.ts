/**
 * The run filter language of bulk exports, shared by every layer: the local platform applies it, the provider
 * checks it at plan time, the constructs build it with `Filter.*` or check a raw string at synth. See
 * docs/filter-language.md.
 */
import { FilterSyntaxError } from './errors';
import { DERIVED_FILTER_FIELDS, FILTER_FIELDS, FULL_TEXT_FIELDS, type FilterFieldName, type FilterFieldTypeOf } from './fields';
import { checkFilterShape, parseFilter, type FilterExpr, type FilterScalar } from './parser';
import { renderFilter } from './render';

export { FilterSyntaxError, type FilterErrorCode, type FilterErrorDetails } from './errors';
export {
  COMPARATORS,
  DERIVED_FILTER_FIELDS,
  FIELD_TYPE_RULES,
  FILTER_FIELDS,
  FILTER_FIELD_NAMES,
  FULL_TEXT_FIELDS,
  type Comparator,
  type DerivedFieldName,
  type FilterField,
  type FilterFieldName,
  type FilterFieldType,
  type FilterFieldTypeOf,
} from './fields';
export {
  FILTER_OPERATORS,
  MAX_FILTER_DEPTH,
  checkFilterShape,
  parseFilter,
  type FilterComparison,
  type FilterExpr,
  type FilterHas,
  type FilterIn,
  type FilterLike,
  type FilterLogical,
  type FilterNot,
  type FilterOperator,
  type FilterScalar,
  type FilterSearch,
} from './parser';
export { compileFilter, type RunPredicate, type TraceRunLike } from './evaluate';
export { renderFilter, renderString } from './render';

export type FilterValidation = { readonly ok: true; readonly expr: FilterExpr } | { readonly ok: false; readonly error: FilterSyntaxError };

/** Parses `text` without throwing: the AST, or the FilterSyntaxError that `parseFilter` would throw. */
export function validateFilter(text: string): FilterValidation {
  try {
    return { ok: true, expr: parseFilter(text) };
  } catch (error) {
    if (error instanceof FilterSyntaxError) return { ok: false, error };
    throw error;
  }
}

/**
 * A filter as a client of the platform judges it: `shape` is why it is not of function-style operators (the one
 * problem the spec lets a client refuse it for), `unknown` why this project's platform would refuse it all the same
 * (an operator or field it does not know, a value of the wrong type), which a client only warns of.
 */
export interface FilterReview {
  readonly shape?: FilterSyntaxError;
  readonly unknown?: FilterSyntaxError;
}

/** Reviews `text`: see {@link FilterReview}. */
export function reviewFilter(text: string): FilterReview {
  try {
    checkFilterShape(text);
  } catch (error) {
    if (error instanceof FilterSyntaxError) return { shape: error };
    throw error;
  }
  const full = validateFilter(text);
  return full.ok ? {} : { unknown: full.error };
}

/**
 * The run record fields a filter reads, so that a reader can load just those columns (a filter that searches
 * `inputs` needs it even when the export leaves it out).
 */
export function referencedFields(expr: FilterExpr): string[] {
  const fields = new Set<string>();
  const visit = (node: FilterExpr): void => {
    switch (node.op) {
      case 'and':
      case 'or':
        return node.args.forEach(visit);
      case 'not':
        return visit(node.arg);
      default: {
        const names = node.field === undefined ? FULL_TEXT_FIELDS : FILTER_FIELDS.get(node.field)!.reads;
        names.forEach((name) => fields.add(name));
      }
    }
  };
  visit(expr);
  return [...fields];
}

type FieldsOfType<T> = { [F in FilterFieldName]: FilterFieldTypeOf<F> extends T ? F : never }[FilterFieldName];

/** Fields `eq`/`neq` accept with a value. */
export type EqualityField = FieldsOfType<
  'string' | 'uuid' | 'timestamp' | 'boolean' | 'integer' | 'float' | 'duration' | 'metadata_key' | 'metadata_value' | 'feedback_key' | 'feedback_score'
>;
/** Fields `gt`/`gte`/`lt`/`lte` accept. */
export type OrderedField = FieldsOfType<'string' | 'timestamp' | 'integer' | 'float' | 'duration' | 'feedback_score'>;
/** Fields `in` accepts. */
export type InField = FieldsOfType<'string' | 'uuid' | 'timestamp' | 'integer' | 'float' | 'metadata_key' | 'metadata_value' | 'feedback_key' | 'feedback_score'>;
/** Fields that may be compared with null (every stored column). */
export type NullableField = Exclude<FilterFieldName, (typeof DERIVED_FILTER_FIELDS)[number]['name']>;
/** List fields, for `has`. */
export type ListField = FieldsOfType<'string_list' | 'uuid_list'>;
/** Fields `like` accepts. */
export type LikeField = FieldsOfType<'string' | 'uuid'>;
/** Fields `search` accepts. */
export type SearchField = FieldsOfType<'string' | 'json' | 'string_list'>;

/** The value a builder takes for field `F`; timestamps may be Dates. */
export type FilterValueFor<F extends FilterFieldName> = FilterFieldTypeOf<F> extends 'timestamp'
  ? string | Date
  : FilterFieldTypeOf<F> extends 'boolean'
    ? boolean
    : FilterFieldTypeOf<F> extends 'integer' | 'float' | 'feedback_score'
      ? number
      : FilterFieldTypeOf<F> extends 'duration'
        ? number | string
        : FilterFieldTypeOf<F> extends 'metadata_value'
          ? FilterScalar
          : string;

type EqualityValue<F extends EqualityField> = FilterValueFor<F> | (F extends NullableField ? null : never);

function scalar(value: FilterScalar | Date): FilterScalar {
  if (!(value instanceof Date)) return value;
  // an invalid Date goes to the parser as its text, which refuses it as it would in a raw string
  return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
}

/** Builder results go through the parser, so a wrong value fails here with the same message a raw string gets. */
function checked(expr: FilterExpr): FilterExpr {
  return parseFilter(renderFilter(expr));
}

/**
 * Typed builder of filter expressions: `Filter.and(Filter.eq("run_type", "llm"), Filter.gt("total_tokens", 1000))`.
 * Each call returns a checked AST; `renderFilter` turns it into the string the API takes.
 */
export const Filter = {
  /** All of the expressions. */
  and: (...args: [FilterExpr, ...FilterExpr[]]): FilterExpr => checked({ op: 'and', args }),
  /** Any of the expressions. */
  or: (...args: [FilterExpr, ...FilterExpr[]]): FilterExpr => checked({ op: 'or', args }),
  /** The negation of the expression. */
  not: (arg: FilterExpr): FilterExpr => checked({ op: 'not', arg }),
  /** `field` equals `value`; `null` tests for absence. */
  eq: <F extends EqualityField>(field: F, value: EqualityValue<F>): FilterExpr =>
    checked({ op: 'eq', field, value: value === null ? null : scalar(value) }),
  /** `field` is present and differs from `value`; `null` tests for presence. */
  neq: <F extends EqualityField>(field: F, value: EqualityValue<F>): FilterExpr =>
    checked({ op: 'neq', field, value: value === null ? null : scalar(value) }),
  /** `field` is greater than `value`. */
  gt: <F extends OrderedField>(field: F, value: FilterValueFor<F>): FilterExpr => checked({ op: 'gt', field, value: scalar(value) }),
  /** `field` is greater than or equal to `value`. */
  gte: <F extends OrderedField>(field: F, value: FilterValueFor<F>): FilterExpr => checked({ op: 'gte', field, value: scalar(value) }),
  /** `field` is less than `value`. */
  lt: <F extends OrderedField>(field: F, value: FilterValueFor<F>): FilterExpr => checked({ op: 'lt', field, value: scalar(value) }),
  /** `field` is less than or equal to `value`. */
  lte: <F extends OrderedField>(field: F, value: FilterValueFor<F>): FilterExpr => checked({ op: 'lte', field, value: scalar(value) }),
  /** `field` equals one of `values`. */
  in: <F extends InField>(field: F, values: readonly FilterValueFor<F>[]): FilterExpr =>
    checked({ op: 'in', field, values: values.map(scalar) }),
  /** The list `field` contains `value`. */
  has: (field: ListField, value: string): FilterExpr => checked({ op: 'has', field, value }),
  /** `field` matches the SQL LIKE `pattern` (`%` any run, `_` one character, case-sensitive). */
  like: (field: LikeField, pattern: string): FilterExpr => checked({ op: 'like', field, pattern }),
  /** `text` occurs, ignoring case, in `field`, or in name, error, inputs or outputs when no field is given. */
  search: (...args: [text: string] | [field: SearchField, text: string]): FilterExpr =>
    checked(args.length === 1 ? { op: 'search', text: args[0] } : { op: 'search', field: args[0], text: args[1] }),
  /** A raw expression, checked. */
  parse: (text: string): FilterExpr => parseFilter(text),
};
