/**
 * The `select` of thread reads, as the LangGraph server takes it: the fields to answer, the others left out; in a
 * state, `values.<key>` answers that key of the values alone.
 */
import type { RequestValidator } from '../../validation';

type Loc = (string | number)[];

const VALUES_KEY = 'values.';

/** A 422 item at each selected field that is not one of `fields` (nor, when `valueKeys`, a `values.<key>`). */
export function checkSelection(
  validator: RequestValidator,
  select: readonly string[] | null | undefined,
  fields: readonly string[],
  loc: Loc,
  valueKeys: boolean,
): void {
  for (const [index, field] of (select ?? []).entries()) {
    if (fields.includes(field) || (valueKeys && field.startsWith(VALUES_KEY) && field.length > VALUES_KEY.length)) continue;
    const expected = fields.map((name) => `'${name}'`).join(', ');
    validator.add([...loc, index], 'enum', `Input should be ${expected}${valueKeys ? " or 'values.<key>'" : ''}`);
  }
}

/** The selected fields of an object (all of it when nothing is selected). */
export function selectFields(item: object, select: readonly string[] | null | undefined): Record<string, unknown> {
  const source = item as Record<string, unknown>;
  if (!select?.length) return source;
  const answer: Record<string, unknown> = {};
  for (const field of select) if (!field.startsWith(VALUES_KEY) && field in source) answer[field] = source[field];
  const valueKeys = select.filter((field) => field.startsWith(VALUES_KEY)).map((field) => field.slice(VALUES_KEY.length));
  if (valueKeys.length > 0 && !('values' in answer)) {
    const values = (source.values ?? {}) as Record<string, unknown>;
    answer.values = Object.fromEntries(valueKeys.filter((key) => Object.hasOwn(values, key)).map((key) => [key, values[key]]));
  }
  return answer;
}
