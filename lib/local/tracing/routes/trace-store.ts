/**
 * Routes of the trace store under `/api/v1`: tracing projects (`/sessions`) and run ingestion (`/runs/batch`).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { RunsBatch, SessionCreate } from '../../../api/schemas/tracing';
import { HttpError } from '../../errors';
import type { PlatformEnv } from '../../platform-env';
import { RequestValidator, readJsonBody } from '../../validation';
import { queryParam } from '../../query-params';
import type { RunStore } from '../store/runs';
import type { SessionStore } from '../store/sessions';

/** What the trace store routes use. */
export interface TraceStoreRouteDeps {
  /** Authenticates a request and sets its principal. */
  readonly auth: MiddlewareHandler<PlatformEnv>;
  /** Projects. */
  readonly sessions: SessionStore;
  /** Runs. */
  readonly runs: RunStore;
}

/** The `/sessions` and `/runs` routes, each behind the auth middleware. */
export function traceStoreRoutes({ auth, sessions, runs }: TraceStoreRouteDeps): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  app.post('/sessions', auth, async (c) => {
    const validator = new RequestValidator();
    const body = validator.parse(SessionCreate, await readJsonBody(c), ['body']);
    validator.throwIfFailed();
    return c.json(sessions.create(c.get('principal').tenantId, body!), 201);
  });

  app.get('/sessions', auth, (c) => c.json(sessions.list(c.get('principal').tenantId, queryParam(c, 'name'))));

  app.get('/sessions/:id', auth, (c) => {
    const validator = new RequestValidator();
    const id = validator.uuidPath('id', c.req.param('id'));
    validator.throwIfFailed();
    const session = sessions.get(c.get('principal').tenantId, id);
    if (!session) throw new HttpError(404, `Tracing project ${id} not found`);
    return c.json(session);
  });

  app.post('/runs/batch', auth, async (c) => {
    const validator = new RequestValidator();
    const body = validator.parse(RunsBatch, await readJsonBody(c, { malformedText: 'replace' }), ['body']);
    validator.throwIfFailed();
    return c.json(runs.ingest(c.get('principal').tenantId, body!), 202);
  });

  app.get('/runs/:id', auth, (c) => {
    const validator = new RequestValidator();
    const id = validator.uuidPath('id', c.req.param('id'));
    validator.throwIfFailed();
    const run = runs.get(c.get('principal').tenantId, id);
    if (!run) throw new HttpError(404, `Run ${id} not found`);
    return c.json(run);
  });

  return app;
}
