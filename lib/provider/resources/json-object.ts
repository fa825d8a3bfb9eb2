/**
 * Free-form JSON objects as string attributes (`config = jsonencode({...})`), the way Terraform providers take
 * documents that have no fixed schema: the attribute holds JSON text, and two texts of the same object (keys in
 * another order, other spacing, `1.0` for `1`) are the same value, so that an unchanged object plans nothing and the
 * state keeps the configured text.
 */
import { canonicalJson } from './unanswered-create';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The object a JSON text holds, or undefined when it is not the text of a JSON object. */
export function parseJsonObject(text: string): Record<string, Json> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Json>) : undefined;
}

/** The error of a text that is not a JSON object (for an attribute's `validate`). */
export function jsonObjectProblem(text: string): string | undefined {
  return parseJsonObject(text) === undefined ? 'must be a JSON object, e.g. `jsonencode({ key = "value" })`.' : undefined;
}

/** Whether two JSON texts hold the same value; a text that is not JSON equals only itself. */
export function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
  } catch {
    return false;
  }
}
