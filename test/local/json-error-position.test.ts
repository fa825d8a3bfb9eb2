/** The offset of a JSON mistake, as Python's json module (and so FastAPI's `json_invalid`) reports it. */
import { jsonErrorPosition } from '../../lib/local/json-error-position';

test.each([
  ['{"name": ', 9, 'a value due at the end of a text cut short'],
  ['{"a": tru}', 6, 'the start of a value that is not one'],
  ['[1,]', 3, 'a value due after a comma'],
  ['{"a":1', 6, 'a comma or a closing brace due'],
  ['{"a" 1}', 5, 'a colon due'],
  ['{a: 1}', 1, 'a name that is not a string'],
  ['{"a":1}x', 7, 'text after a whole value'],
  ['"abc', 0, 'a string never closed: its start'],
  ['"a\\qb"', 2, 'a bad escape'],
  ['-', 0, 'a sign without digits'],
  ['', 0, 'nothing at all'],
])('%j: %i (%s)', (text, position) => {
  expect(() => JSON.parse(text)).toThrow();
  expect(jsonErrorPosition(text)).toBe(position);
});

test('valid JSON has no mistake, whatever its shape', () => {
  const samples = [
    '{}',
    ' [ ] ',
    '{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"],"b":{"c":{}}}',
    JSON.stringify({ deep: Array.from({ length: 50 }, (_, i) => ({ i, s: `v${i}`, f: i / 3 })) }),
  ];
  for (const text of samples) expect([text, jsonErrorPosition(text)]).toEqual([text, -1]);
});

test('nesting deeper than the scan goes is reported where it goes deeper, not as a crash', () => {
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  expect(jsonErrorPosition(deep)).toBe(1000);
});
