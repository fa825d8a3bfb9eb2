/**
 * The content of each stream mode, the first `metadata` chunk, (mode, chunk) pairs of a multi-mode stream,
 * subgraph namespaces, and the SSE wire itself.
 */
import { request } from 'undici';
import type { AgentServerClient, StreamChunk } from '../../lib/api/agent-server';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: AgentServerClient;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('stream-modes');
  client = platform.client(deployment);
});
afterAll(() => platform.close());

async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });
/** The fake model streams one token per word of its reply. */
const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('every stream', () => {
  it('starts with a metadata chunk naming the run and its attempt', async () => {
    const thread = await client.threads.create();
    const chunks = await collect(
      client.runs.stream(thread.thread_id, { assistant_id: 'chat', input: ask('hi'), stream_mode: 'updates' }),
    );
    expect(chunks[0].mode).toBe('metadata');
    const runs = await client.runs.list(thread.thread_id);
    expect(chunks[0].data).toEqual({ run_id: runs[0].run_id, attempt: 1 });
  });

  it('is text/event-stream with event and data lines, a Content-Location naming the run, and ends', async () => {
    const thread = await client.threads.create();
    const response = await request(`${deployment.url}/threads/${thread.thread_id}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': platform.apiKey },
      body: JSON.stringify({ assistant_id: 'chat', input: ask('wire'), stream_mode: 'values' }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const text = await response.body.text();
    const runs = await client.runs.list(thread.thread_id);
    expect(response.headers['content-location']).toBe(
      `/deployments/${deployment.id}/threads/${thread.thread_id}/runs/${runs[0].run_id}`,
    );
    const blocks = text
      .trim()
      .split('\n\n')
      .map((block) => block.split('\n'));
    for (const block of blocks) {
      expect(block).toHaveLength(2);
      expect(block[0]).toMatch(/^event: \S+$/);
      expect(() => JSON.parse(block[1].replace(/^data: /, ''))).not.toThrow();
    }
    // metadata, then the state after the input and after the one node
    expect(blocks.map((block) => block[0])).toEqual(['event: metadata', 'event: values', 'event: values']);
  });
});

describe('stream modes of the chat graph', () => {
  it('values: the full state after the input and after each step, messages typed human then ai', async () => {
    const thread = await client.threads.create();
    const values = (
      await collect(
        client.runs.stream(thread.thread_id, {
          assistant_id: 'chat',
          input: ask('hello there'),
          stream_mode: 'values',
        }),
      )
    )
      .filter((chunk) => chunk.mode === 'values')
      .map((chunk) => chunk.data as { messages: { type: string; content: string }[] });
    expect(values).toHaveLength(2);
    expect(values[0].messages.map((message) => [message.type, message.content])).toEqual([['human', 'hello there']]);
    expect(values[1].messages.map((message) => message.type)).toEqual(['human', 'ai']);
    expect(values[1].messages[1].content).toBe('You said: hello there');
  });

  it('updates: one chunk per node keyed by the node name', async () => {
    const chunks = (
      await collect(client.runs.stream(null, { assistant_id: 'chat', input: ask('update me'), stream_mode: 'updates' }))
    ).filter((chunk) => chunk.mode === 'updates');
    expect(chunks).toHaveLength(1);
    const update = chunks[0].data as { agent: { messages: { type: string; content: string }[] } };
    expect(Object.keys(update)).toEqual(['agent']);
    expect(update.agent.messages).toEqual([expect.objectContaining({ type: 'ai', content: 'You said: update me' })]);
  });

  it('messages-tuple: event `messages`, one [chunk, metadata] per token, metadata naming the node', async () => {
    const chunks = await collect(
      client.runs.stream(null, {
        assistant_id: 'chat',
        input: ask('count the tokens'),
        stream_mode: 'messages-tuple',
        config: { configurable: { reply_tokens: 40 }, tags: ['mytag'] },
      }),
    );
    const tokens = chunks.filter((chunk) => chunk.mode === 'messages-tuple');
    expect(tokens).toHaveLength(40);
    expect(new Set(tokens.map((chunk) => chunk.event))).toEqual(new Set(['messages']));
    for (const chunk of tokens) {
      if (chunk.mode !== 'messages-tuple') throw new Error('unreachable');
      expect(chunk.data[0].type).toBe('AIMessageChunk');
      expect(chunk.data[1].langgraph_node).toBe('agent');
      // the run's tags reach its model calls, so its tokens can be told apart by them
      expect(chunk.data[1].tags).toEqual(expect.arrayContaining(['mytag']));
    }
    const text = tokens.map((chunk) => (chunk.data as [{ content: string }, unknown])[0].content).join('');
    expect(text.startsWith('You said: count the tokens')).toBe(true);
    expect(new Set(tokens.map((chunk) => (chunk.data as [{ id: string }, unknown])[0].id)).size).toBe(1);
  });

  it('debug: checkpoints, tasks and task results with node names and full state', async () => {
    const chunks = (
      await collect(client.runs.stream(null, { assistant_id: 'chat', input: ask('debug'), stream_mode: 'debug' }))
    ).filter((chunk) => chunk.mode === 'debug');
    expect(chunks.map((chunk) => (chunk.data as { type: string }).type)).toEqual([
      'checkpoint',
      'task',
      'task_result',
      'checkpoint',
    ]);
    const task = chunks[1].data as unknown as {
      step: number;
      payload: { name: string; input: { messages: unknown[] } };
    };
    expect(task.payload.name).toBe('agent');
    expect(task.payload.input.messages).toHaveLength(1);
    const last = chunks[3].data as unknown as { payload: { values: { messages: unknown[] }; next: string[] } };
    expect(last.payload.values.messages).toHaveLength(2);
    expect(last.payload.next).toEqual([]);
  });

  it('checkpoints and tasks: the payloads of debug, on their own', async () => {
    const chunks = await collect(client.runs.stream(null, { assistant_id: 'chat', input: ask('parts'), stream_mode: ['checkpoints', 'tasks'] }));
    expect(chunks.filter((chunk) => chunk.mode !== 'metadata').map((chunk) => chunk.event)).toEqual(['checkpoints', 'tasks', 'tasks', 'checkpoints']);
    const [first, start, end, last] = chunks.filter((chunk) => chunk.mode !== 'metadata').map((chunk) => chunk.data as Record<string, unknown>);
    expect(first).toMatchObject({ next: ['agent'], metadata: { source: 'input', step: -1 } });
    expect(start).toMatchObject({ name: 'agent', id: expect.any(String), input: { messages: [expect.objectContaining({ content: 'parts' })] } });
    expect(end).toMatchObject({ id: start!.id, name: 'agent', error: null, result: [['messages', expect.any(Array)]], interrupts: [] });
    expect(last).toMatchObject({ next: [], values: { messages: [expect.anything(), expect.anything()] } });
  });

  it('events: chain and chat model events, with token chunks as on_chat_model_stream', async () => {
    const chunks = (
      await collect(
        client.runs.stream(null, { assistant_id: 'chat', input: ask('events please'), stream_mode: 'events' }),
      )
    ).filter((chunk) => chunk.mode === 'events');
    const kinds = chunks.map((chunk) => (chunk.data as { event: string }).event);
    const reply = chunks.find((chunk) => (chunk.data as { event: string }).event === 'on_chat_model_end')
      ?.data as unknown as {
      data: { output: { content: string } };
    };
    expect(kinds[0]).toBe('on_chain_start');
    expect(kinds[kinds.length - 1]).toBe('on_chain_end');
    expect(kinds).toContain('on_chat_model_start');
    expect(kinds.filter((kind) => kind === 'on_chat_model_stream')).toHaveLength(wordsOf(reply.data.output.content));
  });

  it('an array of modes yields (mode, chunk) pairs, event names per mode', async () => {
    const chunks = await collect(
      client.runs.stream(null, {
        assistant_id: 'chat',
        input: ask('two modes'),
        stream_mode: ['updates', 'messages-tuple'],
      }),
    );
    const pairs = chunks.map((chunk) => [chunk.mode, chunk.event] as const);
    const update = chunks[chunks.length - 1].data as { agent: { messages: { content: string }[] } };
    const tokenCount = wordsOf(update.agent.messages[0].content);
    expect(pairs).toEqual([
      ['metadata', 'metadata'],
      ...Array.from({ length: tokenCount }, () => ['messages-tuple', 'messages']),
      ['updates', 'updates'],
    ]);
  });

  it('messages, tools and lifecycle: their chunks under their modes, lifecycle namespaced without subgraphs', async () => {
    const chunks = await collect(
      client.runs.stream(null, { assistant_id: 'research', input: ask('modes'), stream_mode: ['messages', 'tools', 'lifecycle'] }),
    );
    const modes = new Set(chunks.map((chunk) => `${chunk.mode} ${chunk.event.split('|')[0]}`));
    expect(modes).toEqual(
      new Set([
        'metadata metadata',
        'lifecycle lifecycle',
        'messages messages/metadata',
        'messages messages/partial',
        'messages messages/complete',
      ]),
    );
    const lifecycle = chunks.filter((chunk) => chunk.mode === 'lifecycle');
    expect(lifecycle.map((chunk) => chunk.namespace)).toEqual([lifecycle[0].namespace, lifecycle[0].namespace]);
    expect(lifecycle[0].namespace).toEqual([expect.stringMatching(/^research_subgraph:/)]);
    expect(lifecycle.map((chunk) => (chunk.data as { event: string }).event)).toEqual(['started', 'completed']);
  });
});

describe('the research graph', () => {
  it('custom events and subgraph output appear only with stream_subgraphs, namespaced research_subgraph:<task id>', async () => {
    const flat = await collect(
      client.runs.stream(null, { assistant_id: 'research', input: ask('graphs'), stream_mode: ['updates', 'custom'] }),
    );
    expect(flat.every((chunk) => chunk.namespace.length === 0)).toBe(true);
    expect(flat.filter((chunk) => chunk.mode === 'custom')).toHaveLength(0);

    const nested = await collect(
      client.runs.stream(null, {
        assistant_id: 'research',
        input: ask('graphs'),
        stream_mode: ['updates', 'custom'],
        stream_subgraphs: true,
      }),
    );
    const custom = nested.filter((chunk) => chunk.mode === 'custom');
    expect(custom.map((chunk) => chunk.data)).toEqual([
      { stage: 'search', query: 'graphs overview', progress: 0.5 },
      { stage: 'search', query: 'graphs recent work', progress: 1 },
      { stage: 'summarize', findings: 2 },
    ]);
    const subgraphUpdates = nested.filter((chunk) => chunk.mode === 'updates' && chunk.namespace.length > 0);
    expect(subgraphUpdates.map((chunk) => Object.keys(chunk.data as object)[0])).toEqual(['search', 'summarize']);
    for (const chunk of [...custom, ...subgraphUpdates]) {
      expect(chunk.namespace).toHaveLength(1);
      expect(chunk.namespace[0]).toMatch(/^research_subgraph:[0-9a-f-]{36}$/);
      expect(chunk.event).toBe(`${chunk.mode}|${chunk.namespace[0]}`);
    }
  });

  it('events: parent_ids name the runs each event is nested in; tags and metadata say which node and step', async () => {
    type EventChunk = { event: string; name: string; run_id: string; tags: string[]; metadata: Record<string, unknown>; parent_ids: string[] };
    const events = (
      await collect(
        client.runs.stream(null, { assistant_id: 'research', input: ask('nesting'), stream_mode: 'events', stream_subgraphs: true }),
      )
    )
      .filter((chunk) => chunk.mode === 'events')
      .map((chunk) => chunk.data as unknown as EventChunk);
    const first = (event: string, name: string) => events.find((e) => e.event === event && e.name === name)!;

    const root = events[0];
    expect(root).toMatchObject({ event: 'on_chain_start', parent_ids: [], tags: [] });
    expect(root.metadata).toMatchObject({ run_id: root.run_id, graph_id: 'research' });
    const call = first('on_chain_start', 'research_subgraph');
    expect(call.parent_ids).toEqual([root.run_id]);
    expect(call.tags).toEqual(['graph:step:1']);
    expect(call.metadata).toMatchObject({ langgraph_node: 'research_subgraph', langgraph_step: 1, langgraph_checkpoint_ns: `research_subgraph:${call.run_id}` });
    // the subgraph's own run, started by the node's task
    const subgraph = events.find((e) => e.event === 'on_chain_start' && e.parent_ids.length === 2 && e.parent_ids[1] === call.run_id)!;
    expect(subgraph.parent_ids).toEqual([root.run_id, call.run_id]);
    const summarize = first('on_chain_start', 'summarize');
    expect(summarize.parent_ids).toEqual([root.run_id, call.run_id, subgraph.run_id]);
    // a model call and its tokens sit under the node that made it
    const modelStart = events.find((e) => e.event === 'on_chat_model_start' && e.tags.includes('summary'))!;
    const tokens = events.filter((e) => e.event === 'on_chat_model_stream' && e.run_id === modelStart.run_id);
    expect(tokens.length).toBeGreaterThan(0);
    for (const e of [modelStart, ...tokens]) {
      expect(e.parent_ids).toEqual([root.run_id, call.run_id, subgraph.run_id, summarize.run_id]);
      expect(e.metadata).toMatchObject({ langgraph_node: 'summarize', langgraph_checkpoint_ns: `research_subgraph:${call.run_id}|summarize:${summarize.run_id}` });
    }
    const custom = events.find((e) => e.event === 'on_custom_event' && e.name === 'search')!;
    expect(custom.parent_ids).toEqual([root.run_id, call.run_id, subgraph.run_id]);
    expect(custom.metadata).toMatchObject({ langgraph_node: 'search' });
    // the top-level model call: under the root graph and the report node only
    const report = first('on_chain_start', 'report');
    const reportModel = events.find((e) => e.event === 'on_chat_model_end' && e.tags.includes('report'))!;
    expect(reportModel.parent_ids).toEqual([root.run_id, report.run_id]);
    expect(report.tags).toEqual(['graph:step:2']);
  });

  it('streams the updates of one step separately, one node each', async () => {
    const updates = (
      await collect(
        client.runs.stream(null, { assistant_id: 'research', input: ask('fan out'), stream_mode: 'updates' }),
      )
    )
      .filter((chunk) => chunk.mode === 'updates')
      .map((chunk) => Object.keys(chunk.data as object));
    expect(updates).toHaveLength(4);
    expect(updates.every((keys) => keys.length === 1)).toBe(true);
    expect(updates[0]).toEqual(['plan']);
    expect(updates.slice(1, 3).flat().sort()).toEqual(['outline', 'research_subgraph']);
    expect(updates[3]).toEqual(['report']);
  });

  it('keeps its findings across the runs of a thread, each once', async () => {
    const thread = await client.threads.create();
    for (const topic of ['first', 'second']) {
      for await (const chunk of client.runs.stream(thread.thread_id, { assistant_id: 'research', input: ask(topic) }))
        void chunk;
    }
    const { values } = await client.threads.getState(thread.thread_id);
    expect(values.findings).toEqual([
      'first overview: 2 sources',
      'first recent work: 3 sources',
      'second overview: 2 sources',
      'second recent work: 3 sources',
    ]);
    expect(values.messages?.map((message) => message.type)).toEqual(['human', 'ai', 'human', 'ai']);
  });
});

describe('a stream_mode the server does not know', () => {
  const allowed =
    "Input should be 'values', 'updates', 'messages-tuple', 'debug', 'custom', 'events', 'checkpoints', 'tasks', 'messages', 'tools' or 'lifecycle'";
  async function refusal(streamMode: unknown): Promise<{ status: number; detail: unknown }> {
    const thread = await client.threads.create();
    const response = await request(`${deployment.url}/threads/${thread.thread_id}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': platform.apiKey },
      body: JSON.stringify({ assistant_id: 'chat', input: ask('modes'), stream_mode: streamMode }),
    });
    const body = (await response.body.json()) as { detail: unknown };
    return { status: response.statusCode, detail: body.detail };
  }

  it('is refused with the modes it could be, for a single mode and for an item of a list', async () => {
    expect(await refusal('value')).toEqual({ status: 422, detail: [{ loc: ['body', 'stream_mode'], msg: allowed, type: 'enum' }] });
    expect(await refusal(['values', 'tokens'])).toEqual({
      status: 422,
      detail: [{ loc: ['body', 'stream_mode', 1], msg: allowed, type: 'enum' }],
    });
  });

  it('of neither kind (not a mode, not a list) is refused with what each kind expects', async () => {
    expect(await refusal(5)).toEqual({
      status: 422,
      detail: [
        { loc: ['body', 'stream_mode'], msg: allowed, type: 'enum' },
        { loc: ['body', 'stream_mode'], msg: 'Input should be a valid list', type: 'list_type' },
      ],
    });
  });
});
