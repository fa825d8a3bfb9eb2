/**
 * Parser of the run filter language: `op(arg, …)` calls, checked against the filter field table. Parsing is two
 * passes over the tokens: a syntax pass that builds a tree of calls, names, literals and lists with their offsets,
 * then a checking pass that turns it into the typed AST and reports unknown operators and fields, arity and value
 * types at the exact offset of the offending argument.
 */
import { FilterSyntaxError, suggest, type FilterErrorCode } from './errors';
import {
  COMPARATORS,
  FIELD_TYPE_RULES,
  FILTER_FIELDS,
  FILTER_FIELD_NAMES,
  isUuid,
  parseDurationSeconds,
  type Comparator,
  type FieldOperator,
  type FilterField,
  type FilterFieldName,
  type LiteralKind,
} from './fields';
import { describeToken, tokenize, type Token } from './lexer';
import { parseIsoInstant } from '../schemas/trace-fields';

/** A literal value of the language. */
export type FilterScalar = string | number | boolean;

/** `and(e1, e2, …)` / `or(e1, e2, …)`: all / any of one or more expressions. */
export interface FilterLogical {
  readonly op: 'and' | 'or';
  readonly args: readonly FilterExpr[];
}
/** `not(e)`. */
export interface FilterNot {
  readonly op: 'not';
  readonly arg: FilterExpr;
}
/** `eq(field, value)` and the other comparators; `null` only with `eq` and `neq`. */
export interface FilterComparison {
  readonly op: Comparator;
  readonly field: FilterFieldName;
  readonly value: FilterScalar | null;
}
/** `in(field, [v1, v2, …])`. */
export interface FilterIn {
  readonly op: 'in';
  readonly field: FilterFieldName;
  readonly values: readonly FilterScalar[];
}
/** `has(list_field, value)`. */
export interface FilterHas {
  readonly op: 'has';
  readonly field: FilterFieldName;
  readonly value: string;
}
/** `like(field, "pattern")` with SQL `%` and `_` wildcards. */
export interface FilterLike {
  readonly op: 'like';
  readonly field: FilterFieldName;
  readonly pattern: string;
}
/** `search("text")` over the full-text fields, or `search(field, "text")`. */
export interface FilterSearch {
  readonly op: 'search';
  readonly field?: FilterFieldName;
  readonly text: string;
}

export type FilterExpr = FilterLogical | FilterNot | FilterComparison | FilterIn | FilterHas | FilterLike | FilterSearch;
export type FilterOperator = FilterExpr['op'];

export const FILTER_OPERATORS: readonly FilterOperator[] = ['and', 'or', 'not', ...COMPARATORS, 'in', 'has', 'like', 'search'];

/** Deeper nesting than this is refused by the local platform, so a hostile filter cannot exhaust the stack. */
export const MAX_FILTER_DEPTH = 64;

/**
 * The nesting a client's check of a filter's shape reads (the recursion's bound): a deeper filter than the local
 * platform's limit is of the spec's shape all the same, and only warned of (see `reviewFilter`).
 */
const MAX_SHAPE_DEPTH = 1000;

type RawNode =
  | { readonly kind: 'call'; readonly name: Token; readonly args: readonly RawNode[]; readonly close: Token }
  | { readonly kind: 'ident'; readonly token: Token }
  | { readonly kind: 'literal'; readonly token: Token }
  | { readonly kind: 'list'; readonly open: Token; readonly items: readonly RawNode[]; readonly close: Token };

/** Parses and type-checks `text`. Throws FilterSyntaxError pointing at the first problem. */
export function parseFilter(text: string): FilterExpr {
  return new FilterChecker(text).check(new SyntaxReader(text).readFilter());
}

/**
 * Checks only the shape of `text`, the syntax pass without the checking one: a call `name(arg, …)` whose arguments
 * are calls, names, literals and lists. spec: Bulk export, `filter`: function-style operators, "such as" `and(...)`,
 * `eq(field, value)`, `like(field, pattern)`; which operators and fields exist is the platform's to judge. Throws
 * FilterSyntaxError pointing at the first problem.
 */
export function checkFilterShape(text: string): void {
  const node = new SyntaxReader(text, MAX_SHAPE_DEPTH).readFilter();
  if (node.kind !== 'call') {
    fail(text, 'unexpected_token', startOf(node), `expected an operator call such as eq(field, value), found ${describeNode(node)}`, describeNode(node), 'an operator call');
  }
}

function fail(source: string, code: FilterErrorCode, at: number, reason: string, actual: string, expected?: string, hint?: string): never {
  throw new FilterSyntaxError(source, { code, reason, position: at, actual, expected, hint });
}

class SyntaxReader {
  private readonly tokens: Token[];
  private index = 0;

  constructor(
    private readonly source: string,
    private readonly maxDepth = MAX_FILTER_DEPTH,
  ) {
    this.tokens = tokenize(source);
  }

  readFilter(): RawNode {
    const node = this.readNode(0, 'an operator call such as eq(run_type, "llm")');
    const next = this.peek();
    if (next.kind !== 'eof') {
      fail(this.source, 'trailing_input', next.start, `unexpected ${describeToken(next)} after the end of the expression`, describeToken(next), 'end of input');
    }
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private take(): Token {
    return this.tokens[this.index++];
  }

  private unexpected(token: Token, expected: string): never {
    const code = token.kind === 'eof' ? 'unexpected_end' : 'unexpected_token';
    return fail(this.source, code, token.start, `expected ${expected}, found ${describeToken(token)}`, describeToken(token), expected);
  }

  private readNode(depth: number, expected: string): RawNode {
    const token = this.take();
    switch (token.kind) {
      case 'ident':
        return this.peek().kind === 'lparen' ? this.readCall(token, depth + 1) : { kind: 'ident', token };
      case 'string':
      case 'number':
        return { kind: 'literal', token };
      case 'lbracket':
        return this.readList(token, depth + 1);
      default:
        return this.unexpected(token, expected);
    }
  }

  private readCall(name: Token, depth: number): RawNode {
    if (depth > this.maxDepth) {
      fail(this.source, 'too_deep', name.start, `expression nested deeper than ${this.maxDepth} levels`, `identifier ${name.text}`);
    }
    this.take();
    const args: RawNode[] = [];
    if (this.peek().kind !== 'rparen') {
      for (;;) {
        args.push(this.readNode(depth, 'an argument'));
        const separator = this.take();
        if (separator.kind === 'rparen') return { kind: 'call', name, args, close: separator };
        if (separator.kind !== 'comma') this.unexpected(separator, '"," or ")"');
      }
    }
    return { kind: 'call', name, args, close: this.take() };
  }

  private readList(open: Token, depth: number): RawNode {
    if (depth > this.maxDepth) {
      fail(this.source, 'too_deep', open.start, `expression nested deeper than ${this.maxDepth} levels`, '"["');
    }
    const items: RawNode[] = [];
    if (this.peek().kind !== 'rbracket') {
      for (;;) {
        items.push(this.readNode(depth, 'a value'));
        const separator = this.take();
        if (separator.kind === 'rbracket') return { kind: 'list', open, items, close: separator };
        if (separator.kind !== 'comma') this.unexpected(separator, '"," or "]"');
      }
    }
    return { kind: 'list', open, items, close: this.take() };
  }
}

const ARITY: Readonly<Record<FilterOperator, { min: number; max: number; shape: string }>> = {
  and: { min: 1, max: Infinity, shape: 'one or more expressions' },
  or: { min: 1, max: Infinity, shape: 'one or more expressions' },
  not: { min: 1, max: 1, shape: '1 argument (an expression)' },
  eq: { min: 2, max: 2, shape: '2 arguments (field, value)' },
  neq: { min: 2, max: 2, shape: '2 arguments (field, value)' },
  gt: { min: 2, max: 2, shape: '2 arguments (field, value)' },
  gte: { min: 2, max: 2, shape: '2 arguments (field, value)' },
  lt: { min: 2, max: 2, shape: '2 arguments (field, value)' },
  lte: { min: 2, max: 2, shape: '2 arguments (field, value)' },
  in: { min: 2, max: 2, shape: '2 arguments (field, [values])' },
  has: { min: 2, max: 2, shape: '2 arguments (list field, value)' },
  like: { min: 2, max: 2, shape: '2 arguments (field, "pattern")' },
  search: { min: 1, max: 2, shape: '1 or 2 arguments ([field,] "text")' },
};

function startOf(node: RawNode): number {
  return node.kind === 'call' ? node.name.start : node.kind === 'list' ? node.open.start : node.token.start;
}

function describeNode(node: RawNode): string {
  if (node.kind === 'call') return `call ${node.name.text}(…)`;
  if (node.kind === 'list') return 'a list';
  return describeToken(node.token);
}

class FilterChecker {
  constructor(private readonly source: string) {}

  check(node: RawNode): FilterExpr {
    if (node.kind !== 'call') {
      const hint = node.kind === 'ident' && FILTER_FIELDS.has(node.token.text) ? `compare it, for example eq(${node.token.text}, …)` : undefined;
      return this.fail('unexpected_token', node, `expected an operator call such as eq(field, value), found ${describeNode(node)}`, 'an operator call', hint);
    }
    const op = node.name.text as FilterOperator;
    if (!FILTER_OPERATORS.includes(op)) {
      const found = `identifier ${node.name.text}`;
      fail(this.source, 'unknown_operator', node.name.start, `unknown operator "${node.name.text}"`, found, FILTER_OPERATORS.join(', '), suggest(node.name.text, FILTER_OPERATORS));
    }
    this.checkArity(op, node);
    const [first, second] = node.args;
    switch (op) {
      case 'and':
      case 'or':
        return { op, args: node.args.map((arg) => this.check(arg)) };
      case 'not':
        return { op, arg: this.check(first) };
      case 'in': {
        const field = this.field(first, op);
        if (second.kind !== 'list') return this.fail('type_mismatch', second, `in expects a list of values, found ${describeNode(second)}`, 'a list such as ["a", "b"]');
        if (second.items.length === 0) {
          fail(this.source, 'invalid_value', second.close.start, 'in expects at least one value', '"]"', 'a value');
        }
        return { op, field: field.name, values: second.items.map((item) => this.scalar(item, field, op)) };
      }
      case 'has': {
        const field = this.field(first, op);
        return { op, field: field.name, value: this.scalar(second, field, op) as string };
      }
      case 'like': {
        const field = this.field(first, op);
        return { op, field: field.name, pattern: this.text(second, 'a pattern string such as "%chain%"') };
      }
      case 'search':
        if (second === undefined) return { op, text: this.text(first, 'a search string') };
        return { op, field: this.field(first, op).name, text: this.text(second, 'a search string') };
      default: {
        const field = this.field(first, op);
        return { op, field: field.name, value: this.comparedValue(second, field, op) };
      }
    }
  }

  private fail(code: FilterErrorCode, node: RawNode, reason: string, expected?: string, hint?: string): never {
    return fail(this.source, code, startOf(node), reason, describeNode(node), expected, hint);
  }

  private checkArity(op: FilterOperator, node: Extract<RawNode, { kind: 'call' }>): void {
    const { min, max, shape } = ARITY[op];
    const count = node.args.length;
    if (count >= min && count <= max) return;
    const reason = `${op} takes ${shape}, got ${count}`;
    if (count > max) this.fail('arity', node.args[max], reason, '")"');
    fail(this.source, 'arity', node.close.start, reason, describeToken(node.close), min - count === 1 ? 'another argument' : 'more arguments');
  }

  private field(node: RawNode, op: FieldOperator): FilterField {
    if (node.kind !== 'ident') {
      const hint = node.kind === 'literal' && FILTER_FIELDS.has(node.token.text) ? `field names are not quoted: write ${node.token.text}` : undefined;
      return this.fail('unexpected_token', node, `expected a field name, found ${describeNode(node)}`, 'a field name', hint);
    }
    const field = FILTER_FIELDS.get(node.token.text);
    if (!field) {
      return this.fail('unknown_field', node, `unknown field "${node.token.text}"`, 'a field name', suggest(node.token.text, FILTER_FIELD_NAMES));
    }
    const rule = FIELD_TYPE_RULES[field.type];
    const nullOnly = (op === 'eq' || op === 'neq') && rule.nullable;
    if (!rule.operators.includes(op) && !nullOnly) {
      return this.fail('operator_not_applicable', node, `operator ${op} does not apply to field "${field.name}" (${field.type.replace('_', ' ')})`, undefined, applicableHint(op));
    }
    return field;
  }

  private comparedValue(node: RawNode, field: FilterField, op: Comparator): FilterScalar | null {
    const rule = FIELD_TYPE_RULES[field.type];
    if (node.kind === 'ident' && node.token.text === 'null') {
      if ((op === 'eq' || op === 'neq') && rule.nullable) return null;
      const reason = rule.nullable ? `null can only be compared with eq or neq` : `field "${field.name}" cannot be compared with null`;
      return this.fail('type_mismatch', node, reason, rule.expected);
    }
    if (!rule.operators.includes(op)) {
      return this.fail('type_mismatch', node, `field "${field.name}" (${field.type}) can only be compared with null`, 'null');
    }
    return this.scalar(node, field, op);
  }

  private scalar(node: RawNode, field: FilterField, op: FieldOperator): FilterScalar {
    const rule = FIELD_TYPE_RULES[field.type];
    const value = this.literal(node);
    const kind = typeof value as LiteralKind;
    if (value === undefined || !rule.literals.includes(kind)) {
      const bareWord = node.kind === 'ident' && node.token.text !== 'null' && rule.literals.includes('string');
      const hint = bareWord ? `quote it: "${node.token.text}"` : undefined;
      return this.fail('type_mismatch', node, `${op}(${field.name}, …) expects ${rule.expected}, found ${describeNode(node)}`, rule.expected, hint);
    }
    const problem = invalidValue(field, value);
    if (problem) return this.fail('invalid_value', node, `${problem} for field "${field.name}"`, rule.expected);
    return value;
  }

  private literal(node: RawNode): FilterScalar | undefined {
    if (node.kind === 'literal') return node.token.kind === 'number' ? node.token.value : node.token.text;
    if (node.kind === 'ident' && (node.token.text === 'true' || node.token.text === 'false')) return node.token.text === 'true';
    return undefined;
  }

  private text(node: RawNode, expected: string): string {
    if (node.kind !== 'literal' || node.token.kind !== 'string') {
      const hint = node.kind === 'ident' ? `quote it: "${node.token.text}"` : undefined;
      return this.fail('type_mismatch', node, `expected ${expected}, found ${describeNode(node)}`, expected, hint);
    }
    return node.token.text;
  }
}

/** Which fields an operator applies to: their names when few, else their types. */
function applicableHint(op: FieldOperator): string {
  const fields = FILTER_FIELD_NAMES.map((name) => FILTER_FIELDS.get(name)!).filter((f) => FIELD_TYPE_RULES[f.type].operators.includes(op));
  if (fields.length <= 5) return `${op} applies to ${fields.map((f) => f.name).join(', ')}`;
  const types = [...new Set(fields.filter((f) => !f.derived).map((f) => f.type.replace('_', ' ')))];
  return `${op} applies to ${types.join(', ')} fields`;
}

/** Why `value` is not a valid value of `field`, or undefined when it is. */
function invalidValue(field: FilterField, value: FilterScalar): string | undefined {
  switch (field.type) {
    case 'uuid':
    case 'uuid_list':
      return isUuid(value as string) ? undefined : `"${value}" is not a uuid`;
    case 'timestamp':
      return Number.isNaN(parseIsoInstant(value as string)) ? `"${value}" is not an ISO 8601 timestamp` : undefined;
    case 'integer':
      if (Number.isSafeInteger(value)) return undefined;
      // past 2^53 the literal was already rounded when read: say what is allowed, not the rounded number alone
      return Number.isInteger(value)
        ? `the integer is too large: a filter compares integers from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`
        : `${value} is not an integer`;
    case 'duration':
      return typeof value === 'string' && Number.isNaN(parseDurationSeconds(value)) ? `"${value}" is not a duration` : undefined;
    default:
      return Number.isFinite(value) || typeof value !== 'number' ? undefined : `${value} is not a finite number`;
  }
}
