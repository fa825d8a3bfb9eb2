/**
 * The client reads `updates` chunks as real agent servers send them: a node that wrote nothing is `null`, and an
 * interrupt comes as a list under `__interrupt__`; data of another kind is still a ResponseParseError.
 */
import { MockAgent } from 'undici';
import { AgentServerClient, type StreamChunk } from '../../lib/api/agent-server';
import { ResponseParseError } from '../../lib/api/errors';

const ORIGIN = 'http://agents.test';
const THREAD = '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b';

let agent: MockAgent;
let client: AgentServerClient;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = new AgentServerClient({ baseUrl: ORIGIN, auth: { kind: 'api-key', apiKey: 'key' }, dispatcher: agent, retry: { maxRetries: 0 } });
});
afterEach(() => agent.close());

/** The chunks of a stream whose response holds `events` (name and data). */
async function streamOf(events: readonly [string, unknown][]): Promise<StreamChunk[]> {
  agent
    .get(ORIGIN)
    .intercept({ path: `/threads/${THREAD}/runs/stream`, method: 'POST' })
    .reply(200, events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''), {
      headers: { 'content-type': 'text/event-stream' },
    });
  const chunks: StreamChunk[] = [];
  for await (const chunk of client.runs.stream(THREAD, { assistant_id: 'agent', stream_mode: 'updates' })) chunks.push(chunk);
  return chunks;
}

test('a node that wrote nothing, an interrupt, and a subgraph node, as updates chunks', async () => {
  const interrupt = [{ value: 'approve the plan?', id: 'b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5' }];
  const chunks = await streamOf([
    ['metadata', { run_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', attempt: 1 }],
    ['updates', { plan: { topic: 'graphs' } }],
    ['updates', { noop: null }],
    ['updates', { __interrupt__: interrupt }],
    ['updates|research:task-1', { search: null }],
  ]);
  expect(chunks.slice(1).map(({ mode, namespace, data }) => ({ mode, namespace, data }))).toEqual([
    { mode: 'updates', namespace: [], data: { plan: { topic: 'graphs' } } },
    { mode: 'updates', namespace: [], data: { noop: null } },
    { mode: 'updates', namespace: [], data: { __interrupt__: interrupt } },
    { mode: 'updates', namespace: ['research:task-1'], data: { search: null } },
  ]);
});

test('an update that is neither an object, null nor a list is a ResponseParseError naming the node', async () => {
  const failure = await streamOf([['updates', { plan: 'not an update' }]]).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ResponseParseError);
  expect((failure as ResponseParseError).issuePath).toBe('plan');
});
