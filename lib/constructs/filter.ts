/**
 * The `Filter` builder of the constructs, on `lib/api`'s: each expression is checked as it is built, and values that
 * are tokens are refused with a message that says how to write such a filter (the API layer knows nothing of tokens,
 * and its check would fail on them with a message about the value). A class of static methods, as jsii compiles it
 * into the other languages; the fields and values it takes are checked when it is called, as a string filter's are.
 */
import { Filter as ApiFilter, renderFilter, type FilterExpr } from '../api/filter';
import { isToken, messages } from './errors';

type Builder = (...args: unknown[]) => FilterExpr;

/** A literal value of a filter: a string, number, boolean, or Date (for timestamp fields). */
export type FilterValue = string | number | boolean | Date;

/**
 * A filter expression, built with its static methods:
 * `Filter.and(Filter.eq('run_type', 'llm'), Filter.gt('total_tokens', 1000))`. Values are literals; a filter that
 * depends on a variable is written as a string.
 */
export class Filter {
  /** All of the expressions. */
  static and(...filters: Filter[]): Filter {
    return Filter.build('and', filters.map((f) => f.expr));
  }

  /** Any of the expressions. */
  static or(...filters: Filter[]): Filter {
    return Filter.build('or', filters.map((f) => f.expr));
  }

  /** The negation of the expression. */
  static not(filter: Filter): Filter {
    return Filter.build('not', [filter.expr]);
  }

  /**
   * `field` equals `value`; without a value (jsii's languages have no `null` argument), `field` is absent:
   * `Filter.eq('error')` is `eq(error, null)`.
   */
  static eq(field: string, value?: FilterValue): Filter {
    return Filter.build('eq', [field, value ?? null]);
  }

  /** `field` is present and differs from `value`; without a value, `field` is present: `neq(field, null)`. */
  static neq(field: string, value?: FilterValue): Filter {
    return Filter.build('neq', [field, value ?? null]);
  }

  /** `field` is greater than `value`. */
  static gt(field: string, value: FilterValue): Filter {
    return Filter.build('gt', [field, value]);
  }

  /** `field` is greater than or equal to `value`. */
  static gte(field: string, value: FilterValue): Filter {
    return Filter.build('gte', [field, value]);
  }

  /** `field` is less than `value`. */
  static lt(field: string, value: FilterValue): Filter {
    return Filter.build('lt', [field, value]);
  }

  /** `field` is less than or equal to `value`. */
  static lte(field: string, value: FilterValue): Filter {
    return Filter.build('lte', [field, value]);
  }

  /** `field` equals one of `values`. */
  static in(field: string, values: FilterValue[]): Filter {
    return Filter.build('in', [field, values]);
  }

  /** The list `field` contains `value`. */
  static has(field: string, value: string): Filter {
    return Filter.build('has', [field, value]);
  }

  /** `field` matches the SQL LIKE `pattern` (`%` any run, `_` one character, case-sensitive). */
  static like(field: string, pattern: string): Filter {
    return Filter.build('like', [field, pattern]);
  }

  /**
   * `text` occurs, ignoring case, in a field: `search(text)` looks in name, error, inputs and outputs,
   * `search(field, text)` in `field`.
   */
  static search(fieldOrText: string, text?: string): Filter {
    return Filter.build('search', text === undefined ? [fieldOrText] : [fieldOrText, text]);
  }

  /** A filter written as text, e.g. `eq(run_type, "llm")`, checked. */
  static parse(text: string): Filter {
    return Filter.build('parse', [text]);
  }

  private static build(name: keyof typeof ApiFilter, args: unknown[]): Filter {
    if (args.some((arg) => isToken(arg))) throw new Error(messages.filterBuilderToken(name));
    return new Filter((ApiFilter[name] as Builder)(...args));
  }

  private constructor(private readonly expr: FilterExpr) {}

  /** The expression as the platform takes it, e.g. `and(eq(run_type, "llm"), gt(total_tokens, 1000))`. */
  toString(): string {
    return renderFilter(this.expr);
  }
}
