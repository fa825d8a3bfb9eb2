/**
 * Routes of the trace store under `/api/v1`: tracing projects (`/sessions`) and run ingestion (`/runs/batch`).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { isFinalBulkExportStatus } from '../../../api/schemas/bulk-export';
import { RunsBatch, SessionCreate, SessionUpdate } from '../../../api/schemas/tracing';
import { HttpError } from '../../errors';
import { REPLAYED_HEADER, idempotencyKeyOf, type IdempotencyKeys } from '../../idempotency';
import type { PlatformEnv } from '../../platform-env';
import { RequestValidator, readJsonBody } from '../../validation';
import { queryParam } from '../../query-params';
import type { ExportEngine } from '../exports/engine';
import type { ExportStore } from '../exports/store';
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
  /** Exports, those that name a deleted project. */
  readonly exports: ExportStore;
  /** Cancels the exports of a deleted project. */
  readonly engine: ExportEngine;
  /** The `Idempotency-Key`s of creates. */
  readonly idempotencyKeys: IdempotencyKeys;
}

/** The `/sessions` and `/runs` routes, each behind the auth middleware. */
export function traceStoreRoutes({ auth, sessions, runs, exports, engine, idempotencyKeys }: TraceStoreRouteDeps): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  const uuidOf = (raw: string): string => {
    const validator = new RequestValidator();
    const id = validator.uuidPath('id', raw);
    validator.throwIfFailed();
    return id!;
  };
  const notFound = (id: string) => new HttpError(404, `Tracing project ${id} not found`);

  app.post('/sessions', auth, async (c) => {
    const validator = new RequestValidator();
    const raw = await readJsonBody(c);
    const body = validator.parse(SessionCreate, raw, ['body']);
    validator.throwIfFailed();
    const tenantId = c.get('principal').tenantId;
    const { object, replayed } = await idempotencyKeys.create(tenantId, idempotencyKeyOf(c), {
      body: raw,
      live: (id) => sessions.get(tenantId, id),
      create: () => sessions.create(tenantId, body!),
      idOf: (session) => session.id,
    });
    if (replayed) c.header(REPLAYED_HEADER, 'true');
    return c.json(object, 201);
  });

  app.get('/sessions', auth, (c) => c.json(sessions.list(c.get('principal').tenantId, queryParam(c, 'name'))));

  app.get('/sessions/:id', auth, (c) => {
    const id = uuidOf(c.req.param('id'));
    const session = sessions.get(c.get('principal').tenantId, id);
    if (!session) throw notFound(id);
    return c.json(session);
  });

  app.patch('/sessions/:id', auth, async (c) => {
    const id = uuidOf(c.req.param('id'));
    const validator = new RequestValidator();
    const body = validator.parse(SessionUpdate, await readJsonBody(c), ['body']);
    validator.throwIfFailed();
    const session = sessions.update(c.get('principal').tenantId, id, body!);
    if (!session) throw notFound(id);
    return c.json(session);
  });

  // the project's runs go with it; exports that name it and have not ended are cancelled first (a schedule would
  // otherwise go on spawning exports of nothing), those that ended stay readable
  app.delete('/sessions/:id', auth, (c) => {
    const id = uuidOf(c.req.param('id'));
    const tenantId = c.get('principal').tenantId;
    if (!sessions.get(tenantId, id)) throw notFound(id);
    for (const row of exports.list(tenantId)) {
      if (row.session_id === id && !isFinalBulkExportStatus(row.status)) engine.cancel(row.id);
    }
    sessions.delete(tenantId, id);
    idempotencyKeys.release(tenantId, id);
    return c.body(null, 202);
  });

  app.post('/runs/batch', auth, async (c) => {
    const validator = new RequestValidator();
    const body = validator.parse(RunsBatch, await readJsonBody(c, { malformedText: 'replace' }), ['body']);
    validator.throwIfFailed();
    return c.json(runs.ingest(c.get('principal').tenantId, body!), 202);
  });

  app.get('/runs/:id', auth, (c) => {
    const id = uuidOf(c.req.param('id'));
    const run = runs.get(c.get('principal').tenantId, id);
    if (!run) throw new HttpError(404, `Run ${id} not found`);
    return c.json(run);
  });

  return app;
}
