/**
 * The control plane and the tracing API read a body as JSON when its Content-Type is JSON (`application/json`,
 * `application/…+json`) or absent, as FastAPI does; a body sent as a form or as text (`curl -d` without a header) is
 * a 422 at `["body"]` that says which Content-Type to send. The agent server reads JSON whatever the header, as the
 * real one does.
 */
import { request } from 'node:http';
import { isJsonContentType } from '../../lib/local/validation';
import { startAgentTestPlatform, type AgentTestPlatform } from '../agents/support/platform';

let platform: AgentTestPlatform;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
});
afterAll(() => platform.close());

/** POSTs `body` to `url` with exactly this Content-Type (none when undefined); the status and parsed body. */
function post(url: string, body: string, contentType: string | undefined): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': platform.apiKey, 'content-length': String(Buffer.byteLength(body)) };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const notAnObject = {
  detail: [
    {
      loc: ['body'],
      msg: 'Input should be a valid dictionary or object to extract fields from; send it as Content-Type: application/json',
      type: 'model_attributes_type',
    },
  ],
};

test('which Content-Types are JSON', () => {
  for (const json of [undefined, '', 'application/json', 'Application/JSON; charset=utf-8', 'application/problem+json']) {
    expect([json, isJsonContentType(json)]).toEqual([json, true]);
  }
  for (const other of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonl', 'json']) {
    expect([other, isJsonContentType(other)]).toEqual([other, false]);
  }
});

test('a JSON body sent as a form or as text is refused at ["body"] on the tracing API and the control plane', async () => {
  for (const contentType of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8']) {
    expect(await post(`${platform.url}/api/v1/sessions`, '{"name":"as-form"}', contentType)).toEqual({ status: 422, body: notAnObject });
    expect(await post(`${platform.url}/v2/deployments`, '{"name":"as-form"}', contentType)).toEqual({ status: 422, body: notAnObject });
  }
  // nothing was created
  const listed = await fetch(`${platform.url}/api/v1/sessions?name=as-form`, { headers: { 'x-api-key': platform.apiKey } });
  expect(await listed.json()).toEqual([]);
});

test('a JSON body with a JSON Content-Type, or none, is read', async () => {
  const cases: [string, string | undefined][] = [
    ['typed', 'application/json; charset=utf-8'],
    ['vendor', 'application/vnd.example+json'],
    ['untyped', undefined],
  ];
  for (const [name, contentType] of cases) {
    const { status, body } = await post(`${platform.url}/api/v1/sessions`, JSON.stringify({ name: `ct-${name}` }), contentType);
    expect([name, status, (body as { name: string }).name]).toEqual([name, 201, `ct-${name}`]);
  }
});

test('the agent server reads a JSON body whatever its Content-Type', async () => {
  const deployment = await platform.deploy('content-type-agents');
  const { status, body } = await post(`${deployment.url}/threads`, '{"metadata":{"sent":"as text"}}', 'text/plain');
  expect([status, (body as { metadata: unknown }).metadata]).toEqual([200, { sent: 'as text' }]);
  const thread = await platform.client(deployment).threads.get((body as { thread_id: string }).thread_id);
  expect(thread).toMatchObject({ metadata: { sent: 'as text' } });
});
