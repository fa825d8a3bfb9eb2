/** Routes of crons, and the request readers the agent server's routes share. */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { CronCreate, CronSearch } from '../../../api/schemas/agent-server';
import { MAX_JSON_DEPTH, TOO_DEEP, exceedsJsonDepth } from '../../json-values';
import { RequestValidationError } from '../../errors';
import { RequestValidator, readJsonBody } from '../../validation';
import { CronExpression, CronExpressionError } from '../cron/cron-expression';
import { nextRunDate } from '../cron/cron-scheduler';
import { checkInputMessages, checkRunConfig } from './request-checks';
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

/** Registers the cron routes. */
export function registerResourceRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, threads, crons, scheduler, clock } = deps;

  const createCron = async (c: AgentContext, onThread: boolean) => {
    const deployment = c.get('deployment');
    const validator = new RequestValidator();
    const threadId = onThread ? pathUuid(validator, c, 'threadId') : null;
    const parsed = await readBody(c, validator, CronCreate);
    if (parsed) {
      try {
        CronExpression.parse(parsed.schedule);
      } catch (error) {
        if (!(error instanceof CronExpressionError)) throw error;
        validator.add(['body', 'schedule'], 'value_error', error.message);
      }
      // what each run of the cron will be given, checked as a run's (the payload is kept as sent: each run gives its
      // messages ids of their own)
      checkInputMessages(validator, parsed.input, ['body', 'input']);
      checkRunConfig(validator, parsed.config, ['body', 'config']);
    }
    const body = validator.valid(parsed);
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
  app.post('/runs/crons', (c) => createCron(c, false));
  app.post('/threads/:threadId/runs/crons', (c) => createCron(c, true));
  app.post('/runs/crons/search', async (c) => {
    const deployment = c.get('deployment');
    const query = await parseBody(c, CronSearch);
    // Like runs, a search may name an assistant by its graph id.
    const assistantId =
      query.assistant_id && assistants.find(deployment.id, query.assistant_id, deployment.graphIds)?.assistant_id;
    if (query.assistant_id && !assistantId) return c.json([]);
    // thread ids are kept in lower case
    const threadId = query.thread_id?.toLowerCase();
    return c.json(
      crons.search(deployment.id, { ...query, assistant_id: assistantId || undefined, thread_id: threadId }),
    );
  });
  app.delete('/runs/crons/:cronId', (c) => {
    crons.delete(c.get('deployment').id, uuidParam(c, 'cronId'));
    scheduler.wake();
    return c.body(null, 204);
  });
}
