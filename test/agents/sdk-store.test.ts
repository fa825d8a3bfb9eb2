/**
 * The Store and `/info` of a deployment's agent server as the official LangGraph JS client calls them: items put,
 * read, searched (namespace prefix, filters, pages), deleted and expired; namespaces listed; each deployment's store
 * its own.
 */
import { Client } from '@langchain/langgraph-sdk';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { ManualClock } from '../../lib/local/clock';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';

const clock = new ManualClock(Date.UTC(2030, 0, 1));
let platform: AgentTestPlatform;
let deployment: Deployment;
let client: Client;
let other: Client;

const sdkClient = (target: Deployment): Client =>
  new Client({
    apiUrl: target.url as string,
    defaultHeaders: { 'X-Api-Key': platform.apiKey },
    callerOptions: { maxRetries: 0 },
  });

/** The SDK's error for a status, as its fetch throws it. */
const status = (code: number) => expect.objectContaining({ status: code });

beforeAll(async () => {
  platform = await startAgentTestPlatform({ clock });
  deployment = await platform.deploy('store');
  client = sdkClient(deployment);
  other = sdkClient(await platform.deploy('store-other'));
});
afterAll(() => platform.close());

test('an item is put, read, replaced (its creation time kept) and deleted', async () => {
  await client.store.putItem(['users', 'u1', 'prefs'], 'theme', { color: 'dark', size: 12 });
  const created = clock.now();
  const item = await client.store.getItem(['users', 'u1', 'prefs'], 'theme');
  expect(item).toMatchObject({
    namespace: ['users', 'u1', 'prefs'],
    key: 'theme',
    value: { color: 'dark', size: 12 },
    createdAt: new Date(created).toISOString(),
    updatedAt: new Date(created).toISOString(),
  });

  clock.advance(1000);
  await client.store.putItem(['users', 'u1', 'prefs'], 'theme', { color: 'light' });
  const replaced = await client.store.getItem(['users', 'u1', 'prefs'], 'theme');
  expect(replaced).toMatchObject({
    value: { color: 'light' },
    createdAt: new Date(created).toISOString(),
    updatedAt: new Date(created + 1000).toISOString(),
  });

  await client.store.deleteItem(['users', 'u1', 'prefs'], 'theme');
  expect(await client.store.getItem(['users', 'u1', 'prefs'], 'theme')).toBeNull();
  // deleting again is no error
  await expect(client.store.deleteItem(['users', 'u1', 'prefs'], 'theme')).resolves.toBeUndefined();
});

test('a search finds the items under a namespace prefix whose value holds the filter, newest first, in pages', async () => {
  const books = [
    { key: 'b1', value: { author: 'Le Guin', year: 1969, tags: { genre: 'sf' } } },
    { key: 'b2', value: { author: 'Le Guin', year: 1974, tags: { genre: 'sf' } } },
    { key: 'b3', value: { author: 'Austen', year: 1813, tags: { genre: 'novel' } } },
    { key: 'b4', value: { author: 'Le Guin', year: 1968, tags: { genre: 'fantasy' } } },
  ];
  for (const { key, value } of books) {
    clock.advance(1000);
    await client.store.putItem(['library', 'shelf-a'], key, value);
  }
  await client.store.putItem(['library-annex'], 'b9', { author: 'Le Guin', year: 2000 });
  await client.store.putItem(['archive', 'library'], 'b8', { author: 'Le Guin', year: 2001 });

  const keys = async (...args: Parameters<Client['store']['searchItems']>) =>
    (await client.store.searchItems(...args)).items.map((item) => item.key);

  // a prefix matches whole labels: library-annex and archive/library are not under library
  expect(await keys(['library'])).toEqual(['b4', 'b3', 'b2', 'b1']);
  expect(await keys(['library'], { filter: { author: 'Le Guin' } })).toEqual(['b4', 'b2', 'b1']);
  expect(await keys(['library'], { filter: { author: 'Le Guin' }, limit: 2 })).toEqual(['b4', 'b2']);
  expect(await keys(['library'], { filter: { author: 'Le Guin' }, limit: 2, offset: 2 })).toEqual(['b1']);
  expect(await keys(['library'], { filter: { tags: { genre: 'sf' } } })).toEqual(['b2', 'b1']);
  expect(await keys(['library'], { filter: { year: { $gte: 1969, $lt: 1974 } } })).toEqual(['b1']);
  expect(await keys(['library'], { filter: { author: { $ne: 'Le Guin' } } })).toEqual(['b3']);
  expect(await keys(['library', 'shelf-b'])).toEqual([]);

  const [first] = (await client.store.searchItems(['library'], { limit: 1 })).items;
  expect(first).toMatchObject({ namespace: ['library', 'shelf-a'], key: 'b4', value: books[3].value, score: null });
  expect(first.createdAt).toEqual(expect.any(String));

  // no vector index: a query neither filters nor orders
  expect(await keys(['library'], { query: 'science fiction' })).toEqual(['b4', 'b3', 'b2', 'b1']);
  // an unknown operator is refused, not read as a value to equal
  await expect(client.store.searchItems(['library'], { filter: { year: { $in: [1969] } } })).rejects.toEqual(status(422));
});

test('namespaces are listed by prefix and suffix (a * matches any label), cut to a depth, in pages', async () => {
  for (const namespace of [
    ['ns', 'a', 'x'],
    ['ns', 'a', 'y'],
    ['ns', 'b', 'x'],
    ['ns', 'b'],
    ['other', 'a', 'x'],
  ]) {
    await client.store.putItem(namespace, 'k', { n: 1 });
  }
  const list = async (options: Parameters<Client['store']['listNamespaces']>[0]) =>
    (await client.store.listNamespaces(options)).namespaces;

  expect(await list({ prefix: ['ns'] })).toEqual([['ns', 'a', 'x'], ['ns', 'a', 'y'], ['ns', 'b'], ['ns', 'b', 'x']]);
  expect(await list({ prefix: ['ns'], suffix: ['x'] })).toEqual([['ns', 'a', 'x'], ['ns', 'b', 'x']]);
  expect(await list({ prefix: ['*', 'a'] })).toEqual([['ns', 'a', 'x'], ['ns', 'a', 'y'], ['other', 'a', 'x']]);
  expect(await list({ prefix: ['ns'], maxDepth: 2 })).toEqual([['ns', 'a'], ['ns', 'b']]);
  expect(await list({ prefix: ['ns'], limit: 2, offset: 1 })).toEqual([['ns', 'a', 'y'], ['ns', 'b']]);
});

test('an item with a time to live is gone once it has passed; a read restarts it', async () => {
  await client.store.putItem(['sessions'], 's1', { user: 'u1' }, { ttl: 10 });
  await client.store.putItem(['sessions'], 's2', { user: 'u2' }, { ttl: 10 });
  clock.advance(9 * 60_000);
  // read without refreshing: s1 keeps its expiry; read with the default: s2's starts again
  expect(await client.store.getItem(['sessions'], 's1', { refreshTtl: false })).not.toBeNull();
  expect(await client.store.getItem(['sessions'], 's2')).not.toBeNull();
  clock.advance(2 * 60_000);
  expect(await client.store.getItem(['sessions'], 's1')).toBeNull();
  expect(await client.store.getItem(['sessions'], 's2')).toMatchObject({ value: { user: 'u2' } });
  expect((await client.store.searchItems(['sessions'])).items.map((item) => item.key)).toEqual(['s2']);
  expect((await client.store.listNamespaces({ prefix: ['sessions'] })).namespaces).toEqual([['sessions']]);
});

test("each deployment's store is its own", async () => {
  await client.store.putItem(['shared-name'], 'k', { owner: 'store' });
  await other.store.putItem(['shared-name'], 'k', { owner: 'store-other' });
  expect(await client.store.getItem(['shared-name'], 'k')).toMatchObject({ value: { owner: 'store' } });
  expect(await other.store.getItem(['shared-name'], 'k')).toMatchObject({ value: { owner: 'store-other' } });
  expect(await other.store.getItem(['library', 'shelf-a'], 'b1')).toBeNull();
  expect((await other.store.searchItems([])).items.map((item) => item.value)).toEqual([{ owner: 'store-other' }]);
  expect((await other.store.listNamespaces()).namespaces).toEqual([['shared-name']]);
  await other.store.deleteItem(['shared-name'], 'k');
  expect(await client.store.getItem(['shared-name'], 'k')).toMatchObject({ value: { owner: 'store' } });
});

test('requests the store cannot keep are refused with the field at fault', async () => {
  const put = (body: unknown) =>
    fetch(`${deployment.url}/store/items`, {
      method: 'PUT',
      headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const empty = await put({ namespace: [], key: 'k', value: {} });
  expect(empty.status).toBe(422);
  const dotted = await put({ namespace: ['a.b'], key: 'k', value: {} });
  expect(dotted.status).toBe(422);
  expect(JSON.stringify(await dotted.json())).toContain('periods');
  const notObject = await put({ namespace: ['a'], key: 'k', value: [1, 2] });
  expect(notObject.status).toBe(422);
  // the SDK refuses a period itself, before any request
  await expect(client.store.putItem(['a.b'], 'k', {})).rejects.toThrow(/periods/);
});

test('/info answers as the LangGraph server does: its version and features', async () => {
  const response = await fetch(`${deployment.url}/info`, { headers: { 'X-Api-Key': platform.apiKey } });
  expect(response.status).toBe(200);
  const info = (await response.json()) as Record<string, unknown>;
  expect(info).toMatchObject({
    version: expect.any(String),
    flags: { assistants: true, crons: true, langsmith: true },
    host: { project_id: deployment.id },
  });
  // and /docs describes the Store and /info beside the rest
  const docs = (await (await fetch(`${deployment.url}/docs`, { headers: { 'X-Api-Key': platform.apiKey } })).json()) as { paths: Record<string, object> };
  expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(['/info', '/store/items', '/store/items/search', '/store/namespaces']));
  expect(Object.keys(docs.paths['/store/items']).sort()).toEqual(['delete', 'get', 'put']);
});
