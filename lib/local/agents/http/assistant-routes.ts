/**
 * Routes of assistants as LangGraph Server answers them: create (a given id, `if_exists`), get, update (a new
 * version), delete (with the threads the assistant ran on, when asked), search and count, versions and the latest
 * version, and what an assistant tells of its graph (drawing, schemas, subgraphs). A path names an assistant by id,
 * or a served graph by id for the graph's default assistant.
 */
import type { Context, Hono } from 'hono';
import {
  AssistantCount,
  AssistantCreate,
  AssistantLatest,
  AssistantSearch,
  AssistantUpdate,
  AssistantVersionsRequest,
  type Assistant,
  type RunnableConfig,
} from '../../../api/schemas/agent-server';
import { HttpError } from '../../errors';
import { queryParam } from '../../query-params';
import { RequestValidator } from '../../validation';
import { BUILT_IN_GRAPHS } from '../graphs/registry';
import { drawGraph, graphSchemas, subgraphSchemas, xrayDepth } from '../graphs/introspect';
import type { AgentServerDeps, AgentServerEnv } from './env';
import { selectFields } from './field-selection';
import { checkRunConfig } from './request-checks';
import { parseBody, readBody } from './request-readers';

type AgentContext = Context<AgentServerEnv>;

/** `xray` of a graph request: `true`/`false`, or how many levels of subgraphs to draw (LangGraph accepts both). */
function xrayOf(validator: RequestValidator, raw: string | undefined): boolean | number {
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return validator.boolQuery('xray', raw) ?? false;
}

/** Registers the assistant routes. */
export function registerAssistantRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, manager, runs } = deps;
  const graphIds = (c: AgentContext) => c.get('deployment').graphIds;
  // What an assistant's body gives beyond its schema: a served graph, model settings the built-in model takes.
  const checkAssistantBody = (
    c: AgentContext,
    validator: RequestValidator,
    body: { graph_id?: string; config?: RunnableConfig } | undefined,
  ) => {
    if (body?.graph_id !== undefined && !graphIds(c).includes(body.graph_id)) {
      validator.add(
        ['body', 'graph_id'],
        'value_error',
        `Graph ${body.graph_id} is not served by this deployment (it serves ${graphIds(c).join(', ')})`,
      );
    }
    checkRunConfig(validator, body?.config, ['body', 'config']);
    validator.throwIfFailed();
  };
  const assistantOf = (c: AgentContext): Assistant =>
    assistants.resolve(c.get('deployment').id, c.req.param('assistantId') ?? '', graphIds(c));
  // the id of the assistant a path names; anything else names no assistant, as for GET (404)
  const assistantIdOf = (c: AgentContext): string => assistantOf(c).assistant_id;
  /** The compiled graph of the assistant a path names. */
  const graphOf = (c: AgentContext) => {
    const assistant = assistantOf(c);
    const graph = BUILT_IN_GRAPHS.get(assistant.graph_id);
    if (!graph || !graphIds(c).includes(assistant.graph_id)) {
      throw new HttpError(404, `Graph ${assistant.graph_id} of assistant ${assistant.assistant_id} is not served by this deployment`);
    }
    return { assistant, graph };
  };

  app.post('/assistants', async (c) => {
    const validator = new RequestValidator();
    const body = await readBody(c, validator, AssistantCreate);
    checkAssistantBody(c, validator, body);
    return c.json(assistants.create(c.get('deployment').id, body as AssistantCreate));
  });
  app.post('/assistants/search', async (c) => {
    const query = await parseBody(c, AssistantSearch);
    const { page, total } = assistants.search(c.get('deployment').id, graphIds(c), query);
    // as LangGraph Server pages: how many match, and the offset of the next page when there is one
    c.header('X-Pagination-Total', String(total));
    const next = (query.offset ?? 0) + page.length;
    if (page.length > 0 && next < total) c.header('X-Pagination-Next', String(next));
    return c.json(page.map((assistant) => selectFields(assistant, query.select)));
  });
  app.post('/assistants/count', async (c) => {
    const query = await parseBody(c, AssistantCount);
    return c.json(assistants.search(c.get('deployment').id, graphIds(c), { ...query, limit: 1 }).total);
  });
  app.get('/assistants/:assistantId', (c) => c.json(assistantOf(c)));
  app.patch('/assistants/:assistantId', async (c) => {
    const validator = new RequestValidator();
    const body = await readBody(c, validator, AssistantUpdate);
    checkAssistantBody(c, validator, body);
    return c.json(assistants.update(c.get('deployment').id, assistantIdOf(c), body as AssistantUpdate));
  });
  app.delete('/assistants/:assistantId', (c) => {
    const validator = new RequestValidator();
    const deleteThreads = validator.boolQuery('delete_threads', queryParam(c, 'delete_threads')) ?? false;
    validator.throwIfFailed();
    const deploymentId = c.get('deployment').id;
    const assistantId = assistantIdOf(c);
    if (deleteThreads) {
      // the threads the assistant ran on (a local thread records no assistant of its own)
      for (const threadId of runs.threadsOfAssistant(deploymentId, assistantId)) manager.deleteThread(deploymentId, threadId);
    }
    assistants.delete(deploymentId, assistantId);
    return c.body(null, 204);
  });

  app.post('/assistants/:assistantId/versions', async (c) => {
    const query = await parseBody(c, AssistantVersionsRequest);
    return c.json(assistants.versions(c.get('deployment').id, assistantIdOf(c), query));
  });
  app.post('/assistants/:assistantId/latest', async (c) => {
    const { version } = await parseBody(c, AssistantLatest);
    return c.json(assistants.setLatest(c.get('deployment').id, assistantIdOf(c), version));
  });

  app.get('/assistants/:assistantId/graph', (c) => {
    const validator = new RequestValidator();
    const xray = xrayOf(validator, queryParam(c, 'xray'));
    validator.throwIfFailed();
    return c.json(drawGraph(graphOf(c).graph, xrayDepth(xray)));
  });
  app.get('/assistants/:assistantId/schemas', (c) => {
    const { assistant, graph } = graphOf(c);
    return c.json(graphSchemas(assistant.graph_id, graph));
  });
  const subgraphs = (c: AgentContext, namespace: string | undefined) => {
    const validator = new RequestValidator();
    const recurse = validator.boolQuery('recurse', queryParam(c, 'recurse')) ?? false;
    validator.throwIfFailed();
    const { assistant, graph } = graphOf(c);
    return c.json(subgraphSchemas(assistant.graph_id, graph, { namespace, recurse }));
  };
  app.get('/assistants/:assistantId/subgraphs', (c) => subgraphs(c, undefined));
  app.get('/assistants/:assistantId/subgraphs/:namespace', (c) => subgraphs(c, c.req.param('namespace')));
}
