/**
 * How the agent server checks a request before it looks anything up: every problem of the path, the query and the
 * body in one 422 (as FastAPI answers), list offsets within the integers the store can page by, and body ids read as
 * uuids whatever their case, in searches too.
 */
import { randomUUID } from 'node:crypto';
import type { AgentServerClient } from '../../lib/api/agent-server';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let client: AgentServerClient;
let url: string;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  const deployment = await platform.deploy('request-validation');
  url = deployment.url as string;
  client = platform.client(deployment);
});
afterAll(() => platform.close());

/** Sends a request; the status and the JSON body. */
async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The `[loc, type]` of each item of a 422. */
async function problems(method: string, path: string, body?: unknown): Promise<string[][]> {
  const response = await send(method, path, body);
  expect(response.status).toBe(422);
  return (response.body as { detail: { loc: (string | number)[]; type: string }[] }).detail.map((item) => [
    item.loc.join('.'),
    item.type,
  ]);
}

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('a 422 lists every problem of the request', () => {
  it('of the path, the query and the body together, path first', async () => {
    expect(await problems('GET', '/threads/xyz/runs/abc')).toEqual([
      ['path.thread_id', 'uuid_parsing'],
      ['path.run_id', 'uuid_parsing'],
    ]);
    expect(await problems('POST', '/threads/xyz/runs/abc/cancel?action=foo&wait=maybe')).toEqual([
      ['path.thread_id', 'uuid_parsing'],
      ['path.run_id', 'uuid_parsing'],
      ['query.action', 'enum'],
      ['query.wait', 'bool_parsing'],
    ]);
    expect(await problems('GET', '/threads/xyz/runs?limit=0&offset=-1')).toEqual([
      ['path.thread_id', 'uuid_parsing'],
      ['query.limit', 'greater_than_equal'],
      ['query.offset', 'greater_than_equal'],
    ]);
    expect(await problems('GET', '/threads/xyz/runs/abc/stream?stream_mode=bogus&stream_subgraphs=maybe')).toEqual([
      ['path.thread_id', 'uuid_parsing'],
      ['path.run_id', 'uuid_parsing'],
      ['query.stream_mode', 'enum'],
      ['query.stream_subgraphs', 'bool_parsing'],
    ]);
    for (const path of ['/threads/xyz/runs', '/threads/xyz/runs/stream']) {
      expect(await problems('POST', path, { multitask_strategy: 'x', config: { configurable: { reply_tokens: 0 } } })).toEqual([
        ['path.thread_id', 'uuid_parsing'],
        ['body.assistant_id', 'missing'],
        ['body.multitask_strategy', 'enum'],
      ]);
      // a body that is no JSON is one problem among the others
      expect(await problems('POST', path)).toEqual([
        ['path.thread_id', 'uuid_parsing'],
        ['body', 'missing'],
      ]);
    }
    expect(await problems('POST', '/threads/xyz/runs/crons', { assistant_id: 'chat', schedule: '61 * * * *' })).toEqual([
      ['path.thread_id', 'uuid_parsing'],
      ['body.schedule', 'value_error'],
    ]);
  });

  it("of a run's body: its fields, then its messages and the model's settings", async () => {
    const thread = await client.threads.create();
    expect(
      await problems('POST', `/threads/xyz/runs`, {
        assistant_id: 'chat',
        input: { messages: [{ role: 'bogus', content: 'x' }] },
        config: { configurable: { reply_tokens: 0 } },
      }),
    ).toEqual([
      ['path.thread_id', 'uuid_parsing'],
      ['body.input.messages.0', 'value_error'],
      ['body.config.configurable.reply_tokens', 'value_error'],
    ]);
    expect(await problems('POST', `/threads/${thread.thread_id}/runs`, { assistant_id: 'chat', input: { messages: 'hi' } })).toEqual([
      ['body.input.messages', 'list_type'],
    ]);
  });

  it("of an assistant's body: its fields, the graph it names and the model's settings", async () => {
    expect(await problems('POST', '/assistants', { graph_id: 'nope', config: { configurable: { reply_tokens: 0 } } })).toEqual([
      ['body.graph_id', 'value_error'],
      ['body.config.configurable.reply_tokens', 'value_error'],
    ]);
    const assistant = await client.assistants.create({ graph_id: 'chat' });
    expect(
      await problems('PATCH', `/assistants/${assistant.assistant_id}`, {
        graph_id: 'nope',
        config: { configurable: { token_delay_ms: -1 } },
      }),
    ).toEqual([
      ['body.graph_id', 'value_error'],
      ['body.config.configurable.token_delay_ms', 'value_error'],
    ]);
  });

  it('before the run is looked up: a join of a run that does not exist with a bad mode is a 422', async () => {
    const thread = await client.threads.create();
    expect(await problems('GET', `/threads/${thread.thread_id}/runs/${MISSING}/stream?stream_mode=bogus`)).toEqual([
      ['query.stream_mode', 'enum'],
    ]);
    expect(await send('GET', `/threads/${thread.thread_id}/runs/${MISSING}/stream?stream_mode=values`)).toEqual({
      status: 404,
      body: { detail: `Run ${MISSING} not found` },
    });
    expect((await send('POST', `/threads/${thread.thread_id}/runs/${MISSING}/cancel?action=foo`)).status).toBe(422);
  });
});

describe('list offsets', () => {
  it('beyond the largest safe integer are a 422, as on the control plane, and do not reach the store', async () => {
    const thread = await client.threads.create();
    for (const offset of ['99999999999999999999', '9223372036854775808', '9007199254740992']) {
      expect(await send('GET', `/threads/${thread.thread_id}/runs?offset=${offset}`)).toEqual({
        status: 422,
        body: {
          detail: [
            {
              loc: ['query', 'offset'],
              msg: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}`,
              type: 'less_than_equal',
            },
          ],
        },
      });
    }
    expect(await send('GET', `/threads/${thread.thread_id}/runs?offset=${Number.MAX_SAFE_INTEGER}&limit=1000`)).toEqual({
      status: 200,
      body: [],
    });
    // the searches' offsets are bounded by their schemas
    for (const path of ['/runs/crons/search', '/assistants/search']) {
      expect(await problems('POST', path, { offset: 2 ** 53 })).toEqual([['body.offset', 'less_than_equal']]);
    }
  });
});

describe('a thread\'s runs by status', () => {
  it('lists only the runs of the status asked for; a status no run can have is a 422', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'hi' }] } });
    await client.runs.join(thread.thread_id, run.run_id);
    const runsWith = async (query: string) => send('GET', `/threads/${thread.thread_id}/runs?${query}`);
    expect(await runsWith('status=success')).toEqual({ status: 200, body: [expect.objectContaining({ run_id: run.run_id, status: 'success' })] });
    expect(await runsWith('status=pending')).toEqual({ status: 200, body: [] });
    expect(await runsWith('status=pending,success')).toEqual({ status: 200, body: [expect.objectContaining({ run_id: run.run_id })] });
    expect(await problems('GET', `/threads/${thread.thread_id}/runs?status=done`)).toEqual([['query.status', 'enum']]);
  });
});

describe('a run on a thread that does not exist', () => {
  it('is a 404, unless if_not_exists is create: then the thread is made with the id of the path', async () => {
    const threadId = randomUUID();
    const body = { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'hi' }] } };
    expect(await send('POST', `/threads/${threadId}/runs`, body)).toEqual({ status: 404, body: { detail: `Thread ${threadId} not found` } });
    expect(await send('POST', `/threads/${threadId}/runs`, { ...body, if_not_exists: 'reject' })).toMatchObject({ status: 404 });
    const created = await send('POST', `/threads/${threadId}/runs`, { ...body, if_not_exists: 'create' });
    expect(created).toMatchObject({ status: 200, body: { thread_id: threadId } });
    await client.runs.join(threadId, (created.body as { run_id: string }).run_id);
    expect(await client.threads.get(threadId)).toMatchObject({ thread_id: threadId, values: { messages: expect.any(Array) } });
    // on a thread that exists, it changes nothing
    expect(await send('POST', `/threads/${threadId}/runs`, { ...body, if_not_exists: 'create' })).toMatchObject({ status: 200 });
    expect(await problems('POST', `/threads/${threadId}/runs`, { ...body, if_not_exists: 'maybe' })).toEqual([['body.if_not_exists', 'enum']]);
  });
});

describe('an assistant search', () => {
  it('says how many match (X-Pagination-Total) and where the next page starts (X-Pagination-Next), as the SDK reads them', async () => {
    const tag = randomUUID();
    for (const name of ['one', 'two', 'three']) await client.assistants.create({ graph_id: 'chat', name, metadata: { tag } });
    const page = async (offset: number) => {
      const response = await fetch(`${url}/assistants/search`, {
        method: 'POST',
        headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ metadata: { tag }, limit: 2, offset }),
      });
      const names = ((await response.json()) as { name: string }[]).map((assistant) => assistant.name);
      return { names, total: response.headers.get('x-pagination-total'), next: response.headers.get('x-pagination-next') };
    };
    expect(await page(0)).toEqual({ names: ['one', 'two'], total: '3', next: '2' });
    expect(await page(2)).toEqual({ names: ['three'], total: '3', next: null });
    expect(await page(5)).toEqual({ names: [], total: '3', next: null });
  });
});

describe('a cron search by thread_id', () => {
  it('reads the id as a uuid whatever its case, and refuses one that is not a uuid with uuid_parsing', async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.create(thread.thread_id, { assistant_id: 'chat', schedule: '0 0 * * *' });
    for (const threadId of [thread.thread_id, thread.thread_id.toUpperCase()]) {
      expect((await client.crons.search({ thread_id: threadId })).map((found) => found.cron_id)).toEqual([cron.cron_id]);
    }
    expect(await problems('POST', '/runs/crons/search', { thread_id: 'not-a-uuid' })).toEqual([['body.thread_id', 'uuid_parsing']]);
    // as every body id, in the hyphenated form only
    expect(await send('POST', '/runs/crons/search', { thread_id: thread.thread_id.replace(/-/g, '') })).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['body', 'thread_id'], type: 'uuid_parsing', msg: expect.stringContaining('hyphenated form') }] },
    });
    // an assistant is named by its id in any case, or by its graph's id
    const byAssistant = async (assistantId: string) =>
      (await client.crons.search({ assistant_id: assistantId, thread_id: thread.thread_id })).map((found) => found.cron_id);
    expect(await byAssistant(cron.assistant_id!.toUpperCase())).toEqual([cron.cron_id]);
    expect(await byAssistant('chat')).toEqual([cron.cron_id]);
  });
});
