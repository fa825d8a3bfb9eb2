/**
 * The official LangGraph JS client streams in each of its stream modes against a deployment of the local platform;
 * `messages` (metadata, the message so far, the finished message), `tools` and `lifecycle` in detail.
 */
import { Client, type StreamMode } from '@langchain/langgraph-sdk';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: Client;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('sdk-stream-modes');
  client = new Client({ apiUrl: deployment.url as string, defaultHeaders: { 'X-Api-Key': platform.apiKey } });
});
afterAll(() => platform.close());

type Chunk = { event: string; data: unknown };
type Message = { type: string; content: string; id: string };

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

async function collect(stream: AsyncIterable<Chunk>): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const eventsOf = (chunks: Chunk[]) => [...new Set(chunks.map((chunk) => chunk.event))];

/** The events a `research` run streams in each mode, without subgraphs; the record names every mode of the SDK. */
const EXPECTED: Record<StreamMode, string[]> = {
  values: ['metadata', 'values'],
  updates: ['metadata', 'updates'],
  messages: ['metadata', 'messages/metadata', 'messages/partial', 'messages/complete'],
  'messages-tuple': ['metadata', 'messages'],
  debug: ['metadata', 'debug'],
  tasks: ['metadata', 'tasks'],
  checkpoints: ['metadata', 'checkpoints'],
  events: ['metadata', 'events'],
  // the research graph's custom events are sent from its subgraph only
  custom: ['metadata'],
  // the built-in graphs call no tools
  tools: ['metadata'],
  lifecycle: ['metadata', 'lifecycle|research_subgraph'],
};

describe('every stream mode of the SDK', () => {
  it.each(Object.entries(EXPECTED))('%s is served', async (mode, events) => {
    const chunks = await collect(client.runs.stream(null, 'research', { input: ask('modes'), streamMode: mode as StreamMode }));
    expect(eventsOf(chunks).map((event) => event.replace(/:[^|]*$/, ''))).toEqual(events);
  });
});

describe('messages', () => {
  it('metadata once per message, then the message so far per token, then the finished message', async () => {
    const chunks = await collect(
      client.runs.stream(null, 'chat', { input: ask('hi'), streamMode: 'messages', config: { configurable: { reply_tokens: 4 } } }),
    );
    expect(chunks.map((chunk) => chunk.event)).toEqual([
      'metadata',
      'messages/metadata',
      ...Array<string>(4).fill('messages/partial'),
      'messages/complete',
    ]);
    const [complete] = chunks.at(-1)!.data as Message[];
    expect(complete.type).toBe('ai');
    const metadata = chunks[1].data as Record<string, { metadata: { langgraph_node: string } }>;
    expect(Object.keys(metadata)).toEqual([complete.id]);
    expect(metadata[complete.id]!.metadata.langgraph_node).toBe('agent');
    const partials = chunks.filter((chunk) => chunk.event === 'messages/partial').map((chunk) => (chunk.data as Message[])[0]!);
    expect(partials.map((message) => message.type)).toEqual(['ai', 'ai', 'ai', 'ai']);
    expect(new Set(partials.map((message) => message.id))).toEqual(new Set([complete.id]));
    // each partial message holds every token so far: it grows, and the last one is the finished text
    for (let i = 1; i < partials.length; i += 1) expect(partials[i]!.content.startsWith(partials[i - 1]!.content)).toBe(true);
    expect(partials.at(-1)!.content).toBe(complete.content);
  });

  it('the finished message is the one the thread keeps', async () => {
    const thread = await client.threads.create();
    const chunks = await collect(client.runs.stream(thread.thread_id, 'chat', { input: ask('keep this'), streamMode: 'messages' }));
    const [complete] = chunks.at(-1)!.data as Message[];
    const state = (await client.threads.getState(thread.thread_id)).values as { messages: Message[] };
    expect(state.messages.at(-1)).toMatchObject({ id: complete.id, content: complete.content, type: 'ai' });
  });

  it('with subgraphs, the subgraph model call’s messages are namespaced', async () => {
    const chunks = await collect(
      client.runs.stream(null, 'research', { input: ask('graphs'), streamMode: 'messages', streamSubgraphs: true }),
    );
    expect(chunks.some((chunk) => chunk.event.startsWith('messages/complete|research_subgraph:'))).toBe(true);
    expect(chunks.some((chunk) => chunk.event === 'messages/complete')).toBe(true);
  });
});

describe('tools', () => {
  it('streams nothing of its own from graphs that call no tools, alongside another mode that does stream', async () => {
    const chunks = await collect(client.runs.stream(null, 'chat', { input: ask('no tools'), streamMode: ['tools', 'updates'] }));
    expect(eventsOf(chunks)).toEqual(['metadata', 'updates']);
  });
});

describe('lifecycle', () => {
  it('a subgraph that starts and completes, named by its namespace, with or without subgraphs', async () => {
    for (const streamSubgraphs of [false, true]) {
      const chunks = await collect(
        client.runs.stream(null, 'research', { input: ask('graphs'), streamMode: 'lifecycle', streamSubgraphs }),
      );
      const lifecycle = chunks.filter((chunk) => chunk.event.startsWith('lifecycle|'));
      const data = lifecycle.map((chunk) => chunk.data as { event: string; namespace: string[] });
      expect(data.map((item) => item.event)).toEqual(['started', 'completed']);
      expect(data[0]!.namespace).toEqual(data[1]!.namespace);
      expect(data[0]!.namespace).toEqual([expect.stringMatching(/^research_subgraph:/)]);
      expect(lifecycle[0]!.event).toBe(`lifecycle|${data[0]!.namespace.join('|')}`);
    }
  });

  it('a subgraph that fails says why', async () => {
    const chunks = await collect(
      client.runs.stream(null, 'research', {
        input: ask('graphs'),
        streamMode: 'lifecycle',
        config: { configurable: { model_error: 'model down' } },
      }),
    );
    const data = chunks.filter((chunk) => chunk.event.startsWith('lifecycle|')).map((chunk) => chunk.data);
    expect(data).toEqual([
      { event: 'started', namespace: [expect.stringMatching(/^research_subgraph:/)] },
      {
        event: 'failed',
        namespace: [expect.stringMatching(/^research_subgraph:/)],
        error: { error: 'FakeModelError', message: 'model down' },
      },
    ]);
    expect(chunks.at(-1)).toMatchObject({ event: 'error', data: { error: 'FakeModelError' } });
  });
});
