/**
 * Bodies built to hurt the platform are refused on their text, and the platform goes on serving: one nested a
 * million levels deep (with a lone surrogate at its bottom, whose path once took minutes to build) is a 422 at
 * `["body"]` before it is parsed; bytes that are not UTF-8 are a 422 `string_unicode`, as a lone surrogate escape is,
 * where text is refused, and become U+FFFD where traces take a lone surrogate so. An export filter's `like` pattern
 * has a length the local platform bounds.
 */
import { fetch } from 'undici';
import { MAX_BODY_DEPTH, MAX_JSON_DEPTH, exceedsJsonTextDepth, malformedTextPath } from '../../lib/local/json-values';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { MAX_LIKE_PATTERN_CHARS } from '../../lib/local/tracing/filter-limits';
import { removeTempDirs, tempDataDir } from './support/http';

let platform: LocalPlatform;

beforeAll(async () => {
  platform = await startLocalPlatform({ dataDir: tempDataDir() });
});
afterAll(async () => {
  await platform?.close();
  removeTempDirs();
});

/** POSTs `body` (text, or bytes sent as they are) with the dev key; the status and parsed answer. */
async function post(path: string, body: string | Buffer): Promise<{ status: number; body: any }> {
  const response = await fetch(`${platform.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': platform.devApiKey, 'x-tenant-id': platform.defaultTenantId, 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const nestedArrays = (levels: number, bottom: string) => `${'['.repeat(levels)}${bottom}${']'.repeat(levels)}`;

const tooDeep = {
  loc: ['body'],
  msg:
    `Value error, the body is nested too deeply: at most ${MAX_BODY_DEPTH} levels of objects and arrays as a whole ` +
    `(${MAX_JSON_DEPTH} in a stored value); flatten it, or send the deep part as a JSON string`,
  type: 'value_error',
};

describe('a body nested deeper than the platform reads is refused on its text', () => {
  test('a million nested arrays ending in a lone surrogate: a 422 at the body on every API, and the platform answers on', async () => {
    const hostile = nestedArrays(1_000_000, '"\\ud800"');
    for (const path of ['/v2/deployments', '/v2/sandboxes/templates', '/api/v1/sessions', '/api/v1/runs/batch', '/api/v1/bulk-exports']) {
      expect([path, await post(path, hostile)]).toEqual([path, { status: 422, body: { detail: [tooDeep] } }]);
    }
    expect((await post('/v2/deployments', `{"name":${nestedArrays(MAX_BODY_DEPTH, '1')}}`)).body).toEqual({ detail: [tooDeep] });
    const listed = await fetch(`${platform.url}/v2/deployments`, { headers: { 'x-api-key': platform.devApiKey } });
    expect(listed.status).toBe(200);
  });

  test('brackets inside strings do not count; a body at the limit is parsed, and its problems are its fields\'', async () => {
    const bracketsInText = await post('/api/v1/sessions', JSON.stringify({ name: '['.repeat(MAX_BODY_DEPTH + 1), description: '\\"[' }));
    expect(bracketsInText.status).toBe(201);
    const atLimit = await post('/v2/deployments', `{"name":${nestedArrays(MAX_BODY_DEPTH - 1, '"\\ud800"')}}`);
    expect(atLimit.status).toBe(422);
    expect(atLimit.body.detail).not.toContainEqual(tooDeep);
  });

  test('in runs, which take a lone surrogate as U+FFFD, a value deep within the body\'s limit is refused at its field', async () => {
    const session = await post('/api/v1/sessions', JSON.stringify({ name: `deep-${process.pid}` }));
    const id = '5e1f0001-0000-4000-8000-0000000000ab';
    const run = `{"id":"${id}","name":"deep","run_type":"chain","start_time":"2024-02-01T00:00:00Z","session_id":"${session.body.id as string}","inputs":{"a":${nestedArrays(MAX_BODY_DEPTH - 10, '"\\ud800"')}}}`;
    expect(await post('/api/v1/runs/batch', `{"post":[${run}]}`)).toEqual({
      status: 400,
      body: { detail: `Run ${id}: field inputs is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays; flatten it, or send the deep part as a JSON string` },
    });
  });

  test('the depth of a text: brackets in strings, escaped quotes and runs of backslashes before a quote', () => {
    const pad = ' '.repeat(10);
    const cases: [string, number, boolean][] = [
      [`{"a":"\\\\","b":[[[1]]]}${pad}`, 3, true],
      [`{"a":"\\\\","b":[[[1]]]}${pad}`, 4, false],
      [`{"a":"x\\"[[[[","b":[1]}${pad}`, 1, true],
      [`{"a":"x\\"[[[[","b":[1]}${pad}`, 2, false],
      [`["[[[[[[[[[[[[[[[[[[[[",{"]]]]]]]":[]}]${pad}`, 2, true],
      [`["[[[[[[[[[[[[[[[[[[[[",{"]]]]]]]":[]}]${pad}`, 3, false],
      [`["never closed [[[[[[[[[[[[${pad}`, 1, false],
    ];
    for (const [text, limit, deeper] of cases) expect([text, limit, exceedsJsonTextDepth(text, limit)]).toEqual([text, limit, deeper]);
  });

  test('the path of a lone surrogate at the bottom of a very deep value is built in one pass', () => {
    const levels = 300_000;
    const deep = JSON.parse(nestedArrays(levels, '"\\ud800"')) as unknown;
    const path = malformedTextPath(deep);
    expect(path).toHaveLength(levels);
    expect(path!.every((key) => key === 0)).toBe(true);
    expect(malformedTextPath({ a: [{ ok: 'fine' }, { 'b\ud800': 1 }] })).toEqual(['a', 1, 'b\ud800']);
  });
});

describe('bytes that are not UTF-8', () => {
  const withBytes = (before: string, bytes: number[], after: string) => Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);

  test.each([
    ['a byte that begins no sequence', [0xff]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['an overlong form', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('%s is a 422 string_unicode that names the byte, as a lone surrogate escape is refused', async (_case, bytes) => {
    const before = '{"name":"caf\u00e9 ';
    const answer = await post('/api/v1/sessions', withBytes(before, bytes, '"}'));
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      {
        loc: ['body'],
        msg: `Input should be a valid string, not valid UTF-8: byte ${Buffer.byteLength(before)} of the body (counting from 0) begins no UTF-8 sequence; send the text as UTF-8`,
        type: 'string_unicode',
      },
    ]);
    expect((await post('/api/v1/sessions', '{"name":"caf\\ud800"}')).body.detail[0].type).toBe('string_unicode');
  });

  test('valid UTF-8 of every length is taken as sent, a literal U+FFFD included', async () => {
    const name = `caf\u00e9 \u20ac \ud83d\ude00 \ufffd ${process.pid}`;
    const created = await post('/api/v1/sessions', Buffer.from(JSON.stringify({ name }), 'utf8'));
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name);
  });

  test('in a batch of runs, as a lone surrogate is, a malformed sequence becomes U+FFFD', async () => {
    const session = await post('/api/v1/sessions', JSON.stringify({ name: `runs-${process.pid}` }));
    const id = '5e1f0001-0000-4000-8000-0000000000aa';
    const run = (name: Buffer) =>
      Buffer.concat([
        Buffer.from(`{"post":[{"id":"${id}","name":"`),
        name,
        Buffer.from(`","run_type":"chain","start_time":"2024-02-01T00:00:00Z","session_id":"${session.body.id as string}"}]}`),
      ]);
    expect((await post('/api/v1/runs/batch', run(withBytes('cut ', [0xe2, 0x82], '')))).status).toBe(202);
    const stored = await fetch(`${platform.url}/api/v1/runs/${id}`, { headers: { 'x-api-key': platform.devApiKey } });
    expect(((await stored.json()) as { name: string }).name).toBe('cut \ufffd');
  });
});

describe('an export filter\'s like pattern', () => {
  const filterItems = async (pattern: string) => {
    const body = { bulk_export_destination_id: '5e1f0000-0000-4000-8000-0000000000bb', session_id: '5e1f0000-0000-4000-8000-0000000000cc', start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-02T00:00:00Z', filter: `and(eq(run_type, "llm"), not(like(name, ${JSON.stringify(pattern)})))` };
    const answer = await post('/api/v1/bulk-exports', JSON.stringify(body));
    expect(answer.status).toBe(422);
    return (answer.body.detail as { loc: unknown[] }[]).filter((item) => item.loc.join('.') === 'body.filter');
  };

  test(`has at most ${MAX_LIKE_PATTERN_CHARS} characters on the local platform: a longer one is a 422 at the filter`, async () => {
    expect(await filterItems(`%${'a_'.repeat(10_000)}%`)).toEqual([
      {
        loc: ['body', 'filter'],
        msg: `Value error, the pattern of like(name, …) has 20002 characters; the local platform takes at most ${MAX_LIKE_PATTERN_CHARS} in a like pattern: shorten it (a % can stand for a long run of literal characters)`,
        type: 'value_error',
      },
    ]);
    expect(await filterItems(`%${'😀'.repeat(MAX_LIKE_PATTERN_CHARS - 2)}%`)).toEqual([]);
  });
});
