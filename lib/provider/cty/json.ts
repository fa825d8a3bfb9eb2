/**
 * The JSON encoding of cty values, as stored in state files and sent in `UpgradeResourceState.raw_state.json`.
 * Parsed by hand because `JSON.parse` rounds numbers to float64: state numbers must come back exactly.
 */
import { CtyNumber } from './number';
import { typeFromJson, typeName, type CtyType } from './types';
import { CtyDynamic, objectFrom, type CtyValue } from './value';

/** Parsed JSON whose numbers are exact {@link CtyNumber}s. */
export type ExactJson = null | boolean | string | CtyNumber | ExactJson[] | { [key: string]: ExactJson };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;

/** Parses JSON text, keeping every number exact. */
export function parseExactJson(text: string): ExactJson {
  let pos = 0;
  const skipSpace = (): void => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at offset ${pos}: ${what}`);
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return undefined;
    pos += m[0].length;
    return m[0];
  };
  const value = (): ExactJson => {
    skipSpace();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: [string, ExactJson][] = [];
      skipSpace();
      if (text[pos] === '}') return pos++, {};
      for (;;) {
        skipSpace();
        const key = match(STRING) ?? fail('expected a string key');
        skipSpace();
        if (text[pos++] !== ':') fail('expected ":"');
        entries.push([JSON.parse(key) as string, value()]);
        skipSpace();
        const next = text[pos++];
        if (next === '}') return objectFrom(entries as [string, never][]) as { [key: string]: ExactJson };
        if (next !== ',') fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      pos++;
      const items: ExactJson[] = [];
      skipSpace();
      if (text[pos] === ']') return pos++, items;
      for (;;) {
        items.push(value());
        skipSpace();
        const next = text[pos++];
        if (next === ']') return items;
        if (next !== ',') fail('expected "," or "]"');
      }
    }
    if (c === '"') return JSON.parse(match(STRING) ?? fail('bad string')) as string;
    for (const [word, result] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) return (pos += word.length), result;
    }
    const number = match(NUMBER);
    return number !== undefined ? CtyNumber.parse(number) : fail('unexpected character');
  };
  const result = value();
  skipSpace();
  if (pos !== text.length) fail('trailing characters');
  return result;
}

/**
 * Converts parsed state JSON to a value of `type`. Attributes missing from an object become null; attributes the
 * type does not have are dropped (state written by an older schema).
 */
export function fromStateJson(json: ExactJson | undefined, type: CtyType, path = ''): CtyValue {
  if (json === null || json === undefined) return null;
  const fail = (): never => {
    throw new TypeError(`${path || 'state'}: expected ${typeName(type)} in the stored state`);
  };
  switch (type.kind) {
    case 'string':
      return typeof json === 'string' ? json : fail();
    case 'bool':
      return typeof json === 'boolean' ? json : fail();
    case 'number':
      if (json instanceof CtyNumber) return json;
      return typeof json === 'string' ? CtyNumber.parse(json) : fail();
    case 'list':
    case 'set':
      return Array.isArray(json) ? json.map((v, i) => fromStateJson(v, type.element, `${path}[${i}]`)) : fail();
    case 'tuple':
      return Array.isArray(json) ? json.map((v, i) => fromStateJson(v, type.elements[i]!, `${path}[${i}]`)) : fail();
    case 'map':
      if (!isJsonObject(json)) return fail();
      return objectFrom(Object.entries(json).map(([k, v]) => [k, fromStateJson(v, type.element, `${path}["${k}"]`)]));
    case 'object': {
      if (!isJsonObject(json)) return fail();
      const attrs = Object.entries(type.attributes);
      return objectFrom(attrs.map(([k, t]) => [k, fromStateJson(json[k], t, path ? `${path}.${k}` : k)]));
    }
    case 'dynamic': {
      if (!isJsonObject(json) || !('type' in json)) return fail();
      const concrete = typeFromJson(plainJson(json.type));
      return new CtyDynamic(concrete, fromStateJson(json.value, concrete, path));
    }
  }
}

/** Whether parsed JSON is an object. */
export function isJsonObject(json: ExactJson | undefined): json is { [key: string]: ExactJson } {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && !(json instanceof CtyNumber);
}

function plainJson(json: ExactJson | undefined): unknown {
  if (json instanceof CtyNumber) return json.toNumber();
  if (Array.isArray(json)) return json.map(plainJson);
  if (isJsonObject(json)) return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, plainJson(v)]));
  return json;
}
