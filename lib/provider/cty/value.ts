/**
 * cty values as the provider holds them: `null`, {@link UNKNOWN}, strings, booleans, exact {@link CtyNumber}s,
 * arrays (list, set, tuple), plain objects (object, map) and {@link CtyDynamic} for dynamically typed values.
 * The meaning of an array or object comes from the value's {@link CtyType}, which always travels alongside.
 */
import { CtyNumber } from './number';
import { typeEquals, type CtyType } from './types';

/** A value not known until apply. */
export const UNKNOWN: unique symbol = Symbol.for('agentplatform.cty.unknown');
/** The type of {@link UNKNOWN}. */
export type Unknown = typeof UNKNOWN;

/** A value of `dynamic` type: the concrete type travels with it. */
export class CtyDynamic {
  constructor(
    /** The concrete type of `value`. */
    readonly type: CtyType,
    /** The value. */
    readonly value: CtyValue,
  ) {}
}

/** A cty value; see the module comment for the representation. */
export type CtyValue =
  | null
  | Unknown
  | string
  | boolean
  | CtyNumber
  | CtyDynamic
  | readonly CtyValue[]
  | { readonly [key: string]: CtyValue };

/** An object or map value. */
export type CtyObject = { readonly [key: string]: CtyValue };

/** Builds an object without letting keys such as `__proto__` touch its prototype. */
export function objectFrom(entries: Iterable<readonly [string, CtyValue]>): CtyObject {
  const out: Record<string, CtyValue> = {};
  // Only `__proto__` is an accessor on Object.prototype; any other key assigned becomes an own property, and plain
  // assignment keeps the object in V8's fast mode where defineProperty on every key did not.
  for (const [k, v] of entries) {
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** Whether a value is known (it may still contain unknown parts). */
export function isKnown<T>(value: T | Unknown): value is T {
  return value !== UNKNOWN;
}

/** Whether a value and everything inside it is known. */
export function isWhollyKnown(value: CtyValue): boolean {
  if (value === UNKNOWN) return false;
  if (value === null || typeof value !== 'object' || value instanceof CtyNumber) return true;
  if (value instanceof CtyDynamic) return isWhollyKnown(value.value);
  const items: readonly CtyValue[] = Array.isArray(value) ? value : Object.values(value);
  return items.every(isWhollyKnown);
}

/**
 * Exact equality of two values of `type`. Sets compare regardless of order; numbers exactly; an unknown equals only
 * an unknown.
 */
export function valueEquals(a: CtyValue, b: CtyValue, type: CtyType): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === UNKNOWN || b === UNKNOWN) return false;
  switch (type.kind) {
    case 'string':
    case 'bool':
      return false;
    case 'number':
      return a instanceof CtyNumber && b instanceof CtyNumber && a.equals(b);
    case 'dynamic':
      return (
        a instanceof CtyDynamic &&
        b instanceof CtyDynamic &&
        typeEquals(a.type, b.type) &&
        valueEquals(a.value, b.value, a.type)
      );
    case 'list':
    case 'tuple': {
      const x = a as readonly CtyValue[];
      const y = b as readonly CtyValue[];
      const elementType = (i: number): CtyType => (type.kind === 'tuple' ? type.elements[i]! : type.element);
      return x.length === y.length && x.every((v, i) => valueEquals(v, y[i]!, elementType(i)));
    }
    case 'set': {
      const x = a as readonly CtyValue[];
      const unmatched = [...(b as readonly CtyValue[])];
      if (x.length !== unmatched.length) return false;
      return x.every((v) => {
        const i = unmatched.findIndex((w) => valueEquals(v, w, type.element));
        if (i < 0) return false;
        unmatched.splice(i, 1);
        return true;
      });
    }
    case 'map': {
      const x = a as CtyObject;
      const y = b as CtyObject;
      const keys = Object.keys(x);
      return keys.length === Object.keys(y).length && keys.every((k) => k in y && valueEquals(x[k]!, y[k]!, type.element));
    }
    case 'object': {
      const x = a as CtyObject;
      const y = b as CtyObject;
      return Object.entries(type.attributes).every(([k, t]) => valueEquals(x[k] ?? null, y[k] ?? null, t));
    }
  }
}

/** The value with every unknown part replaced by null (new state may not contain unknowns). */
export function unknownsToNull(value: CtyValue): CtyValue {
  if (value === UNKNOWN) return null;
  if (value === null || typeof value !== 'object' || value instanceof CtyNumber) return value;
  if (value instanceof CtyDynamic) return new CtyDynamic(value.type, unknownsToNull(value.value));
  if (Array.isArray(value)) return (value as readonly CtyValue[]).map(unknownsToNull);
  return objectFrom(Object.entries(value).map(([k, v]) => [k, unknownsToNull(v)]));
}
