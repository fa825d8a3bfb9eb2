/**
 * Reading the platform's answers into state, tolerantly. A field an answer leaves out keeps the value the plan or
 * the prior state has for it ({@link given}); a value the platform writes otherwise than the configuration (a
 * trailing slash, an instant in another notation, a list in another order) keeps the configured or prior form
 * ({@link keepEquivalent}), so an apply never ends in "Provider produced inconsistent result", nor a refresh in a
 * change that is none.
 */
import { UNKNOWN, objectFrom, valueEquals, type CtyObject, type CtyValue } from '../cty/value';
import type { CtyType } from '../cty/types';
import type { Attribute, Attributes } from './schema';

/** The answer's value; `kept` (the planned or prior one) when the answer leaves the field out. A null answer stays null. */
export function given<T>(answered: T | undefined, kept: T): T {
  return answered === undefined ? kept : answered;
}

/**
 * `next` (a handler's new state) with every value that means the same as `reference`'s (the plan, or the prior
 * state) replaced by `reference`'s: strings that the attribute's `sameValue` calls equal, and the lists of an
 * `unordered` attribute that hold the same elements. Numbers are reconciled apart (see `reconcileNumbers`).
 */
export function keepEquivalent(attributes: Attributes, next: CtyValue, reference: CtyValue): CtyValue {
  if (!isObject(next) || !isObject(reference)) return next;
  return objectFrom(
    Object.entries(next).map(([name, value]): [string, CtyValue] => {
      const attribute = attributes[name];
      return [name, attribute ? keepAttribute(attribute, value, reference[name] ?? null) : value];
    }),
  );
}

function keepAttribute(a: Attribute, next: CtyValue, reference: CtyValue): CtyValue {
  if (next === null || reference === null || next === UNKNOWN || reference === UNKNOWN || next === reference) return next;
  switch (a.kind) {
    case 'string':
      return typeof next === 'string' && typeof reference === 'string' && a.sameValue?.(reference, next) ? reference : next;
    case 'list':
      return a.unordered && sameElements(next, reference, a.element.cty) ? reference : next;
    case 'nested':
    case 'block':
      return a.nesting === 'single' ? keepEquivalent(a.attributes, next, reference) : next;
    default:
      return next;
  }
}

/** Whether two lists hold the same elements, each as often, in any order. */
export function sameElements(a: CtyValue, b: CtyValue, element: CtyType): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const left = [...(b as readonly CtyValue[])];
  return (a as readonly CtyValue[]).every((item) => {
    const at = left.findIndex((other) => valueEquals(item, other, element));
    if (at < 0) return false;
    left.splice(at, 1);
    return true;
  });
}

/** Whether a value is an object or map (numbers and dynamic values are class instances, lists arrays). */
const isObject = (value: CtyValue): value is CtyObject =>
  value !== null && value !== UNKNOWN && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
