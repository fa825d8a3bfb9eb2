/**
 * `search` over documents nested far deeper than any store keeps: the walk has its own stack, so a run's JSON is
 * searched whatever its depth instead of the export failing with a stack overflow.
 */
import { compileFilter, parseFilter, type TraceRunLike } from '../../lib/api/filter';

/** JSON text of `{"a": [[[…"needle"…]]]}` with `depth` arrays, written without recursion. */
const deepDocument = (depth: number, leaf: string): string => `{"a":${'['.repeat(depth)}${JSON.stringify(leaf)}${']'.repeat(depth)}}`;

const finds = (filter: string, run: Record<string, unknown>): boolean => compileFilter(parseFilter(filter))(run as unknown as TraceRunLike);

test('search finds text at the bottom of a document nested 100,000 deep, as text and as a parsed object', () => {
  const text = deepDocument(100_000, 'Deep Needle');
  expect(finds('search("needle")', { inputs: text, name: 'r' })).toBe(true);
  expect(finds('search(inputs, "DEEP")', { inputs: JSON.parse(text) as unknown })).toBe(true);
  expect(finds('search(inputs, "absent")', { inputs: JSON.parse(text) as unknown })).toBe(false);
});

test('search still looks into keys, numbers and booleans, and passes over null', () => {
  const run = { inputs: { outer: [{ Key_Name: null }, 42, [true]] } };
  expect(finds('search(inputs, "key_name")', run)).toBe(true);
  expect(finds('search(inputs, "42")', run)).toBe(true);
  expect(finds('search(inputs, "true")', run)).toBe(true);
  expect(finds('search(inputs, "null")', run)).toBe(false);
});
