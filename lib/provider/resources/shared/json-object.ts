/**
 * Free-form JSON objects as string attributes (an assistant's `config`, a cron's `input`: `jsonencode({...})`), the
 * way Terraform providers take documents that have no fixed schema: the attribute holds JSON text, and two texts of
 * the same object (keys in another order, other spacing, `1.0` for `1`) are the same value, so that an unchanged
 * object plans nothing, neither a refresh nor an import plans a change that is none, and the state keeps the
 * configured text.
 */
import { attr } from '../../framework';
import { canonicalJson } from './unanswered-create';

/** The object a JSON text holds, or undefined when it is not the text of a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The error of a text that is not a JSON object (for an attribute's `validate`). */
export function jsonObjectProblem(text: string): string | undefined {
  return parseJsonObject(text) === undefined ? 'must be a JSON object: write it with `jsonencode({ key = "value" })`.' : undefined;
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

/** JSON text with object keys sorted, as `jsonencode` writes an object. */
export function jsonText(value: unknown): string {
  return canonicalJson(value);
}

/** An optional attribute holding a JSON object; `description` says what the object is. */
export function jsonObjectAttribute<const D extends string>(description: D) {
  return attr.string({ optional: true, sameValue: sameJson, validate: jsonObjectProblem, description });
}
