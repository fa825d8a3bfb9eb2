/**
 * What `POST /api/v1/runs/batch` works out from what a run is sent with, so the exported fields hold whatever order
 * and split a tracing SDK sends them in: the hierarchy of a child sent before its parent or with its dotted order
 * alone, totals of tokens and costs when usage comes with a patch, the status after a patch; JSON objects stored as
 * sent, totals too large to store refused, and every 400 of a batch naming its run.
 */
import { sendJson, type TracingPlatform } from './support/platform';
import { startApiFixture, type ApiFixture } from './support/s3';

let fixture: ApiFixture;
let platform: TracingPlatform;
let sessionId: string;

beforeAll(async () => {
  fixture = await startApiFixture('ingest');
  ({ platform, sessionId } = fixture);
});

afterAll(() => fixture?.close());

const send = (method: string, path: string, body?: unknown) => sendJson(platform, method, path, body);

const id = (n: number) => `1a9e${String(n).padStart(4, '0')}-0000-4000-8000-000000000001`;
const run = (n: number, fields: Record<string, unknown> = {}) => ({ id: id(n), name: `run-${n}`, run_type: 'chain', start_time: '2024-02-01T00:00:00Z', session_id: sessionId, ...fields });
const stored = async (n: number) => (await send('GET', `/runs/${id(n)}`)).body;

test('a child sent before its parent in one batch takes the trace and dotted order of its root, as if sent after it', async () => {
  const batch = {
    post: [
      run(3, { parent_run_id: id(2), start_time: '2024-02-01T00:00:02Z' }),
      run(2, { parent_run_id: id(1), start_time: '2024-02-01T00:00:01Z' }),
      run(1),
    ],
  };
  expect(await send('POST', '/runs/batch', batch)).toMatchObject({ status: 202, body: { created: 3 } });
  const grandchild = await stored(3);
  expect(grandchild).toMatchObject({ trace_id: id(1), parent_run_id: id(2), parent_run_ids: [id(1), id(2)], is_root: false });
  expect(grandchild.dotted_order).toBe(`20240201T000000000000Z${id(1)}.20240201T000001000000Z${id(2)}.20240201T000002000000Z${id(3)}`);
  expect(await stored(2)).toMatchObject({ trace_id: id(1), parent_run_ids: [id(1)], dotted_order: `20240201T000000000000Z${id(1)}.20240201T000001000000Z${id(2)}` });
});

test('a run sent with a dotted order and no parent id has the parent its dotted order names, and is no root', async () => {
  const dotted = `20240201T000000000000Z${id(1)}.20240201T000005000000Z${id(4).toUpperCase()}`;
  expect((await send('POST', '/runs/batch', { post: [run(4, { start_time: '2024-02-01T00:00:05Z', trace_id: id(1), dotted_order: dotted })] })).status).toBe(202);
  expect(await stored(4)).toMatchObject({ parent_run_id: id(1), parent_run_ids: [id(1)], is_root: false, trace_id: id(1) });
});

test('usage sent with a patch gives the totals a run posted with it would have, and a later part changes them', async () => {
  expect((await send('POST', '/runs/batch', { post: [run(10)] })).status).toBe(202);
  const usage = { id: id(10), end_time: '2024-02-01T00:00:09Z', prompt_tokens: 120, completion_tokens: 30, prompt_cost: 0.0012, completion_cost: 0.0006 };
  expect(await send('POST', '/runs/batch', { patch: [usage] })).toMatchObject({ status: 202, body: { patched: 1 } });
  expect(await stored(10)).toMatchObject({ total_tokens: 150, total_cost: 0.0018, status: 'success' });
  expect((await send('POST', '/runs/batch', { patch: [{ id: id(10), completion_tokens: 100 }] })).status).toBe(202);
  expect(await stored(10)).toMatchObject({ prompt_tokens: 120, completion_tokens: 100, total_tokens: 220 });
  // a total given with its parts is kept as given (it may count more than the two parts), and so are later parts
  expect((await send('POST', '/runs/batch', { patch: [{ id: id(10), completion_tokens: 1, total_tokens: 500 }] })).status).toBe(202);
  expect(await stored(10)).toMatchObject({ total_tokens: 500 });
  expect((await send('POST', '/runs/batch', { patch: [{ id: id(10), prompt_tokens: 30 }] })).status).toBe(202);
  expect(await stored(10)).toMatchObject({ prompt_tokens: 30, completion_tokens: 1, total_tokens: 500 });
  // as a total posted with the run is
  expect((await send('POST', '/runs/batch', { post: [run(11, { total_cost: 0.5, prompt_cost: 0.1 })], patch: [{ id: id(11), completion_cost: 0.2 }] })).status).toBe(202);
  expect(await stored(11)).toMatchObject({ total_cost: 0.5, prompt_cost: 0.1, completion_cost: 0.2 });
});

test('a patch that clears the error clears the error status: success once ended, else pending', async () => {
  expect((await send('POST', '/runs/batch', { post: [run(20, { error: 'e1' }), run(21, { error: 'e2' })] })).status).toBe(202);
  expect(await stored(20)).toMatchObject({ status: 'error' });
  expect((await send('POST', '/runs/batch', { patch: [{ id: id(20), error: null, end_time: '2024-02-01T00:00:03Z' }, { id: id(21), error: null }] })).status).toBe(202);
  expect(await stored(20)).toMatchObject({ status: 'success', error: null });
  expect(await stored(21)).toMatchObject({ status: 'pending', error: null });
  expect((await send('POST', '/runs/batch', { patch: [{ id: id(21), error: 'again' }] })).status).toBe(202);
  expect(await stored(21)).toMatchObject({ status: 'error', error: 'again' });
});

test('JSON objects are stored as sent, a "__proto__" key included', async () => {
  const body =
    `{"post": [{"id": "${id(30)}", "name": "p", "run_type": "chain", "start_time": "2024-02-01T00:00:00Z", "session_id": "${sessionId}", ` +
    `"inputs": {"__proto__": {"polluted": 1}, "constructor": "c", "a": 1}, "outputs": {"__proto__": "kept", "b": 2}}], ` +
    `"patch": [{"id": "${id(30)}", "extra": {"__proto__": {"x": 1}, "z": 1}}]}`;
  expect((await send('POST', '/runs/batch', body)).status).toBe(202);
  const text = await (await fetch(`${platform.url}/api/v1/runs/${id(30)}`, { headers: { 'x-api-key': platform.apiKey } })).text();
  expect(text).toContain('"inputs":{"__proto__":{"polluted":1},"constructor":"c","a":1}');
  expect(text).toContain('"outputs":{"__proto__":"kept","b":2}');
  expect(text).toContain('"extra":{"__proto__":{"x":1},"z":1}');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  // anything but an object is still refused where an object belongs
  const refused = await send('POST', '/runs/batch', { post: [run(31, { inputs: [1, 2] })] });
  expect(refused.status).toBe(422);
  expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'post', 0, 'inputs'], type: 'dict_type', msg: 'Input should be a valid dictionary' })]);
});

test('a total too large to store is refused, naming the run; so is every other problem of a batch', async () => {
  const overflow = await send('POST', '/runs/batch', { post: [run(40, { prompt_cost: 1e308, completion_cost: 1e308 })] });
  expect(overflow).toEqual({ status: 400, body: { detail: `Run ${id(40)}: total_cost, the sum of its prompt and completion parts, is too large to store` } });
  const tokens = await send('POST', '/runs/batch', { post: [run(41, { prompt_tokens: Number.MAX_SAFE_INTEGER, completion_tokens: 2 })] });
  expect(tokens.body.detail).toBe(`Run ${id(41)}: total_tokens, the sum of its prompt and completion parts, is too large to store`);
  const late = await send('POST', '/runs/batch', { post: [run(42), run(43, { end_time: '2300-01-01T00:00:00Z' })] });
  expect(late).toEqual({
    status: 400,
    body: { detail: `Run ${id(43)}: field end_time is outside the years 1700-2199, the instants kept to the microsecond: 2300-01-01T00:00:00Z` },
  });
  const badPatch = await send('POST', '/runs/batch', { patch: [{ id: id(10), first_token_time: 'soon' }] });
  expect(badPatch.body.detail).toBe(`Run ${id(10)}: field first_token_time is not an ISO 8601 timestamp: soon`);
  // nothing of a refused batch is stored
  for (const n of [40, 41, 42, 43]) expect((await send('GET', `/runs/${id(n)}`)).status).toBe(404);
});
