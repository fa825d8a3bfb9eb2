/** The graph engine: reducers, routed edges, the recursion limit, aborts, and the events a run reports. */
import type { GraphEvent, MessageChunk } from '../../lib/local/agents/engine/events';
import { RunEventFormatter } from '../../lib/local/agents/runtime/stream-format';
import { END, GraphRecursionError, START, StateGraph } from '../../lib/local/agents/engine/graph';
import type { Invocation } from '../../lib/local/agents/engine/invocation';
import { appendMessages, makeMessage } from '../../lib/local/agents/engine/messages';
import { FakeChatModel, FakeModelError } from '../../lib/local/agents/engine/fake-chat-model';

const invocation = (events: GraphEvent[] = [], signal = new AbortController().signal): Invocation => ({
  runId: 'run-1',
  config: { configurable: {}, tags: [] },
  signal,
  sink: (event) => events.push(event),
  runMetadata: {},
  now: () => 0,
});

const counter = (limit: number) =>
  new StateGraph('counter', {
    count: { initial: () => 0 },
    log: { reducer: (current, update) => [...((current as string[]) ?? []), update], initial: () => [] },
  })
    .addNode('increment', (state) => ({
      count: (state.count as number) + 1,
      log: `count ${(state.count as number) + 1}`,
    }))
    .addEdge(START, 'increment')
    .addConditionalEdges('increment', (state) => ((state.count as number) < limit ? 'increment' : END))
    .compile();

describe('the graph engine', () => {
  it('routes by state until END, merging updates through reducers', async () => {
    const events: GraphEvent[] = [];
    const final = await counter(3).invoke({}, {}, invocation(events));
    expect(final).toEqual({ count: 3, log: ['count 1', 'count 2', 'count 3'] });
    const checkpoints = events.filter((event) => event.kind === 'checkpoint');
    expect(checkpoints.map((event) => event.kind === 'checkpoint' && [event.step, event.next])).toEqual([
      [-1, ['increment']],
      [0, ['increment']],
      [1, ['increment']],
      [2, []],
    ]);
  });

  it('fails a graph that loops past its recursion limit', async () => {
    await expect(counter(100).invoke({}, {}, { ...invocation(), recursionLimit: 10 })).rejects.toBeInstanceOf(
      GraphRecursionError,
    );
  });

  it('stops at the next step once aborted, with the abort reason', async () => {
    const controller = new AbortController();
    const graph = new StateGraph('stop', { count: { initial: () => 0 } })
      .addNode('tick', (state) => {
        if ((state.count as number) === 2) controller.abort(new Error('stopped by test'));
        return { count: (state.count as number) + 1 };
      })
      .addEdge(START, 'tick')
      .addConditionalEdges('tick', () => 'tick')
      .compile();
    await expect(graph.invoke({}, {}, invocation([], controller.signal))).rejects.toThrow('stopped by test');
  });

  it('refuses edges to unknown nodes', () => {
    expect(() =>
      new StateGraph('broken', {})
        .addNode('a', () => undefined)
        .addEdge(START, 'a')
        .addEdge('a', 'b')
        .compile(),
    ).toThrow('unknown node b');
  });
});

describe('the messages reducer', () => {
  it('appends input messages as typed state messages, and replaces one whose id exists', () => {
    const first = appendMessages([], [{ role: 'user', content: 'hi' }]);
    expect(first).toEqual([expect.objectContaining({ type: 'human', content: 'hi', id: expect.any(String) })]);
    const replaced = appendMessages(first, [
      { ...makeMessage('ai', 'hello', first[0].id) },
      { role: 'assistant', content: 'more' },
    ]);
    expect(replaced.map((message) => [message.type, message.content])).toEqual([
      ['ai', 'hello'],
      ['ai', 'more'],
    ]);
  });
});

describe('the stream formatter', () => {
  it('serializes token chunks exactly as JSON.stringify does, first, middle and last', () => {
    const formatter = new RunEventFormatter(null);
    const metadata = {
      langgraph_node: 'agent',
      langgraph_step: 0,
      langgraph_triggers: [],
      langgraph_checkpoint_ns: 'agent:t',
      ls_provider: 'fake',
      ls_model_name: 'm',
      ls_model_type: 'chat' as const,
      tags: [],
    };
    const chunk = (content: string, last: boolean): MessageChunk => ({
      type: 'AIMessageChunk',
      content,
      id: 'run-call',
      name: null,
      additional_kwargs: {},
      response_metadata: last ? { finish_reason: 'stop' } : {},
      usage_metadata: last ? { input_tokens: 1, output_tokens: 3, total_tokens: 4 } : null,
      tool_calls: [],
      tool_call_chunks: [],
      invalid_tool_calls: [],
    });
    for (const [content, last] of [
      ['You', false],
      [' "quoted"\n', false],
      [' end', true],
    ] as const) {
      const token = chunk(content, last);
      const [wire] = formatter.format(
        { kind: 'model_token', ns: [], time: 0, callId: 'call', chunk: token, metadata },
        new Set(['messages-tuple']),
      );
      expect(JSON.parse(wire.json)).toEqual([token, metadata]);
      expect(wire.json).toBe(JSON.stringify([token, metadata]));
    }
  });
});

describe('the updates stream', () => {
  it('shows a node that writes nothing as null, as LangGraph streams it, and a node that writes as its update', async () => {
    const graph = new StateGraph('quiet', { note: { initial: () => '' } })
      .addNode('look', () => undefined)
      .addNode('write', () => ({ note: 'seen' }))
      .addEdge(START, 'look')
      .addEdge('look', 'write')
      .addEdge('write', END)
      .compile();
    const events: GraphEvent[] = [];
    await graph.invoke({}, {}, invocation(events));
    const formatter = new RunEventFormatter(null);
    const updates = events
      .filter((event) => event.kind === 'task_end')
      .flatMap((event) => formatter.format(event, new Set(['updates'])))
      .map((wire) => JSON.parse(wire.json) as unknown);
    expect(updates).toEqual([{ look: null }, { write: { note: 'seen' } }]);
  });
});

describe('the fake model', () => {
  it('fails a run, not the process, on settings stored before they were checked (an old assistant or cron)', () => {
    const model = new FakeChatModel();
    const messages = [makeMessage('human', 'hello')];
    expect(() => model.reply(messages, { reply_tokens: 1_000_000_000 })).toThrow(new FakeModelError('reply_tokens must be at most 100000'));
    expect(model.reply(messages, { reply_tokens: 3 }).tokens).toEqual(['You', ' said:', ' hello']);
    expect(model.tokenDelayMs({ token_delay_ms: 3_000_000_000 })).toBe(60_000);
  });
});
