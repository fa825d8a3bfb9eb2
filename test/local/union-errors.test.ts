/**
 * 422 items of a value that matches no member of a union, on the run ingestion schema of the tracing API (whose
 * timestamps are a string or a number): an absent field is one `missing`, a value of neither kind gets each member's
 * error, at the field's place in the batch.
 */
import { RunsBatch } from '../../lib/api/schemas/tracing';
import { RequestValidationError } from '../../lib/local/errors';
import { RequestValidator } from '../../lib/local/validation';

/** The 422 items of a body, or none when it is valid. */
function itemsOf(body: unknown): unknown[] {
  const validator = new RequestValidator();
  validator.parse(RunsBatch, body, ['body']);
  try {
    validator.throwIfFailed();
    return [];
  } catch (err) {
    return (err as RequestValidationError).items;
  }
}

const run = { id: '0b1c7e2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d', name: 'n', run_type: 'chain', session_name: 'p' };

test('a run without its start time is one missing field', () => {
  expect(itemsOf({ post: [run] })).toEqual([{ loc: ['body', 'post', 0, 'start_time'], msg: 'Field required', type: 'missing' }]);
});

test('a start time of neither kind gets what each kind expects, at its place in the batch', () => {
  expect(itemsOf({ post: [{ ...run, start_time: '2024-05-01T00:00:00Z' }, { ...run, start_time: true }] })).toEqual([
    { loc: ['body', 'post', 1, 'start_time'], msg: 'Input should be a valid string', type: 'string_type' },
    { loc: ['body', 'post', 1, 'start_time'], msg: 'Input should be a valid number', type: 'float_type' },
  ]);
});
