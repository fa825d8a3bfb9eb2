/**
 * What the agent server answers for request bodies it cannot keep as sent, and how its `/docs` describes the bodies
 * it takes: a field nested deeper than the platform's limit is a 422 at the field on every route that stores a body
 * (a streaming run is refused before its stream starts), a body id that is no uuid is reported as a path id is, and
 * the document neither closes the request bodies (unknown fields are accepted) nor leaves out an assistant's
 * `deployment_id`.
 */
import { z } from 'zod';
import { MAX_JSON_DEPTH } from '../../lib/local/json-values';
import type { AgentServerClient } from '../../lib/api/agent-server';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let client: AgentServerClient;
let url: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  const deployment = await platform.deploy('request-bodies');
  url = deployment.url as string;
  client = platform.client(deployment);
});
afterAll(() => platform.close());

/** Sends a body as text (JSON deeper than a test should build as objects). */
async function send(method: string, path: string, body?: string): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json' },
    body,
  });
  const contentType = response.headers.get('content-type');
  return { status: response.status, contentType, body: contentType?.startsWith('application/json') ? await response.json() : await response.text() };
}

/** JSON text of an object with `levels` levels of objects and arrays: `{"a": [[…1…]]}`. */
const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;
const tooDeep = (field: string) => ({
  loc: ['body', field],
  type: 'value_error',
  msg: `Value error, ${field} is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays; flatten it, or send the deep part as a JSON string`,
});

test('a field nested 5000 deep is a 422 at the field on every route that takes one, before any stream starts', async () => {
  const thread = await client.threads.create();
  const assistant = await client.assistants.create({ graph_id: 'chat' });
  const deep = nested(5000);
  const cases: [string, string, string, string][] = [
    ['POST', '/threads', `{"metadata":${deep}}`, 'metadata'],
    ['POST', '/assistants', `{"graph_id":"chat","metadata":${deep}}`, 'metadata'],
    ['PATCH', `/assistants/${assistant.assistant_id}`, `{"context":${deep}}`, 'context'],
    ['POST', '/runs/crons', `{"assistant_id":"chat","schedule":"0 * * * *","metadata":${deep}}`, 'metadata'],
    ['POST', `/threads/${thread.thread_id}/runs`, `{"assistant_id":"chat","input":${deep}}`, 'input'],
    ['POST', '/runs/stream', `{"assistant_id":"chat","metadata":${deep}}`, 'metadata'],
    ['POST', '/assistants/search', `{"metadata":${deep}}`, 'metadata'],
  ];
  for (const [method, path, body, field] of cases) {
    expect([method, path, await send(method, path, body)]).toEqual([
      method,
      path,
      { status: 422, contentType: expect.stringMatching(/^application\/json/), body: { detail: [tooDeep(field)] } },
    ]);
  }
  // the limit itself is kept
  const atLimit = await send('POST', '/threads', `{"metadata":${nested(MAX_JSON_DEPTH)}}`);
  expect(atLimit.status).toBe(200);
  expect(JSON.stringify(atLimit.body)).toContain(`${'['.repeat(MAX_JSON_DEPTH - 1)}1`);
});

test('a body id that is no uuid is uuid_parsing with the reason, as a path id is', async () => {
  const thread = await send('POST', '/threads', '{"thread_id":"nope"}');
  expect(thread).toMatchObject({ status: 422 });
  expect(thread.body).toEqual({
    detail: [
      {
        loc: ['body', 'thread_id'],
        type: 'uuid_parsing',
        msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
      },
    ],
  });
  const assistant = await send('POST', '/assistants', '{"graph_id":"chat","assistant_id":"0123-4567"}');
  expect((assistant.body as { detail: unknown[] }).detail).toEqual([
    { loc: ['body', 'assistant_id'], type: 'uuid_parsing', msg: 'Input should be a valid UUID, invalid group count: expected 5, found 2' },
  ]);
});

test('a lone surrogate in a body is a 422 at its place, not stored as U+FFFD', async () => {
  const answer = await send('POST', '/threads', '{"metadata":{"note":"a\\ud800b"}}');
  expect(answer.status).toBe(422);
  expect((answer.body as { detail: { loc: unknown[]; type: string }[] }).detail.map((item) => [item.loc, item.type])).toEqual([
    [['body', 'metadata', 'note'], 'string_unicode'],
  ]);
});

test('/docs describes the bodies as the routes read them: open to unknown fields, assistants with their deployment_id', async () => {
  const docs = await client.transport.request({ method: 'GET', path: '/docs', schema: z.record(z.string(), z.unknown()) });
  const schemas = (docs.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
  expect(JSON.stringify(docs)).not.toContain('"additionalProperties":false');
  // as the document says, an unknown field is accepted (and ignored)
  expect((await send('POST', '/threads', '{"metadata":{},"not_in_the_schema":1}')).status).toBe(200);
  expect(schemas.Assistant.required).toContain('deployment_id');
  const assistant = await client.assistants.create({ graph_id: 'chat' });
  const keys = Object.keys((await send('GET', `/assistants/${assistant.assistant_id}`)).body as object);
  expect(keys.sort()).toEqual(Object.keys(schemas.Assistant.properties as object).sort());
  expect(assistant.deployment_id).toBe(url.split('/').pop());
});

test('the groups the specification only names and the local server does not serve (A2A, MCP) answer 404, as documented', async () => {
  for (const [method, path] of [['POST', '/mcp'], ['GET', '/.well-known/agent-card.json'], ['POST', '/a2a/00000000-0000-0000-0000-000000000000']]) {
    expect([method, path, (await send(method, path, method === 'GET' ? undefined : '{}')).status]).toEqual([method, path, 404]);
  }
});
