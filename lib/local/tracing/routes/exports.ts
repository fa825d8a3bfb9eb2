/**
 * Routes of bulk exports under `/api/v1/bulk-exports`: create (validated, one run per UTC day), read, list, list
 * runs, and cancel (the only PATCH the platform allows).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { isFinalBulkExportStatus } from '../../../api/schemas/bulk-export';
import { BulkExportUpdateBody } from '../request-bodies';
import { HttpError } from '../../errors';
import { REPLAYED_HEADER, idempotencyKeyOf, type IdempotencyKeys } from '../../idempotency';
import type { Clock } from '../../clock';
import type { PlatformEnv } from '../../platform-env';
import { RequestValidator, readJsonBody } from '../../validation';
import type { DestinationStore } from '../destinations/store';
import type { ExportEngine } from '../exports/engine';
import { runRangesOf } from '../exports/plan';
import { toBulkExport, toBulkExportRun, type ExportStore } from '../exports/store';
import { validateExportRequest } from '../exports/validate';
import type { SessionStore } from '../store/sessions';

/** What the export routes use. */
export interface ExportRouteDeps {
  /** Authenticates a request and sets its principal. */
  readonly auth: MiddlewareHandler<PlatformEnv>;
  /** Exports and runs. */
  readonly exports: ExportStore;
  /** Starts and cancels work. */
  readonly engine: ExportEngine;
  /** To check the referenced destination. */
  readonly destinations: DestinationStore;
  /** To check the referenced project. */
  readonly sessions: SessionStore;
  /** The platform's clock. */
  readonly clock: Clock;
  /** The `Idempotency-Key`s of creates. */
  readonly idempotencyKeys: IdempotencyKeys;
}

/** The export routes, each behind the auth middleware. */
export function exportRoutes({ auth, exports, engine, destinations, sessions, clock, idempotencyKeys }: ExportRouteDeps): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  const exportIdOf = (raw: string, tenantId: string) => {
    const validator = new RequestValidator();
    const id = validator.uuidPath('export_id', raw);
    validator.throwIfFailed();
    const row = exports.get(tenantId, id);
    if (!row) throw new HttpError(404, `Bulk export ${id} not found`);
    return row;
  };

  app.post('/bulk-exports', auth, async (c) => {
    const tenantId = c.get('principal').tenantId;
    const body = await readJsonBody(c);
    const request = validateExportRequest(body, {
      sessionExists: (id) => sessions.get(tenantId, id) !== undefined,
      destinationExists: (id) => destinations.get(tenantId, id) !== undefined,
      nowMs: clock.now(),
    });
    const { object: row, replayed } = await idempotencyKeys.create(tenantId, idempotencyKeyOf(c), {
      body,
      // an export that ended without completing stays so (the spec has no way out of a final status, and of a cancelled
      // export says a new one must be created), so the same create again is a new export; a completed one stands for
      // its key until a cancel request gives it up
      live: (id) => {
        const made = exports.get(tenantId, id);
        return made && (made.status === 'Completed' || !isFinalBulkExportStatus(made.status)) ? made : undefined;
      },
      create: () => exports.create({
      tenantId,
      destinationId: request.destinationId,
      sessionId: request.sessionId,
      startTime: request.startTime,
      endTime: request.endTime,
      filter: request.filter,
      exportFields: request.exportFields,
      intervalHours: request.intervalHours,
      formatVersion: request.formatVersion,
      sourceExportId: null,
      runRanges: request.endMicros === null ? [] : runRangesOf({ start: request.startMicros, end: request.endMicros }),
      }),
      idOf: (made) => made.id,
    });
    if (replayed) c.header(REPLAYED_HEADER, 'true');
    else engine.pump();
    return c.json(toBulkExport(exports.exportRow(row.id)!), 201);
  });

  app.get('/bulk-exports', auth, (c) => c.json(exports.list(c.get('principal').tenantId).map(toBulkExport)));

  app.get('/bulk-exports/:export_id', auth, (c) =>
    c.json(toBulkExport(exportIdOf(c.req.param('export_id'), c.get('principal').tenantId))),
  );

  app.get('/bulk-exports/:export_id/runs', auth, (c) => {
    const row = exportIdOf(c.req.param('export_id'), c.get('principal').tenantId);
    return c.json(exports.runsOf(row.id).map(toBulkExportRun));
  });

  app.patch('/bulk-exports/:export_id', auth, async (c) => {
    const tenantId = c.get('principal').tenantId;
    const row = exportIdOf(c.req.param('export_id'), tenantId);
    const validator = new RequestValidator();
    validator.parse(BulkExportUpdateBody, await readJsonBody(c), ['body']);
    validator.throwIfFailed();
    // the client is done with this export, also when it had ended (409): the same create again makes a new one
    idempotencyKeys.release(tenantId, row.id);
    engine.cancel(row.id);
    return c.json(toBulkExport(exports.exportRow(row.id)!));
  });

  return app;
}
