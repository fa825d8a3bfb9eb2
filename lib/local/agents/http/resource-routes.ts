/** Routes of assistants and threads, and the system routes `/ok` and `/docs`. */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import {
  AssistantCreate,
  AssistantSearch,
  AssistantUpdate,
  ThreadCreate,
  ThreadHistoryRequest,
  ThreadSearch,
  type RunnableConfig,
} from '../../../api/schemas/agent-server';
import { MAX_JSON_DEPTH, TOO_DEEP, exceedsJsonDepth } from '../../json-values';
import { RequestValidationError } from '../../errors';
import { RequestValidator, readJsonBody } from '../../validation';
import { agentServerOpenApi } from './openapi';
import { checkRunConfig } from './request-checks';
import type { AgentServerDeps, AgentServerEnv } from './env';

type AgentContext = Context<AgentServerEnv>;

/**
 * Reads a JSON body with a schema into the request's validator, which collects its problems with those of the path
 * and the query (a 422 lists them all); undefined when the body has any. A field nested deeper than the platform
 * stores ({@link MAX_JSON_DEPTH} levels) is one of them, at the field. A body too large is a 413 at once.
 */
export async function readBody<S extends z.ZodType>(
  c: AgentContext,
  validator: RequestValidator,
  schema: S,
): Promise<z.infer<S> | undefined> {
  let raw: unknown;
  try {
    raw = await readJsonBody(c, { anyContentType: true });
  } catch (error) {
    // no JSON to parse (none, malformed, a lone surrogate): that problem is the body's
    if (!(error instanceof RequestValidationError)) throw error;
    for (const item of error.items) validator.add(item.loc, item.type, item.msg);
    return undefined;
  }
  let deep = false;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    for (const [field, value] of Object.entries(raw)) {
      if (!exceedsJsonDepth(value)) continue;
      validator.add(['body', field], 'value_error', `Value error, ${field} is ${TOO_DEEP}`);
      deep = true;
    }
  }
  const body = validator.parse(schema, raw, ['body']);
  return deep ? undefined : body;
}

/** Parses the JSON body of a request without path or query parameters; 422 with every problem otherwise. */
export async function parseBody<S extends z.ZodType>(c: AgentContext, schema: S): Promise<z.infer<S>> {
  const validator = new RequestValidator();
  return validator.valid(await readBody(c, validator, schema));
}

/**
 * A uuid path parameter in canonical form, its problem recorded at the parameter's name as the API documents it
 * (`thread_id`).
 */
export function pathUuid(validator: RequestValidator, c: AgentContext, name: string): string {
  const documented = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return validator.uuidPath(documented, c.req.param(name) ?? '');
}

/** The uuid path parameter of a request without other parameters; 422 otherwise. */
export function uuidParam(c: AgentContext, name: string): string {
  const validator = new RequestValidator();
  return validator.valid(pathUuid(validator, c, name));
}

/** Registers the system, assistant and thread routes. */
export function registerResourceRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, threads, manager } = deps;
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

  app.get('/ok', (c) => c.json({ ok: true }));
  app.get('/docs', (c) => c.json(agentServerOpenApi(c.get('deployment').id)));

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
    return c.json(page);
  });
  app.get('/assistants/:assistantId', (c) =>
    c.json(assistants.resolve(c.get('deployment').id, c.req.param('assistantId'), graphIds(c))),
  );
  // the id of the assistant a path names: a uuid, or a served graph's id for its default assistant; anything else
  // names no assistant, as for GET (404)
  const assistantIdOf = (c: AgentContext): string =>
    assistants.resolve(c.get('deployment').id, c.req.param('assistantId') ?? '', graphIds(c)).assistant_id;
  app.patch('/assistants/:assistantId', async (c) => {
    const validator = new RequestValidator();
    const body = await readBody(c, validator, AssistantUpdate);
    checkAssistantBody(c, validator, body);
    return c.json(assistants.update(c.get('deployment').id, assistantIdOf(c), body as AssistantUpdate));
  });
  app.delete('/assistants/:assistantId', (c) => {
    assistants.delete(c.get('deployment').id, assistantIdOf(c));
    return c.body(null, 204);
  });

  app.post('/threads', async (c) => c.json(threads.create(c.get('deployment').id, await parseBody(c, ThreadCreate))));
  app.post('/threads/search', async (c) => c.json(threads.search(c.get('deployment').id, await parseBody(c, ThreadSearch))));
  app.get('/threads/:threadId', (c) => c.json(threads.get(c.get('deployment').id, uuidParam(c, 'threadId'))));
  app.delete('/threads/:threadId', (c) => {
    // runs still going are stopped first: they would write into a thread that no longer exists
    manager.deleteThread(c.get('deployment').id, uuidParam(c, 'threadId'));
    return c.body(null, 204);
  });
  app.get('/threads/:threadId/state', (c) => c.json(threads.state(c.get('deployment').id, uuidParam(c, 'threadId'))));
  // the states of its checkpoints, newest first (the SDK's getHistory; useStream loads it for every thread)
  app.post('/threads/:threadId/history', async (c) => {
    const threadId = uuidParam(c, 'threadId');
    const { limit, before, metadata } = await parseBody(c, ThreadHistoryRequest);
    const beforeId = typeof before === 'string' ? before : before?.configurable.checkpoint_id;
    return c.json(threads.history(c.get('deployment').id, threadId, { limit: limit ?? 10, beforeId, metadata: metadata ?? undefined }));
  });
}
