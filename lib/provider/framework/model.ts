/**
 * Conversion between cty values and the plain TypeScript models handlers work with: numbers become JavaScript
 * numbers, unknown stays {@link UNKNOWN} (or becomes null where handlers only fill in results), collections become
 * arrays and records. Going back, a handler's model is checked against the type, so a wrong value is reported with
 * its path instead of reaching terraform.
 */
import { CtyNumber } from '../cty/number';
import { typeName, type CtyType } from '../cty/types';
import { CtyDynamic, objectFrom, UNKNOWN, type CtyObject, type CtyValue } from '../cty/value';

/** A model value that does not fit its attribute. */
export class ModelError extends Error {}

/** What unknown values become in a model. */
export type UnknownMode = 'keep' | 'null';

/** A cty value of `type` as a plain model. */
export function toModel(value: CtyValue, type: CtyType, unknown: UnknownMode): unknown {
  if (value === null) return null;
  if (value === UNKNOWN) return unknown === 'keep' ? UNKNOWN : null;
  switch (type.kind) {
    case 'number':
      return (value as CtyNumber).toNumber();
    case 'list':
    case 'set':
      return (value as readonly CtyValue[]).map((v) => toModel(v, type.element, unknown));
    case 'tuple':
      return (value as readonly CtyValue[]).map((v, i) => toModel(v, type.elements[i]!, unknown));
    case 'map':
      return objectFrom(Object.entries(value as CtyObject).map(([k, v]) => [k, toModel(v, type.element, unknown) as CtyValue]));
    case 'object':
      return objectFrom(
        Object.entries(type.attributes).map(([k, t]) => [k, toModel((value as CtyObject)[k] ?? null, t, unknown) as CtyValue]),
      );
    default:
      return value;
  }
}

/** A plain model as a cty value of `type`; throws a {@link ModelError} naming the path of a misfit. */
export function fromModel(model: unknown, type: CtyType, path = ''): CtyValue {
  if (model === null || model === undefined) return null;
  if (model === UNKNOWN) return UNKNOWN;
  const fail = (): never => {
    throw new ModelError(`${path || 'value'}: expected ${typeName(type)}, got ${describe(model)}`);
  };
  const at = (key: string | number): string =>
    typeof key === 'number' ? `${path}[${key}]` : type.kind === 'object' ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
  switch (type.kind) {
    case 'string':
      return typeof model === 'string' ? model : fail();
    case 'bool':
      return typeof model === 'boolean' ? model : fail();
    case 'number':
      if (model instanceof CtyNumber) return model;
      if (typeof model === 'bigint') return CtyNumber.fromBigInt(model);
      return typeof model === 'number' && Number.isFinite(model) ? CtyNumber.fromNumber(model) : fail();
    case 'list':
    case 'set':
      return Array.isArray(model) ? model.map((v, i) => fromModel(v, type.element, at(i))) : fail();
    case 'tuple':
      return Array.isArray(model) && model.length === type.elements.length
        ? model.map((v, i) => fromModel(v, type.elements[i]!, at(i)))
        : fail();
    case 'map':
      if (!isRecord(model)) return fail();
      return objectFrom(Object.entries(model).map(([k, v]) => [k, fromModel(v, type.element, at(k))]));
    case 'object': {
      if (!isRecord(model)) return fail();
      const extra = Object.keys(model).find((k) => !(k in type.attributes) && model[k] !== undefined);
      if (extra !== undefined) throw new ModelError(`${at(extra)}: no such attribute`);
      return objectFrom(Object.entries(type.attributes).map(([k, t]) => [k, fromModel(model[k], t, at(k))]));
    }
    case 'dynamic':
      return model instanceof CtyDynamic ? model : fail();
  }
}

/**
 * Where a handler's number equals the reference's as a float64, keeps the reference's exact value: a handler echoing
 * `0.1` from an API must not turn the configuration's exact one tenth into its float64 neighbour.
 */
export function reconcileNumbers(next: CtyValue, reference: CtyValue, type: CtyType): CtyValue {
  if (next === null || reference === null || next === UNKNOWN || reference === UNKNOWN) return next;
  switch (type.kind) {
    case 'number': {
      const a = next as CtyNumber;
      const b = reference as CtyNumber;
      return !a.equals(b) && a.toNumber() === b.toNumber() ? b : next;
    }
    case 'list': {
      const ref = reference as readonly CtyValue[];
      return (next as readonly CtyValue[]).map((v, i) => (i < ref.length ? reconcileNumbers(v, ref[i]!, type.element) : v));
    }
    case 'map':
    case 'object': {
      const ref = reference as CtyObject;
      const typeOf = (k: string): CtyType | undefined => (type.kind === 'object' ? type.attributes[k] : type.element);
      return objectFrom(
        Object.entries(next as CtyObject).map(([k, v]) => {
          const t = typeOf(k);
          return [k, t && k in ref ? reconcileNumbers(v, ref[k]!, t) : v];
        }),
      );
    }
    default:
      return next;
  }
}

function isRecord(model: unknown): model is Record<string, unknown> {
  return typeof model === 'object' && model !== null && !Array.isArray(model) && !(model instanceof CtyNumber);
}

/** The kind of a misfit value, never the value itself (it may be a secret). */
function describe(model: unknown): string {
  if (Array.isArray(model)) return 'an array';
  return typeof model === 'object' ? 'an object' : `a ${typeof model}`;
}
