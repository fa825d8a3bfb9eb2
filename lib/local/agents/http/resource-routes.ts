/** Routes of assistants, threads and crons, and the system routes `/ok` and `/docs`. */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import {
  AssistantCreate,
  AssistantSearch,
  AssistantUpdate,
  CronCreate,
  CronSearch,
  ThreadCreate,
  type RunnableConfig,
} from '../../../api/schemas/agent-server';
import { MAX_JSON_DEPTH, TOO_DEEP, exceedsJsonDepth } from '../../json-values';
import { RequestValidator, readJsonBody } from '../../validation';
import { CronExpression, CronExpressionError } from '../cron/cron-expression';
import { nextRunDate } from '../cron/cron-scheduler';
import { agentServerOpenApi } from './openapi';
import { checkInputMessages, checkRunConfig } from './request-checks';
import type { AgentServerDeps, AgentServerEnv } from './env';

type AgentContext = Context<AgentServerEnv>;

/**
 * Parses a JSON body with a schema; 422 with every problem otherwise. A field nested deeper than the platform stores
 * ({@link MAX_JSON_DEPTH} levels) is one of them, at the field.
 */
export async function parseBody<S extends z.ZodType>(c: AgentContext, schema: S): Promise<z.infer<S>> {
  const validator = new RequestValidator();
  const raw = await readJsonBody(c, { anyContentType: true });
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    for (const [field, value] of Object.entries(raw)) {
      if (exceedsJsonDepth(value)) validator.add(['body', field], 'value_error', `Value error, ${field} is ${TOO_DEEP}`);
    }
  }
  const body = validator.parse(schema, raw, ['body']);
  validator.throwIfFailed();
  return body as z.infer<S>;
}

/** A uuid path parameter; 422 otherwise, at the parameter's name as the API documents it (`thread_id`). */
export function uuidParam(c: AgentContext, name: string): string {
  const validator = new RequestValidator();
  const documented = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  const value = validator.uuidPath(documented, c.req.param(name) ?? '');
  validator.throwIfFailed();
  return value;
}

/** Registers the system, assistant, thread and cron routes. */
export function registerResourceRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, threads, crons, manager, scheduler, clock } = deps;
  const graphIds = (c: AgentContext) => c.get('deployment').graphIds;
  const checkConfigOf = (config: RunnableConfig | undefined) => {
    const validator = new RequestValidator();
    checkRunConfig(validator, config, ['body', 'config']);
    validator.throwIfFailed();
  };
  const requireServedGraph = (c: AgentContext, graphId: string) => {
    if (!graphIds(c).includes(graphId)) {
      const validator = new RequestValidator();
      validator.add(
        ['body', 'graph_id'],
        'value_error',
        `Graph ${graphId} is not served by this deployment (it serves ${graphIds(c).join(', ')})`,
      );
      validator.throwIfFailed();
    }
  };

  app.get('/ok', (c) => c.json({ ok: true }));
  app.get('/docs', (c) => c.json(agentServerOpenApi(c.get('deployment').id)));

  app.post('/assistants', async (c) => {
    const body = await parseBody(c, AssistantCreate);
    requireServedGraph(c, body.graph_id);
    checkConfigOf(body.config);
    return c.json(assistants.create(c.get('deployment').id, body));
  });
  app.post('/assistants/search', async (c) =>
    c.json(assistants.search(c.get('deployment').id, graphIds(c), await parseBody(c, AssistantSearch))),
  );
  app.get('/assistants/:assistantId', (c) =>
    c.json(assistants.resolve(c.get('deployment').id, c.req.param('assistantId'), graphIds(c))),
  );
  // the id of the assistant a path names: a uuid, or a served graph's id for its default assistant; anything else
  // names no assistant, as for GET (404)
  const assistantIdOf = (c: AgentContext): string =>
    assistants.resolve(c.get('deployment').id, c.req.param('assistantId') ?? '', graphIds(c)).assistant_id;
  app.patch('/assistants/:assistantId', async (c) => {
    const body = await parseBody(c, AssistantUpdate);
    if (body.graph_id !== undefined) requireServedGraph(c, body.graph_id);
    checkConfigOf(body.config);
    return c.json(assistants.update(c.get('deployment').id, assistantIdOf(c), body));
  });
  app.delete('/assistants/:assistantId', (c) => {
    assistants.delete(c.get('deployment').id, assistantIdOf(c));
    return c.body(null, 204);
  });

  app.post('/threads', async (c) => c.json(threads.create(c.get('deployment').id, await parseBody(c, ThreadCreate))));
  app.get('/threads/:threadId', (c) => c.json(threads.get(c.get('deployment').id, uuidParam(c, 'threadId'))));
  app.delete('/threads/:threadId', (c) => {
    // runs still going are stopped first: they would write into a thread that no longer exists
    manager.deleteThread(c.get('deployment').id, uuidParam(c, 'threadId'));
    return c.body(null, 204);
  });
  app.get('/threads/:threadId/state', (c) => c.json(threads.state(c.get('deployment').id, uuidParam(c, 'threadId'))));

  const createCron = async (c: AgentContext, threadId: string | null) => {
    const deployment = c.get('deployment');
    const body = await parseBody(c, CronCreate);
    const validator = new RequestValidator();
    try {
      CronExpression.parse(body.schedule);
    } catch (error) {
      if (!(error instanceof CronExpressionError)) throw error;
      validator.add(['body', 'schedule'], 'value_error', error.message);
    }
    // what each run of the cron will be given, checked as a run's (the payload is kept as sent: each run gives its
    // messages ids of their own)
    checkInputMessages(validator, body.input, ['body', 'input']);
    checkRunConfig(validator, body.config, ['body', 'config']);
    validator.throwIfFailed();
    if (threadId) threads.assertExists(deployment.id, threadId);
    const assistant = assistants.resolve(deployment.id, body.assistant_id, deployment.graphIds);
    const endTime = body.end_time ? new Date(body.end_time).toISOString() : null;
    const cron = crons.create(deployment.id, {
      assistantId: assistant.assistant_id,
      threadId,
      schedule: body.schedule,
      payload: { input: body.input ?? null, config: body.config ?? {} },
      metadata: body.metadata ?? {},
      endTime,
      nextRunDate: nextRunDate(body.schedule, clock.now(), endTime),
    });
    scheduler.wake();
    return c.json(cron);
  };
  app.post('/runs/crons', (c) => createCron(c, null));
  app.post('/threads/:threadId/runs/crons', (c) => createCron(c, uuidParam(c, 'threadId')));
  app.post('/runs/crons/search', async (c) => {
    const deployment = c.get('deployment');
    const query = await parseBody(c, CronSearch);
    // Like runs, a search may name an assistant by its graph id.
    const assistantId =
      query.assistant_id && assistants.find(deployment.id, query.assistant_id, deployment.graphIds)?.assistant_id;
    if (query.assistant_id && !assistantId) return c.json([]);
    return c.json(crons.search(deployment.id, { ...query, assistant_id: assistantId || undefined }));
  });
  app.delete('/runs/crons/:cronId', (c) => {
    crons.delete(c.get('deployment').id, uuidParam(c, 'cronId'));
    scheduler.wake();
    return c.body(null, 204);
  });
}
