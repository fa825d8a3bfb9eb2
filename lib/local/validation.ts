/**
 * Request validation with FastAPI's (pydantic v2) error items, so clients see the same `loc`/`msg`/`type` the real
 * platform sends. Problems are collected and thrown together as one 422.
 */
import type { z } from 'zod';
import type { ValidationErrorItem } from '../api/schemas/control-plane';
import { RequestValidationError } from './errors';
import { NOT_AN_OBJECT } from './json-body';

export { MAX_REQUEST_BODY_BYTES, isJsonContentType, readJsonBody, type JsonBodyOptions } from './json-body';

type Loc = (string | number)[];

const quote = (values: readonly unknown[]): string => {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
};

/** The pydantic message of an enum mismatch: "Input should be 'a', 'b' or 'c'". */
export const enumMessage = (values: readonly unknown[]): string => `Input should be ${quote(values)}`;

/** Why `raw` is not a uuid, in pydantic's words, or undefined when it is one. */
function uuidProblem(raw: string): string | undefined {
  const bad = /[^0-9a-fA-F-]/.exec(raw);
  if (bad) {
    return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${
      bad[0]
    }\` at ${bad.index + 1}`;
  }
  if (!raw.includes('-')) {
    return raw.length === 32 ? undefined : `invalid length: expected length 32 for simple format, found ${raw.length}`;
  }
  const groups = raw.split('-');
  if (groups.length !== 5) return `invalid group count: expected 5, found ${groups.length}`;
  const expected = [8, 4, 4, 4, 12];
  const wrong = groups.findIndex((group, i) => group.length !== expected[i]);
  return wrong < 0
    ? undefined
    : `invalid group length in group ${wrong}: expected ${expected[wrong]}, found ${groups[wrong].length}`;
}

/**
 * The message of a value that is not a uuid, as pydantic words it for a path parameter. A body id is read in the
 * hyphenated form only: one in the simple form (32 digits) or with the `urn:uuid:` prefix is told so.
 */
function uuidMessage(raw: string, place: 'path' | 'body'): string {
  const bare = /^urn:uuid:/i.test(raw) ? raw.slice('urn:uuid:'.length) : raw;
  const hyphenated = `invalid format: expected the hyphenated form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, found \`${raw}\``;
  // hex digits without a hyphen: the simple form's length would be no help, as a body takes the hyphenated form only
  const problem = place === 'body' && /^[0-9a-fA-F]*$/.test(bare) ? hyphenated : (uuidProblem(bare) ?? hyphenated);
  return `Input should be a valid UUID, ${problem}`;
}

/** A uuid already in canonical form, which is what clients send: checked with one test instead of the diagnosis. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The canonical (lower-case, hyphenated) form of a uuid in simple or hyphenated form. */
const canonicalUuid = (raw: string): string => {
  const hex = raw.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const BOOL_TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const BOOL_FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** Collects validation problems of one request and throws them as one 422. */
export class RequestValidator {
  private readonly items: ValidationErrorItem[] = [];

  /** Records one problem. */
  add(loc: Loc, type: string, msg: string): void {
    this.items.push({ loc, msg, type });
  }

  /** A uuid path parameter; returns its canonical form, or '' after recording `uuid_parsing`. */
  uuidPath(name: string, raw: string): string {
    if (CANONICAL_UUID.test(raw)) return raw;
    // the prefix the message offers, as pydantic takes it
    const bare = /^urn:uuid:/i.test(raw) ? raw.slice('urn:uuid:'.length) : raw;
    if (uuidProblem(bare) === undefined) return canonicalUuid(bare);
    this.add(['path', name], 'uuid_parsing', uuidMessage(raw, 'path'));
    return '';
  }

  /** An integer query parameter within `[min, max]`, `fallback` when absent. */
  intQuery(name: string, raw: string | undefined, bounds: { min?: number; max?: number; fallback: number }): number {
    if (raw === undefined) return bounds.fallback;
    const loc = ['query', name];
    if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
      this.add(loc, 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
      return bounds.fallback;
    }
    const value = Number(raw);
    if (bounds.min !== undefined && value < bounds.min) {
      this.add(loc, 'greater_than_equal', `Input should be greater than or equal to ${bounds.min}`);
    } else if (bounds.max !== undefined && value > bounds.max) {
      this.add(loc, 'less_than_equal', `Input should be less than or equal to ${bounds.max}`);
    }
    return value;
  }

  /** A boolean query parameter as pydantic reads one (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, ...). */
  boolQuery(name: string, raw: string | undefined): boolean | undefined {
    if (raw === undefined) return undefined;
    const word = raw.trim().toLowerCase();
    if (BOOL_TRUE.has(word)) return true;
    if (BOOL_FALSE.has(word)) return false;
    this.add(['query', name], 'bool_parsing', 'Input should be a valid boolean, unable to interpret input');
    return undefined;
  }

  /** A comma-separated list whose items must belong to `allowed`; empty items are ignored. */
  enumListQuery<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T[] | undefined {
    if (raw === undefined) return undefined;
    const values = raw
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    const unknown = values.filter((v) => !(allowed as readonly string[]).includes(v));
    for (const value of unknown) {
      this.add(['query', name], 'enum', `${enumMessage(allowed)}; got '${value}'`);
    }
    return values.length === 0 ? undefined : (values as T[]);
  }

  /** Parses `input` with a zod schema, recording every issue under `loc` (for a body: `['body']`). */
  parse<S extends z.ZodType>(schema: S, input: unknown, loc: Loc): z.infer<S> | undefined {
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    for (const issue of result.error.issues) this.items.push(...issueToItems(issue, loc, input, schema));
    return undefined;
  }

  /** True when a problem was recorded. */
  get failed(): boolean {
    return this.items.length > 0;
  }

  /** Throws the collected problems, if any; else returns `value` (the result of a `parse` that recorded nothing). */
  valid<T>(value: T | undefined): T {
    this.throwIfFailed();
    return value as T;
  }

  /** Throws the collected problems as a 422, if any. */
  throwIfFailed(): void {
    if (this.items.length > 0) throw new RequestValidationError([...this.items]);
  }
}

const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (node, key) => (node !== null && typeof node === 'object' ? (node as never)[key] : undefined),
    input,
  );

const TYPE_ERRORS: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  array: ['list_type', 'Input should be a valid list'],
  record: ['dict_type', 'Input should be a valid dictionary'],
  object: NOT_AN_OBJECT,
};

/** Whether the object at the parent of `path` has the last key of `path` (an explicit null or undefined counts). */
function hasKeyAt(input: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return input !== undefined;
  const parent = valueAt(input, path.slice(0, -1));
  return typeof parent === 'object' && parent !== null && Object.prototype.hasOwnProperty.call(parent, path[path.length - 1]!);
}

type SchemaDef = { type?: string; innerType?: unknown; shape?: Record<string, unknown>; element?: unknown; valueType?: unknown };
const defOf = (schema: unknown): SchemaDef | undefined => (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;

/** A schema without its optional, nullable and default wrappers. */
function unwrapped(schema: unknown): unknown {
  let current = schema;
  for (let def = defOf(current); def && ['optional', 'nullable', 'default', 'prefault'].includes(def.type ?? ''); def = defOf(current)) {
    current = def.innerType;
  }
  return current;
}

/** The schema of the value at `path` of what `schema` parses (objects, arrays, records), when it can be told. */
function schemaAt(schema: unknown, path: readonly PropertyKey[]): unknown {
  let current = unwrapped(schema);
  for (const key of path) {
    const def = defOf(current);
    if (def?.type === 'object') current = def.shape?.[String(key)];
    else if (def?.type === 'array') current = def.element;
    else if (def?.type === 'record') current = def.valueType;
    else return undefined;
    current = unwrapped(current);
  }
  return current;
}

const isIntegerSchema = (schema: unknown): boolean => (schema as { isInt?: boolean } | undefined)?.isInt === true;

/** Maps one zod issue to pydantic-style items (zod reports several unknown keys in one issue). */
function issueToItems(issue: z.core.$ZodIssue, prefix: Loc, input: unknown, schema?: z.ZodType): ValidationErrorItem[] {
  const loc: Loc = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  const item = (type: string, msg: string, at: Loc = loc): ValidationErrorItem => ({ loc: at, msg, type });
  switch (issue.code) {
    case 'invalid_type': {
      const value = valueAt(input, issue.path);
      if (value === undefined) return [item('missing', 'Field required')];
      if (issue.expected === 'int' && typeof value === 'number') {
        return [item('int_from_float', 'Input should be a valid integer, got a number with a fractional part')];
      }
      // zod says `number` for an integer field too; pydantic names the integer
      const expected = issue.expected === 'number' && isIntegerSchema(schemaAt(schema, issue.path)) ? 'int' : issue.expected;
      const [type, msg] = TYPE_ERRORS[expected] ?? ['type_error', `Input should be a valid ${expected}`];
      return [item(type, msg)];
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = Number(small ? (issue as { minimum: unknown }).minimum : (issue as { maximum: unknown }).maximum);
      if (issue.origin === 'string') {
        const unit = bound === 1 ? 'character' : 'characters';
        return small
          ? [item('string_too_short', `String should have at least ${bound} ${unit}`)]
          : [item('string_too_long', `String should have at most ${bound} ${unit}`)];
      }
      if (issue.origin === 'array') {
        return small
          ? [item('too_short', `List should have at least ${bound} items`)]
          : [item('too_long', `List should have at most ${bound} items`)];
      }
      const words = small ? 'greater than' : 'less than';
      return issue.inclusive
        ? [item(small ? 'greater_than_equal' : 'less_than_equal', `Input should be ${words} or equal to ${bound}`)]
        : [item(small ? 'greater_than' : 'less_than', `Input should be ${words} ${bound}`)];
    }
    case 'invalid_value':
      // an absent field is missing, whatever values it would take
      if (valueAt(input, issue.path) === undefined && !hasKeyAt(input, issue.path)) return [item('missing', 'Field required')];
      return [item('enum', enumMessage(issue.values))];
    case 'unrecognized_keys':
      return issue.keys.map((key) => item('extra_forbidden', 'Extra inputs are not permitted', [...loc, key]));
    case 'invalid_union':
      // an absent field is missing, whatever kinds of value it would take
      if (valueAt(input, issue.path) === undefined && !hasKeyAt(input, issue.path)) return [item('missing', 'Field required')];
      return unionToItems(issue as z.core.$ZodIssueInvalidUnion, loc, valueAt(input, issue.path));
    case 'invalid_format':
      if (issue.format === 'guid' || issue.format === 'uuid') return [item('uuid_parsing', uuidMessage(String(valueAt(input, issue.path)), 'body'))];
      // a pattern with a message of its own says what it wants in words (zod's default message shows the pattern)
      if (issue.format === 'regex' && !issue.message.startsWith('Invalid string')) return [item('string_pattern_mismatch', issue.message)];
      return issue.format === 'regex'
        ? [
            item(
              'string_pattern_mismatch',
              `String should match pattern '${String((issue as { pattern?: unknown }).pattern).replace(
                /^\/|\/$/g,
                '',
              )}'`,
            ),
          ]
        : [item('value_error', `Value error, ${issue.message}`)];
    default:
      return [item('value_error', `Value error, ${issue.message}`)];
  }
}

/** Whether a union member's issues say the value is not of that member's kind at all (a string for a list). */
function rejectsKind(issues: readonly z.core.$ZodIssue[], value: unknown): boolean {
  return issues.some(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' ||
        (issue.code === 'invalid_value' && !issue.values.some((allowed) => typeof allowed === typeof value))),
  );
}

/**
 * A value that matches no member of a union: the errors of the member of the value's kind (a bad item of a list,
 * an unknown value of an enum), or, when no single member is of its kind, the errors of every member at the union's
 * place (pydantic lists every member's too, each under a `loc` that ends with the member's type).
 */
function unionToItems(issue: z.core.$ZodIssueInvalidUnion, loc: Loc, value: unknown): ValidationErrorItem[] {
  const ofKind = issue.errors.filter((issues) => !rejectsKind(issues, value));
  const members = ofKind.length === 1 ? ofKind : issue.errors;
  const items = members.flatMap((issues) => issues.flatMap((nested) => issueToItems(nested, loc, value)));
  return items.length > 0 ? items : [{ loc, msg: `Value error, ${issue.message}`, type: 'value_error' }];
}
