/**
 * Values the tracing API refuses because it could not keep them as sent, each time naming the field: JSON nested
 * deeper than the platform's limit (a run's 400 names the run, as its other problems do), and text that is not
 * well-formed Unicode (a lone surrogate would come back as U+FFFD). And an export body's problems all at once, ids
 * reported as in paths.
 */
import { MAX_JSON_DEPTH } from '../../lib/local/json-values';
import { sendJson, type TracingPlatform } from './support/platform';
import { destinationOn, startApiFixture, type ApiFixture } from './support/s3';

let fixture: ApiFixture;
let platform: TracingPlatform;
let sessionId: string;

beforeAll(async () => {
  fixture = await startApiFixture('values');
  ({ platform, sessionId } = fixture);
});

afterAll(() => fixture?.close());

const send = (method: string, path: string, body?: unknown) => sendJson(platform, method, path, body);

const items = (answer: { body: Record<string, unknown> }) => answer.body.detail as { loc: (string | number)[]; type: string; msg: string }[];
const id = (n: number) => `5e1f${String(n).padStart(4, '0')}-0000-4000-8000-000000000002`;

/** JSON text of an object with `levels` levels of objects and arrays: `{"a": [[…1…]]}`. */
const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;
const runText = (n: number, inputs: string) =>
  `{"id":"${id(n)}","name":"deep","run_type":"chain","start_time":"2024-02-01T00:00:00Z","session_id":"${sessionId}","inputs":${inputs}}`;

describe('JSON nested deeper than the shared limit is refused at ingest, naming the run and the field', () => {
  test(`a run with ${MAX_JSON_DEPTH} levels is stored; one more, or a document 2000 deep, is a 400`, async () => {
    expect((await send('POST', '/runs/batch', `{"post":[${runText(1, nested(MAX_JSON_DEPTH))}]}`)).status).toBe(202);
    for (const levels of [MAX_JSON_DEPTH + 1, 2000]) {
      const refused = await send('POST', '/runs/batch', `{"post":[${runText(2, nested(levels))}]}`);
      expect(refused).toEqual({
        status: 400,
        body: {
          detail:
            `Run ${id(2)}: field inputs is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays; ` +
            'flatten it, or send the deep part as a JSON string',
        },
      });
    }
    expect((await send('GET', `/runs/${id(2)}`, undefined)).status).toBe(404);
  });

  test('a patch is held to the same limit', async () => {
    const refused = await send('POST', '/runs/batch', `{"patch":[{"id":"${id(1)}","outputs":${nested(MAX_JSON_DEPTH + 1)}}]}`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(new RegExp(`^Run ${id(1)}: field outputs is nested too deeply: at most ${MAX_JSON_DEPTH} levels`));
  });
});

describe('text that is not well-formed Unicode is a 422 at its field, not stored changed (runs: replaced, as traces take it)', () => {
  test('a project name and a destination display_name with a lone surrogate', async () => {
    const session = await send('POST', '/sessions', { name: 'project\ud800' });
    expect(session.status).toBe(422);
    expect(items(session)).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_unicode' })]);
    expect(items(session)[0].msg).toMatch(/not well-formed Unicode: it holds a lone UTF-16 surrogate/);
    const destination = await send('POST', '/bulk-exports/destinations', destinationOn(fixture.s3, 'd\ud800'));
    expect(destination.status).toBe(422);
    expect(items(destination).map((item) => [item.loc, item.type])).toEqual([[['body', 'display_name'], 'string_unicode']]);
    // a surrogate pair is one character, kept as sent
    const paired = await send('POST', '/sessions', { name: 'project \ud83d\ude00' });
    expect(paired.status).toBe(201);
    expect((await send('GET', `/sessions/${paired.body.id as string}`, undefined)).body.name).toBe('project 😀');
  });

  test('in a run, a lone surrogate becomes U+FFFD (a tracing SDK that cut a string keeps the rest of its batch)', async () => {
    const run = { id: id(3), name: 'run\udfff', run_type: 'chain', start_time: '2024-02-01T00:00:00Z', session_id: sessionId, inputs: { ok: { 'k\ud800': 'v\ud83d' } } };
    const other = { ...run, id: id(4), name: 'whole', inputs: { text: 'pair \ud83d\ude00' } };
    expect((await send('POST', '/runs/batch', { post: [run, other] })).status).toBe(202);
    const stored = (await send('GET', `/runs/${id(3)}`, undefined)).body;
    expect(stored).toMatchObject({ name: 'run\ufffd', inputs: { ok: { 'k\ufffd': 'v\ufffd' } } });
    expect((await send('GET', `/runs/${id(4)}`, undefined)).body).toMatchObject({ name: 'whole', inputs: { text: 'pair 😀' } });
  });
});

test('an export body reports every problem at once: an id that is no uuid (as a path id is) and interval_hours out of range', async () => {
  const answer = await send('POST', '/bulk-exports', {
    bulk_export_destination_id: 'nope',
    session_id: sessionId,
    start_time: '2024-01-01T00:00:00Z',
    interval_hours: 0,
  });
  expect(answer.status).toBe(422);
  expect(items(answer)).toEqual([
    {
      loc: ['body', 'bulk_export_destination_id'],
      type: 'uuid_parsing',
      msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
    },
    { loc: ['body', 'interval_hours'], type: 'greater_than_equal', msg: 'Input should be greater than or equal to 1' },
  ]);
  const simple = await send('POST', '/bulk-exports', {
    bulk_export_destination_id: fixture.destinationId.replace(/-/g, ''),
    session_id: '0123',
    start_time: '2024-01-01T00:00:00Z',
    end_time: '2024-01-02T00:00:00Z',
  });
  expect(items(simple).map((item) => [item.loc[1], item.type, item.msg])).toEqual([
    [
      'bulk_export_destination_id',
      'uuid_parsing',
      `Input should be a valid UUID, invalid format: expected the hyphenated form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, found \`${fixture.destinationId.replace(/-/g, '')}\``,
    ],
    // hex digits only: the form to use is said, not the simple form's length (a body takes the hyphenated form only)
    ['session_id', 'uuid_parsing', 'Input should be a valid UUID, invalid format: expected the hyphenated form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, found `0123`'],
  ]);
});

test('a key sent as Authorization: Bearer, without X-Tenant-Id, acts in the default workspace of its organization', async () => {
  const response = await fetch(`${platform.url}/api/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${platform.apiKey}` } });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ id: sessionId, tenant_id: platform.tenantId });
});
