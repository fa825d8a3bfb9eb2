/**
 * Routes that act on several runs, or on a run's record: a batch of stateless background runs, the cancellation of
 * several runs at once, and the deletion of a run that has ended.
 */
import type { Hono } from 'hono';
import { RunBatch, RunCancelMany, type RunStatus } from '../../../api/schemas/agent-server';
import { HttpError } from '../../errors';
import { queryParam } from '../../query-params';
import { RequestValidator } from '../../validation';
import type { StoredRun } from '../store/runs';
import type { AgentServerDeps, AgentServerEnv } from './env';
import { pathUuid, readBody } from './request-readers';
import { checkRunBody, runAssistant } from './run-routes';

/** Statuses of the runs a `status` of `POST /runs/cancel` names. */
const CANCEL_STATUSES: Readonly<Record<NonNullable<RunCancelMany['status']>, RunStatus[]>> = {
  pending: ['pending'],
  running: ['running'],
  all: ['pending', 'running'],
};

/** Registers the batch, cancel-many and run deletion routes. */
export function registerRunBatchRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, runs, manager } = deps;

  // stateless background runs, as POST /runs makes one: every body is checked before any run starts
  app.post('/runs/batch', async (c) => {
    const validator = new RequestValidator();
    const bodies = await readBody(c, validator, RunBatch);
    const checked = bodies?.map((body, index) => checkRunBody(validator, body, ['body', index])) ?? [];
    validator.throwIfFailed();
    const deployment = c.get('deployment');
    const chosen = checked.map((body) => ({ body, assistant: runAssistant(c, assistants, body.assistant_id) }));
    return c.json(chosen.map(({ body, assistant }) => manager.startStatelessRun(deployment, assistant, body)));
  });

  app.post('/runs/cancel', async (c) => {
    const validator = new RequestValidator();
    const action = queryParam(c, 'action') ?? 'interrupt';
    if (action !== 'interrupt' && action !== 'rollback')
      validator.add(['query', 'action'], 'enum', "Input should be 'interrupt' or 'rollback'");
    const body = await readBody(c, validator, RunCancelMany);
    if (body && body.status === undefined && (body.thread_id === undefined || body.run_ids === undefined)) {
      validator.add(['body'], 'value_error', 'Value error, give thread_id and run_ids, or status');
    }
    validator.throwIfFailed();
    const { thread_id: threadId, run_ids: runIds, status } = body as RunCancelMany;
    const deploymentId = c.get('deployment').id;
    // every named run is looked up before any is stopped: a 404 stops none
    const chosen: StoredRun[] =
      status !== undefined
        ? runs.ofDeployment(deploymentId, CANCEL_STATUSES[status])
        : (runIds ?? []).map((runId) => runs.get(deploymentId, threadId as string, runId.toLowerCase()));
    for (const stored of chosen) {
      manager.cancel(deploymentId, stored.run.thread_id as string, stored.run.run_id, action as 'interrupt' | 'rollback');
    }
    return c.body(null, 204);
  });

  app.delete('/threads/:threadId/runs/:runId', (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const runId = pathUuid(validator, c, 'runId');
    validator.throwIfFailed();
    const stored = runs.get(c.get('deployment').id, threadId, runId);
    // a run that has not ended would go on writing to its thread: it is cancelled first; deleting an ended run
    // leaves the thread's state as the run made it
    if (stored.run.status === 'pending' || stored.run.status === 'running') {
      throw new HttpError(409, `Run ${runId} has not ended: cancel it before deleting it`);
    }
    runs.delete(runId);
    return c.body(null, 204);
  });
}
