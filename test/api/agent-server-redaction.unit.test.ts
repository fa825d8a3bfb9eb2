/**
 * A run's error comes from the agent server's own words (an SSE `error` event, a join's `__error__`): the client's
 * API key, written back in them, is redacted as in every other error of the clients.
 */
import { MockAgent } from 'undici';
import { AgentRunError, AgentServerClient } from '../../lib/api/agent-server';
import { ResponseParseError } from '../../lib/api/errors';

const ORIGIN = 'http://agents.test';
const API_KEY = 'lsv2-agent-server-key-0123456789';
const THREAD = '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b';
const RUN = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const upstreamError = { error: 'AuthError', message: `upstream refused key ${API_KEY}` };

let agent: MockAgent;
let client: AgentServerClient;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = new AgentServerClient({ baseUrl: ORIGIN, auth: { kind: 'api-key', apiKey: API_KEY }, dispatcher: agent, retry: { maxRetries: 0 } });
});
afterEach(() => agent.close());

async function failure(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

async function drain(chunks: AsyncGenerator<unknown>): Promise<void> {
  for await (const chunk of chunks) void chunk;
}

test('an error event of a stream', async () => {
  agent
    .get(ORIGIN)
    .intercept({ path: '/runs/stream', method: 'POST' })
    .reply(200, `event: error\ndata: ${JSON.stringify(upstreamError)}\n\n`, {
      headers: { 'content-type': 'text/event-stream' },
    });
  const err = await failure(() => drain(client.runs.stream(null, { assistant_id: 'agent' })));
  expect(err).toBeInstanceOf(AgentRunError);
  expect([err.message, (err as AgentRunError).serverMessage]).toEqual([
    'POST http://agents.test/runs/stream: run failed: AuthError: upstream refused key [REDACTED]',
    'upstream refused key [REDACTED]',
  ]);
});

test("a join's __error__", async () => {
  agent
    .get(ORIGIN)
    .intercept({ path: `/threads/${THREAD}/runs/${RUN}/join`, method: 'GET' })
    .reply(200, { __error__: upstreamError }, { headers: { 'content-type': 'application/json' } });
  const err = await failure(() => client.runs.join(THREAD, RUN));
  expect(err).toBeInstanceOf(AgentRunError);
  expect(`${err.message} ${(err as AgentRunError).serverMessage}`).not.toContain(API_KEY);
});

test('an event whose data is not what its mode holds', async () => {
  agent
    .get(ORIGIN)
    .intercept({ path: '/runs/stream', method: 'POST' })
    .reply(200, `event: metadata\ndata: {"run_id": "${API_KEY}", oops}\n\n`, { headers: { 'content-type': 'text/event-stream' } });
  const err = await failure(() => drain(client.runs.stream(null, { assistant_id: 'agent' })));
  expect(err).toBeInstanceOf(ResponseParseError);
  expect(JSON.stringify({ message: err.message, body: (err as ResponseParseError).body })).not.toContain(API_KEY);
});

test('an error event whose data is not JSON, and an event of a mode whose data is not JSON', async () => {
  for (const event of ['error', 'metadata']) {
    agent
      .get(ORIGIN)
      .intercept({ path: '/runs/stream', method: 'POST' })
      .reply(200, `event: ${event}\ndata: {"message": ${API_KEY}}\n\n`, { headers: { 'content-type': 'text/event-stream' } });
    const err = await failure(() => drain(client.runs.stream(null, { assistant_id: 'agent' })));
    expect(err).toBeInstanceOf(ResponseParseError);
    const seen = [err.message, JSON.stringify((err as ResponseParseError).body), String((err.cause as Error | undefined)?.message ?? '')];
    expect(seen.join(' ')).not.toContain(API_KEY);
  }
});
