/** Routes of the Store: items put, read, deleted and searched, and the namespaces that hold them. */
import type { Hono } from 'hono';
import {
  StoreDeleteItem,
  StoreListNamespaces,
  StoreNamespace,
  StorePutItem,
  StoreSearchItems,
} from '../../../api/schemas/agent-server-store';
import { RequestValidator } from '../../validation';
import type { AgentServerDeps, AgentServerEnv } from './env';
import { parseBody } from './request-readers';

/** Registers the Store routes. */
export function registerStoreRoutes(app: Hono<AgentServerEnv>, deps: Pick<AgentServerDeps, 'storeItems'>): void {
  const { storeItems } = deps;

  app.put('/store/items', async (c) => {
    storeItems.put(c.get('deployment').id, await parseBody(c, StorePutItem));
    return c.body(null, 204);
  });
  // the namespace comes joined by '.', as the SDK sends it; no item answers null, as the LangGraph server does
  app.get('/store/items', (c) => {
    const validator = new RequestValidator();
    const raw = c.req.query('namespace');
    const namespace = validator.parse(StoreNamespace, raw ? raw.split('.') : [], ['query', 'namespace']);
    const key = c.req.query('key');
    if (!key) validator.add(['query', 'key'], 'missing', 'Field required');
    const refreshTtl = validator.boolQuery('refresh_ttl', c.req.query('refresh_ttl'));
    validator.throwIfFailed();
    return c.json(storeItems.get(c.get('deployment').id, namespace ?? [], key ?? '', refreshTtl ?? true));
  });
  app.delete('/store/items', async (c) => {
    const { namespace, key } = await parseBody(c, StoreDeleteItem);
    storeItems.delete(c.get('deployment').id, namespace, key);
    return c.body(null, 204);
  });
  app.post('/store/items/search', async (c) =>
    c.json({ items: storeItems.search(c.get('deployment').id, await parseBody(c, StoreSearchItems)) }),
  );
  app.post('/store/namespaces', async (c) =>
    c.json({ namespaces: storeItems.listNamespaces(c.get('deployment').id, await parseBody(c, StoreListNamespaces)) }),
  );
}
