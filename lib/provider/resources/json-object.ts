/**
 * Free-form JSON objects in a schema (an agent server's `input`, `config`, `metadata`): a string attribute that holds
 * the object as JSON text, written with `jsonencode(...)`. Two texts of the same object (other key order, other
 * spacing) mean the same, so neither a refresh nor an import plans a change that is none.
 */
import { isDeepStrictEqual } from 'node:util';
import { attr } from '../framework';

/** The object a text holds; undefined when it is no JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether two texts hold the same JSON value. */
export function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return isDeepStrictEqual(JSON.parse(a), JSON.parse(b));
  } catch {
    return false;
  }
}

/** JSON text with object keys sorted, as `jsonencode` writes an object. */
export function jsonText(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]));
}

/** An optional attribute holding a JSON object; `description` says what the object is. */
export function jsonObjectAttribute<const D extends string>(description: D) {
  return attr.string({
    optional: true,
    sameValue: sameJson,
    validate: (value) => (parseJsonObject(value) === undefined ? 'must be a JSON object: write it with jsonencode({ ... }).' : undefined),
    description,
  });
}
