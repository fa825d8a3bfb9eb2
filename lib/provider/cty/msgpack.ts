/**
 * The msgpack encoding of cty values (`DynamicValue.msgpack`), read and written against a known type:
 * - unknown is extension 0 (`d4 00 00`); a refined unknown (extension 0x0c with its refinements) and any other
 *   extension decode as plain unknown, which terraform accepts back;
 * - numbers are ints, float64s or decimal strings (see {@link CtyNumber.toMsgpack}), and are decoded exactly;
 * - objects are maps carrying every attribute of the type (a missing one is written as nil, or terraform refuses
 *   the object); lists, sets and tuples are arrays; maps are maps;
 * - a `dynamic` value is the pair `[type as JSON bytes, value]`.
 */
import { decode, encode, ExtData } from '@msgpack/msgpack';
import { CtyNumber } from './number';
import { typeFromJson, typeToJson, typeName, type CtyType } from './types';
import { CtyDynamic, objectFrom, UNKNOWN, type CtyObject, type CtyValue } from './value';

const UNKNOWN_EXT = new ExtData(0, new Uint8Array([0]));

/** A value that does not match its type, with the path to the offending part. */
export class CtyDecodeError extends Error {}

/**
 * Map keys are decoded with a mark in front, so that none is `__proto__`, which the msgpack library refuses
 * ("The key __proto__ is not allowed") and a map of user data may hold (an environment variable of that name, say);
 * {@link fromRaw} reads them without it.
 */
const KEY_MARK = '#';
const MARKED_KEYS = {
  canBeCached: (): boolean => true,
  decode: (bytes: Uint8Array, offset: number, length: number): string =>
    KEY_MARK + Buffer.from(bytes.buffer, bytes.byteOffset + offset, length).toString('utf8'),
};

/** Decodes msgpack bytes as a value of `type`. */
export function decodeMsgpack(bytes: Uint8Array, type: CtyType): CtyValue {
  if (bytes.length === 0) return null;
  return fromRaw(decode(bytes, { useBigInt64: true, keyDecoder: MARKED_KEYS }), type, '');
}

/** Encodes a value of `type` as msgpack. */
export function encodeMsgpack(value: CtyValue, type: CtyType): Uint8Array {
  return encode(toRaw(value, type, ''), { useBigInt64: true, ignoreUndefined: false });
}

function fail(path: string, expected: string, raw: unknown): never {
  const got = raw === null ? 'nil' : Array.isArray(raw) ? 'array' : typeof raw;
  throw new CtyDecodeError(`${path || 'value'}: expected ${expected}, got ${got}`);
}

function fromRaw(raw: unknown, type: CtyType, path: string): CtyValue {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof ExtData || raw instanceof Date) return UNKNOWN;
  switch (type.kind) {
    case 'string':
      return typeof raw === 'string' ? raw : fail(path, 'string', raw);
    case 'bool':
      return typeof raw === 'boolean' ? raw : fail(path, 'bool', raw);
    case 'number':
      if (typeof raw === 'bigint') return CtyNumber.fromBigInt(raw);
      if (typeof raw === 'number') return Number.isInteger(raw) ? CtyNumber.fromBigInt(BigInt(raw)) : CtyNumber.fromExactDouble(raw);
      if (typeof raw === 'string') return CtyNumber.parse(raw);
      return fail(path, 'number', raw);
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) return fail(path, typeName(type), raw);
      return raw.map((item, i) => fromRaw(item, type.element, `${path}[${i}]`));
    case 'tuple':
      if (!Array.isArray(raw) || raw.length !== type.elements.length) return fail(path, 'tuple', raw);
      return raw.map((item, i) => fromRaw(item, type.elements[i]!, `${path}[${i}]`));
    case 'map':
      if (!isRecord(raw)) return fail(path, typeName(type), raw);
      return objectFrom(
        Object.entries(raw).map(([marked, v]) => {
          const k = marked.slice(KEY_MARK.length);
          return [k, fromRaw(v, type.element, `${path}[${JSON.stringify(k)}]`)];
        }),
      );
    case 'object': {
      if (!isRecord(raw)) return fail(path, 'object', raw);
      const attrs = Object.entries(type.attributes);
      return objectFrom(attrs.map(([k, t]) => [k, fromRaw(raw[KEY_MARK + k], t, path ? `${path}.${k}` : k)]));
    }
    case 'dynamic': {
      if (!Array.isArray(raw) || raw.length !== 2) return fail(path, 'dynamic value [type, value]', raw);
      const [typeBytes, inner] = raw as [unknown, unknown];
      const json = typeof typeBytes === 'string' ? typeBytes : Buffer.from(typeBytes as Uint8Array).toString('utf8');
      const concrete = typeFromJson(JSON.parse(json));
      return new CtyDynamic(concrete, fromRaw(inner, concrete, path));
    }
  }
}

function isRecord(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !(raw instanceof Uint8Array);
}

function toRaw(value: CtyValue, type: CtyType, path: string): unknown {
  if (value === null) return null;
  if (value === UNKNOWN) return UNKNOWN_EXT;
  const wrong = (expected: string): never => {
    throw new TypeError(`${path || 'value'}: expected ${expected}, got ${describe(value)}`);
  };
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : wrong('string');
    case 'bool':
      return typeof value === 'boolean' ? value : wrong('bool');
    case 'number':
      return value instanceof CtyNumber ? value.toMsgpack() : wrong('number');
    case 'list':
    case 'set':
      if (!Array.isArray(value)) return wrong(typeName(type));
      return (value as CtyValue[]).map((v, i) => toRaw(v, type.element, `${path}[${i}]`));
    case 'tuple':
      if (!Array.isArray(value)) return wrong('tuple');
      return (value as CtyValue[]).map((v, i) => toRaw(v, type.elements[i]!, `${path}[${i}]`));
    case 'map':
      if (!isPlainObject(value)) return wrong(typeName(type));
      return objectFrom(Object.entries(value).map(([k, v]) => [k, toRaw(v, type.element, `${path}[${JSON.stringify(k)}]`) as CtyValue]));
    case 'object': {
      if (!isPlainObject(value)) return wrong('object');
      const attrs = Object.entries(type.attributes);
      return objectFrom(attrs.map(([k, t]) => [k, toRaw(value[k] ?? null, t, path ? `${path}.${k}` : k) as CtyValue]));
    }
    case 'dynamic':
      if (!(value instanceof CtyDynamic)) return wrong('dynamic value');
      return [new TextEncoder().encode(JSON.stringify(typeToJson(value.type))), toRaw(value.value, value.type, path)];
  }
}

function isPlainObject(value: CtyValue): value is CtyObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof CtyNumber) && !(value instanceof CtyDynamic);
}

function describe(value: CtyValue): string {
  if (value instanceof CtyNumber) return 'number';
  if (value instanceof CtyDynamic) return 'dynamic value';
  return Array.isArray(value) ? 'array' : typeof value;
}
