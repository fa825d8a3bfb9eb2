/** Assistants (defaults per graph, create/update/search/delete), threads, graph selection, health and docs. */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../lib/api/errors';
import type { AgentServerClient } from '../../lib/api/agent-server';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: AgentServerClient;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('resources');
  client = platform.client(deployment);
});
afterAll(() => platform.close());

describe('assistants', () => {
  it('each served graph has a default assistant, addressable by its graph id', async () => {
    const defaults = await client.assistants.search({ metadata: { created_by: 'system' } });
    expect(defaults.map((assistant) => assistant.graph_id).sort()).toEqual(['chat', 'research']);
    for (const assistant of defaults) {
      expect(await client.assistants.get(assistant.graph_id!)).toEqual(assistant);
      expect(await client.assistants.get(assistant.assistant_id)).toEqual(assistant);
    }
  });

  it('are created, updated (metadata merged, version bumped), searched by metadata and deleted', async () => {
    const created = await client.assistants.create({
      graph_id: 'chat',
      name: 'short answers',
      config: { configurable: { reply_tokens: 3 } },
      metadata: { team: 'support', tier: 1, owner: { a: 1, b: [1, { c: 2, d: 3 }] } },
    });
    expect(created).toMatchObject({ graph_id: 'chat', name: 'short answers', version: 1 });
    // an object value matches whatever the order of its keys
    const byOwner = await client.assistants.search({ metadata: { owner: { b: [1, { d: 3, c: 2 }], a: 1 } } });
    expect(byOwner.map((a) => a.assistant_id)).toEqual([created.assistant_id]);
    const updated = await client.assistants.update(created.assistant_id, {
      name: 'shorter answers',
      metadata: { tier: 2 },
    });
    expect(updated).toMatchObject({ name: 'shorter answers', version: 2, metadata: { team: 'support', tier: 2 } });

    expect((await client.assistants.search({ metadata: { team: 'support' } })).map((a) => a.assistant_id)).toEqual([
      created.assistant_id,
    ]);
    expect(await client.assistants.search({ metadata: { team: 'support', tier: 1 } })).toEqual([]);
    expect(await client.assistants.search({ graph_id: 'chat', limit: 1, offset: 0 })).toHaveLength(1);

    // The assistant's configuration reaches its runs.
    const reply: string[] = [];
    for await (const chunk of client.runs.stream(null, {
      assistant_id: created.assistant_id,
      input: { messages: [{ role: 'user', content: 'a long question' }] },
      stream_mode: 'messages-tuple',
    })) {
      if (chunk.mode === 'messages-tuple') reply.push(chunk.data[0].content as string);
    }
    expect(reply).toHaveLength(3);

    await client.assistants.delete(created.assistant_id);
    await expect(client.assistants.get(created.assistant_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuse a graph the deployment does not serve', async () => {
    await expect(client.assistants.create({ graph_id: 'unknown' })).rejects.toMatchObject({
      constructor: ValidationError,
      items: [expect.objectContaining({ loc: ['body', 'graph_id'] })],
    });
  });
});

describe('graph_config_path', () => {
  it('chat.json serves only the chat graph, research.json only the research graph', async () => {
    const chatOnly = platform.client(await platform.deploy('chat-only', 'graphs/chat.json'));
    expect((await chatOnly.assistants.search()).map((assistant) => assistant.graph_id)).toEqual(['chat']);
    await expect(chatOnly.assistants.get('research')).rejects.toBeInstanceOf(NotFoundError);
    const researchOnly = platform.client(await platform.deploy('research-only', 'research.json'));
    expect((await researchOnly.assistants.search()).map((assistant) => assistant.graph_id)).toEqual(['research']);
  });
});

describe('threads', () => {
  it('are created with metadata, keep state across runs, and are deleted', async () => {
    const thread = await client.threads.create({ metadata: { user: 'u1' } });
    expect(thread).toMatchObject({ metadata: { user: 'u1' }, status: 'idle', values: null });
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({});
    for (const content of ['one', 'two']) {
      for await (const chunk of client.runs.stream(thread.thread_id, {
        assistant_id: 'chat',
        input: { messages: [{ role: 'user', content }] },
      }))
        void chunk;
    }
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values.messages?.map((message) => [message.type, message.content])).toEqual([
      ['human', 'one'],
      ['ai', 'You said: one'],
      ['human', 'two'],
      ['ai', 'You said: two'],
    ]);
    expect(state.checkpoint?.thread_id).toBe(thread.thread_id);
    expect((await client.threads.get(thread.thread_id)).values).toEqual(state.values);
    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('are searched by metadata, values and status, newest first unless sorted otherwise, and paged', async () => {
    const tag = `search-${Date.now()}`;
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push(await client.threads.create({ metadata: { tag, name } }));
    const run = await client.runs.create(made[1]!.thread_id, { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'hi' }] } });
    await client.runs.join(made[1]!.thread_id, run.run_id);
    const ids = (threads: { thread_id: string }[]) => threads.map((thread) => thread.thread_id);
    const [a, b, c] = ids(made);
    expect(ids(await client.threads.search({ metadata: { tag } }))).toEqual([c, b, a]);
    expect(ids(await client.threads.search({ metadata: { tag }, sort_by: 'created_at', sort_order: 'asc', limit: 2 }))).toEqual([a, b]);
    expect(ids(await client.threads.search({ metadata: { tag }, offset: 2 }))).toEqual([a]);
    expect(ids(await client.threads.search({ metadata: { tag, name: 'b' } }))).toEqual([b]);
    expect(ids(await client.threads.search({ metadata: { tag }, values: { messages: (await client.threads.get(b!)).values!.messages } }))).toEqual([b]);
    expect(ids(await client.threads.search({ metadata: { tag }, status: 'busy' }))).toEqual([]);
    await expect(client.threads.search({ status: 'sleeping' as never })).rejects.toBeInstanceOf(ValidationError);
  });

  it('give their history: the state of each checkpoint, newest first, paged with before and filtered by metadata', async () => {
    const thread = await client.threads.create();
    expect(await client.threads.getHistory(thread.thread_id)).toEqual([]);
    const runIds: string[] = [];
    for (const content of ['one', 'two']) {
      const run = await client.runs.create(thread.thread_id, { assistant_id: 'chat', input: { messages: [{ role: 'user', content }] } });
      await client.runs.join(thread.thread_id, run.run_id);
      runIds.push(run.run_id);
    }
    // each run wrote a checkpoint of its input (step -1) and one after its node (step 0)
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((state) => [state.metadata.run_id, state.metadata.step, state.values.messages?.length])).toEqual([
      [runIds[1], 0, 4],
      [runIds[1], -1, 3],
      [runIds[0], 0, 2],
      [runIds[0], -1, 1],
    ]);
    expect(history[0]).toEqual(await client.threads.getState(thread.thread_id));
    expect(history.slice(0, -1).map((state) => state.parent_checkpoint)).toEqual(history.slice(1).map((state) => state.checkpoint));
    // the SDK's paging: limit, and before as a config naming a checkpoint (or its id)
    const before = { configurable: { checkpoint_id: history[1]!.checkpoint!.checkpoint_id } };
    expect(await client.threads.getHistory(thread.thread_id, { limit: 1, before })).toEqual([history[2]]);
    expect(await client.threads.getHistory(thread.thread_id, { before: history[2]!.checkpoint!.checkpoint_id })).toEqual([history[3]]);
    expect(await client.threads.getHistory(thread.thread_id, { metadata: { run_id: runIds[0], step: 0 } })).toEqual([history[2]]);
    await expect(client.threads.getHistory(thread.thread_id, { before: thread.thread_id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.threads.getHistory(thread.thread_id, { limit: 0 })).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuse input messages with an unknown role, naming the message', async () => {
    const thread = await client.threads.create();
    await expect(
      client.runs.create(thread.thread_id, {
        assistant_id: 'chat',
        input: {
          messages: [
            { role: 'user', content: 'ok' },
            { role: 'robot', content: 'no' },
          ],
        },
      }),
    ).rejects.toMatchObject({ items: [expect.objectContaining({ loc: ['body', 'input', 'messages', 1] })] });
  });

  it('refuse model settings no run can take (a reply that would fill the memory, a delay no timer holds), in a run or an assistant', async () => {
    const at = (name: string) => expect.objectContaining({ loc: ['body', 'config', 'configurable', name], type: 'value_error' });
    const configurable = { reply_tokens: 1_000_000_000, token_delay_ms: 3_000_000_000, model_error: 5 };
    const thread = await client.threads.create();
    await expect(client.runs.create(thread.thread_id, { assistant_id: 'chat', input: { messages: [] }, config: { configurable } })).rejects.toMatchObject({
      items: [at('reply_tokens'), at('token_delay_ms'), at('model_error')],
    });
    await expect(client.assistants.create({ graph_id: 'chat', config: { configurable: { reply_tokens: 0 } } })).rejects.toMatchObject({
      items: [at('reply_tokens')],
    });
    const assistant = await client.assistants.create({ graph_id: 'chat', config: { configurable: { reply_tokens: 100_000 } } });
    await expect(client.assistants.update(assistant.assistant_id, { config: { configurable: { token_delay_ms: -1 } } })).rejects.toMatchObject({
      items: [at('token_delay_ms')],
    });
    await client.assistants.delete(assistant.assistant_id);
  });

  it('answer a path that names no assistant (neither a uuid nor a served graph) with the same 404 for every method', async () => {
    for (const named of ['CHAT', 'unknown-graph']) {
      const notFound = { constructor: NotFoundError, message: expect.stringContaining(`Assistant ${named} not found`) };
      await expect(client.assistants.get(named)).rejects.toMatchObject(notFound);
      await expect(client.assistants.update(named, { name: 'x' })).rejects.toMatchObject(notFound);
      await expect(client.assistants.delete(named)).rejects.toMatchObject(notFound);
    }
  });
});

describe('system routes', () => {
  it('/ok answers health', async () => {
    expect(await client.health()).toEqual({ ok: true });
  });

  it('/docs serves an OpenAPI document of the endpoints', async () => {
    const docs = await client.transport.request({
      method: 'GET',
      path: '/docs',
      schema: z.record(z.string(), z.unknown()),
    });
    expect(docs.openapi).toBe('3.1.0');
    const paths = docs.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/threads/{thread_id}/runs/stream',
        '/runs/stream',
        '/runs/wait',
        '/runs',
        '/assistants/search',
        '/threads/{thread_id}/runs/{run_id}/join',
      ]),
    );
    expect(paths['/threads/{thread_id}/runs'].post).toMatchObject({
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/RunCreate' } } } },
    });
    // every {name} of a path is a declared path parameter (as OpenAPI requires), and the success statuses are the
    // ones the routes answer with
    for (const [path, operations] of Object.entries(paths)) {
      const named = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      for (const operation of Object.values(operations) as { parameters?: { name: string; in: string }[] }[]) {
        expect([path, (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)]).toEqual([path, named]);
      }
    }
    expect(Object.keys((paths['/threads/{thread_id}'].delete as { responses: object }).responses)).toContain('204');
    const cancel = paths['/threads/{thread_id}/runs/{run_id}/cancel'].post as { responses: object; parameters: { name: string }[] };
    expect(Object.keys(cancel.responses)).toContain('202');
    expect(cancel.parameters.map((p) => p.name)).toEqual(['thread_id', 'run_id', 'action', 'wait']);
  });
});
