/**
 * Routes of crons, as the agent server API and the SDK's `crons` client call them: create (stateless or on a
 * thread), update, search, count and delete (`/runs/crons...`).
 */
import type { Context, Hono } from 'hono';
import type { RunnableConfig } from '../../../api/schemas/agent-server';
import { CronCount, CronCreate, CronSearch, CronUpdate } from '../../../api/schemas/agent-server-crons';
import { CronExpression, CronExpressionError } from '../../../api/cron-expression';
import { RequestValidator } from '../../validation';
import { nextRunDate } from '../cron/cron-scheduler';
import { checkInputMessages, checkRunConfig } from './request-checks';
import { parseBody, pathUuid, readBody, uuidParam } from './request-readers';
import type { AgentServerDeps, AgentServerEnv } from './env';

type AgentContext = Context<AgentServerEnv>;

/** What a cron's body gives beyond its schema: a schedule that parses, and a run's input and config. */
function checkCronBody(
  validator: RequestValidator,
  body: { schedule?: string; input?: Record<string, unknown> | null; config?: RunnableConfig } | undefined,
): void {
  if (!body) return;
  if (body.schedule !== undefined) {
    try {
      CronExpression.parse(body.schedule);
    } catch (error) {
      if (!(error instanceof CronExpressionError)) throw error;
      validator.add(['body', 'schedule'], 'value_error', error.message);
    }
  }
  // what each run of the cron will be given, checked as a run's (the payload is kept as sent: each run gives its
  // messages ids of their own)
  checkInputMessages(validator, body.input, ['body', 'input']);
  checkRunConfig(validator, body.config, ['body', 'config']);
}

/** Registers the cron routes. */
export function registerCronRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, threads, crons, scheduler, clock } = deps;

  const createCron = async (c: AgentContext, onThread: boolean) => {
    const deployment = c.get('deployment');
    const validator = new RequestValidator();
    const threadId = onThread ? pathUuid(validator, c, 'threadId') : null;
    const parsed = await readBody(c, validator, CronCreate);
    checkCronBody(validator, parsed);
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

  // Like runs, a search or a count may name an assistant by its graph id; thread ids are kept in lower case.
  const filters = <Q extends CronCount>(c: AgentContext, query: Q): Q | undefined => {
    const deployment = c.get('deployment');
    const assistantId =
      query.assistant_id && assistants.find(deployment.id, query.assistant_id, deployment.graphIds)?.assistant_id;
    if (query.assistant_id && !assistantId) return undefined;
    return { ...query, assistant_id: assistantId || undefined, thread_id: query.thread_id?.toLowerCase() };
  };
  app.post('/runs/crons/search', async (c) => {
    const query = filters(c, await parseBody(c, CronSearch));
    return c.json(query ? crons.search(c.get('deployment').id, query) : []);
  });
  app.post('/runs/crons/count', async (c) => {
    const query = filters(c, await parseBody(c, CronCount));
    return c.json(query ? crons.count(c.get('deployment').id, query) : 0);
  });

  app.patch('/runs/crons/:cronId', async (c) => {
    const deploymentId = c.get('deployment').id;
    const validator = new RequestValidator();
    const cronId = pathUuid(validator, c, 'cronId');
    const parsed = await readBody(c, validator, CronUpdate);
    checkCronBody(validator, parsed);
    const body = validator.valid(parsed);
    const current = crons.find(cronId);
    const schedule = body.schedule ?? current?.cron.schedule;
    const endTime = body.end_time === undefined ? current?.cron.end_time ?? null : body.end_time && new Date(body.end_time).toISOString();
    // a new schedule or end fires next from now on; otherwise the cron keeps its next run
    const rescheduled = schedule !== undefined && (body.schedule !== undefined || body.end_time !== undefined);
    const cron = crons.update(deploymentId, cronId, {
      schedule: body.schedule,
      payload: {
        ...(body.input !== undefined ? { input: body.input } : {}),
        ...(body.config !== undefined ? { config: body.config } : {}),
      },
      metadata: body.metadata,
      endTime: body.end_time === undefined ? undefined : endTime,
      nextRunDate: rescheduled ? nextRunDate(schedule, clock.now(), endTime) : undefined,
    });
    scheduler.wake();
    return c.json(cron);
  });
  app.delete('/runs/crons/:cronId', (c) => {
    crons.delete(c.get('deployment').id, uuidParam(c, 'cronId'));
    scheduler.wake();
    return c.body(null, 204);
  });
}
