/**
 * The official LangGraph JS client's assistants calls against a deployment of the local platform: create (a given
 * id, if_exists), get, update, delete, search and count, versions and setLatest, and what an assistant tells of its
 * graph (getGraph with and without xray, getSchemas, getSubgraphs).
 */
import { Client } from '@langchain/langgraph-sdk';
import { randomUUID } from 'node:crypto';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: Client;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('sdk-assistants');
  client = new Client({ apiUrl: deployment.url as string, defaultHeaders: { 'X-Api-Key': platform.apiKey } });
});
afterAll(() => platform.close());

describe('create, get, update, delete', () => {
  it('creates an assistant of a given id; if_exists do_nothing answers the existing one, raise a 409', async () => {
    const assistantId = randomUUID();
    const created = await client.assistants.create({
      graphId: 'chat',
      assistantId,
      name: 'support',
      description: 'answers support questions',
      config: { configurable: { reply_tokens: 3 } },
      metadata: { team: 'support' },
    });
    expect(created).toMatchObject({
      assistant_id: assistantId,
      graph_id: 'chat',
      name: 'support',
      description: 'answers support questions',
      config: { configurable: { reply_tokens: 3 } },
      metadata: { team: 'support' },
      version: 1,
    });
    const again = await client.assistants.create({ graphId: 'chat', assistantId, name: 'other', ifExists: 'do_nothing' });
    expect(again).toEqual(created);
    await expect(client.assistants.create({ graphId: 'chat', assistantId, ifExists: 'raise' })).rejects.toThrow(/409/);
    expect(await client.assistants.get(assistantId)).toEqual(created);
  });

  it('gets a graph default assistant by the graph id', async () => {
    const assistant = await client.assistants.get('research');
    expect(assistant).toMatchObject({ graph_id: 'research', metadata: { created_by: 'system' } });
  });

  it('updates into a new version, merging metadata; deletes, after which get is a 404', async () => {
    const created = await client.assistants.create({ graphId: 'chat', name: 'before', metadata: { a: 1 } });
    const updated = await client.assistants.update(created.assistant_id, { name: 'after', metadata: { b: 2 } });
    expect(updated).toMatchObject({ name: 'after', metadata: { a: 1, b: 2 }, version: 2 });
    await client.assistants.delete(created.assistant_id);
    await expect(client.assistants.get(created.assistant_id)).rejects.toThrow(/404/);
  });

  it('deletes the threads an assistant ran on with deleteThreads', async () => {
    const assistant = await client.assistants.create({ graphId: 'chat' });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: { messages: [{ role: 'user', content: 'hi' }] } });
    await client.assistants.delete(assistant.assistant_id, { deleteThreads: true });
    await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/404/);
  });
});

describe('search and count', () => {
  const tag = randomUUID();
  beforeAll(async () => {
    for (const name of ['Bravo', 'alpha', 'Charlie']) {
      await client.assistants.create({ graphId: name === 'Charlie' ? 'research' : 'chat', name, metadata: { tag } });
    }
  });

  it('filters by graph, name (contained, any case) and metadata, and counts the same', async () => {
    const all = await client.assistants.search({ metadata: { tag } });
    expect(all.map((a) => a.name)).toEqual(['Bravo', 'alpha', 'Charlie']);
    const chat = await client.assistants.search({ metadata: { tag }, graphId: 'chat' });
    expect(chat.map((a) => a.name)).toEqual(['Bravo', 'alpha']);
    const named = await client.assistants.search({ metadata: { tag }, name: 'ALP' });
    expect(named.map((a) => a.name)).toEqual(['alpha']);
    expect(await client.assistants.count({ metadata: { tag } })).toBe(3);
    expect(await client.assistants.count({ metadata: { tag }, graphId: 'research' })).toBe(1);
    expect(await client.assistants.count({ metadata: { tag }, name: 'a' })).toBe(3);
  });

  it('sorts by a field in either order, and answers only the selected fields', async () => {
    const byName = await client.assistants.search({ metadata: { tag }, sortBy: 'name', sortOrder: 'desc' });
    expect(byName.map((a) => a.name)).toEqual(['Charlie', 'Bravo', 'alpha']);
    const newest = await client.assistants.search({ metadata: { tag }, sortBy: 'created_at', sortOrder: 'desc', limit: 1 });
    expect(newest.map((a) => a.name)).toEqual(['Charlie']);
    const selected = await client.assistants.search({ metadata: { tag }, select: ['name', 'graph_id'], limit: 1 });
    expect(selected).toEqual([{ name: 'Bravo', graph_id: 'chat' }]);
  });

  it('pages with the next offset', async () => {
    const first = await client.assistants.search({ metadata: { tag }, limit: 2, includePagination: true });
    expect(first.assistants).toHaveLength(2);
    expect(first.next).toBe('2');
    const last = await client.assistants.search({ metadata: { tag }, limit: 2, offset: 2, includePagination: true });
    expect(last.assistants.map((a) => a.name)).toEqual(['Charlie']);
    expect(last.next).toBeNull();
  });
});

describe('versions', () => {
  it('lists every version newest first, filters them by metadata, and makes an older one the latest', async () => {
    const created = await client.assistants.create({ graphId: 'chat', name: 'v1', metadata: { stage: 'one' } });
    await client.assistants.update(created.assistant_id, { name: 'v2', metadata: { stage: 'two' } });
    await client.assistants.update(created.assistant_id, { name: 'v3', config: { configurable: { reply_tokens: 2 } } });
    const versions = await client.assistants.getVersions(created.assistant_id);
    expect(versions.map((v) => [v.version, v.name])).toEqual([
      [3, 'v3'],
      [2, 'v2'],
      [1, 'v1'],
    ]);
    expect(versions[0]).toMatchObject({ assistant_id: created.assistant_id, graph_id: 'chat', config: { configurable: { reply_tokens: 2 } } });
    const staged = await client.assistants.getVersions(created.assistant_id, { metadata: { stage: 'one' } });
    expect(staged.map((v) => v.version)).toEqual([1]);
    expect((await client.assistants.getVersions(created.assistant_id, { limit: 1, offset: 1 })).map((v) => v.version)).toEqual([2]);

    const latest = await client.assistants.setLatest(created.assistant_id, 1);
    expect(latest).toMatchObject({ version: 1, name: 'v1', metadata: { stage: 'one' }, config: {} });
    expect(await client.assistants.get(created.assistant_id)).toMatchObject({ version: 1, name: 'v1' });
    // the next update is a version above every recorded one
    expect((await client.assistants.update(created.assistant_id, { name: 'v4' })).version).toBe(4);
    await expect(client.assistants.setLatest(created.assistant_id, 9)).rejects.toThrow(/404/);
  });

  it('uses the latest version in a run', async () => {
    const created = await client.assistants.create({ graphId: 'chat', config: { configurable: { reply_tokens: 2 } } });
    await client.assistants.update(created.assistant_id, { config: { configurable: { reply_tokens: 5 } } });
    await client.assistants.setLatest(created.assistant_id, 1);
    const values = (await client.runs.wait(null, created.assistant_id, {
      input: { messages: [{ role: 'user', content: 'count my words please' }] },
    })) as { messages: { type: string; content: string }[] };
    const reply = values.messages.find((message) => message.type === 'ai');
    expect(reply?.content.split(/\s+/).filter(Boolean)).toHaveLength(2);
  });
});

describe('graph, schemas and subgraphs', () => {
  it('draws the chat graph: start, its node, end, and the edges between them', async () => {
    const graph = await client.assistants.getGraph('chat');
    expect(graph.nodes.map((node) => node.id)).toEqual(['__start__', 'agent', '__end__']);
    expect(graph.nodes[1]).toMatchObject({ type: 'runnable', data: { name: 'agent' } });
    expect(graph.edges).toEqual([
      { source: '__start__', target: 'agent' },
      { source: 'agent', target: '__end__' },
    ]);
  });

  it('draws the research subgraph as one node, or its nodes inside it with xray', async () => {
    const plain = await client.assistants.getGraph('research');
    expect(plain.nodes.map((node) => node.id)).toEqual(['__start__', 'plan', 'research_subgraph', 'outline', 'report', '__end__']);
    const xray = await client.assistants.getGraph('research', { xray: true });
    expect(xray.nodes.map((node) => node.id)).toEqual([
      '__start__',
      'plan',
      'research_subgraph:search',
      'research_subgraph:summarize',
      'outline',
      'report',
      '__end__',
    ]);
    expect(xray.edges).toEqual(
      expect.arrayContaining([
        { source: 'plan', target: 'research_subgraph:search' },
        { source: 'research_subgraph:search', target: 'research_subgraph:summarize' },
        { source: 'research_subgraph:summarize', target: 'report' },
      ]),
    );
    expect(xray.edges).toHaveLength(7);
    expect(await client.assistants.getGraph('research', { xray: 1 })).toEqual(xray);
  });

  it('answers the schemas of the graph: its state channels and the model settings it reads', async () => {
    const schemas = await client.assistants.getSchemas('research');
    expect(schemas.graph_id).toBe('research');
    expect(Object.keys(schemas.state_schema?.properties ?? {})).toEqual(['messages', 'topic', 'queries', 'findings', 'summary', 'outline']);
    expect(schemas.input_schema?.properties?.topic).toEqual({ type: 'string' });
    expect(schemas.output_schema?.properties).toEqual(schemas.state_schema?.properties);
    const configurable = schemas.config_schema?.properties?.configurable as { properties: Record<string, unknown> };
    expect(configurable.properties.reply_tokens).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('answers the subgraphs by namespace, one namespace asked for, and none for a graph without', async () => {
    const subgraphs = await client.assistants.getSubgraphs('research');
    expect(Object.keys(subgraphs)).toEqual(['research_subgraph']);
    expect(Object.keys(subgraphs.research_subgraph.state_schema?.properties ?? {})).toEqual(['topic', 'queries', 'findings', 'summary']);
    expect(await client.assistants.getSubgraphs('research', { namespace: 'research_subgraph', recurse: true })).toEqual(subgraphs);
    expect(await client.assistants.getSubgraphs('research', { namespace: 'elsewhere' })).toEqual({});
    expect(await client.assistants.getSubgraphs('chat')).toEqual({});
  });

  it('answers 404 for the graph of an assistant that does not exist', async () => {
    await expect(client.assistants.getGraph(randomUUID())).rejects.toThrow(/404/);
  });
});
