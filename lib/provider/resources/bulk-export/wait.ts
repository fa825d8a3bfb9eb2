/**
 * Waiting for a one-off bulk export to finish. Polls adapt as the deployment waits do (quick after a status change,
 * then further apart, capped), end on the time limit or StopProvider (Ctrl-C), and report the last status seen.
 * Rate limiting, server errors and network failures that outlast the transport's own retries only delay the next poll,
 * as does an answer that cannot be read, unless several come in a row.
 */
import type { BulkExportClient } from '../../../api/bulk-export';
import type { BulkExport } from '../../../api/schemas/bulk-export';
import type { Logger } from '../../log';
import { timeoutMs, type CreateRequest } from '../../framework';
import { apiFailure } from '../shared/bulk-export-messages';
import { toModel } from './body';
import { EXPORT_BODY_FIELDS, exportCancelledWhileWaiting, exportFailed, exportTimedOut, exportWaitEnded } from './messages';
import { BULK_EXPORT_TIMEOUTS, type BulkExportModel, type BulkExportSchema } from './schema';
import { FINAL_EXPORT_STATUSES } from './checks';
import { PollInterval, isUnreadable, pollsThrough, sleep, waitLimit, type PollSchedule } from '../shared/poll';

/** Exports run for minutes to hours: polls start at 200 ms and back off to 10 s. */
export const EXPORT_POLL_SCHEDULE: PollSchedule = { initialMs: 200, factor: 1.5, maxMs: 10_000 };

/** How a wait for an export ended. */
export type ExportWaitOutcome =
  | { readonly kind: 'finished'; readonly export: BulkExport }
  | { readonly kind: 'timed-out' | 'stopped'; readonly lastStatus: string | undefined };

/** What a wait needs. */
export interface ExportWaitOptions {
  readonly client: BulkExportClient;
  readonly exportId: string;
  /** Time allowed, in milliseconds. */
  readonly timeoutMs: number;
  /** StopProvider: ends the wait at once. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** @default EXPORT_POLL_SCHEDULE */
  readonly schedule?: PollSchedule;
}

/** Polls the export until its status is final (Completed, Failed, Cancelled, TimedOut), the time runs out or Terraform stops. */
export async function waitForExport(options: ExportWaitOptions): Promise<ExportWaitOutcome> {
  const { isTransient } = require('../../../api/errors') as typeof import('../../../api/errors');
  const interval = new PollInterval(options.schedule ?? EXPORT_POLL_SCHEDULE);
  const { signal: limit, dispose } = waitLimit(options.signal, options.timeoutMs);
  try {
    return await pollExport(options, interval, limit, isTransient);
  } finally {
    dispose();
  }
}

/** The polls of {@link waitForExport}, under `limit`. */
async function pollExport(
  options: ExportWaitOptions,
  interval: PollInterval,
  limit: AbortSignal,
  isTransient: (err: unknown) => boolean,
): Promise<ExportWaitOutcome> {
  const { client, exportId, log } = options;
  let lastStatus: string | undefined;
  let unreadable = 0;
  const ended = (): ExportWaitOutcome => ({ kind: options.signal.aborted ? 'stopped' : 'timed-out', lastStatus });
  for (;;) {
    if (limit.aborted) return ended();
    let changed = false;
    try {
      const current = await client.getExport(exportId, { signal: limit });
      unreadable = 0;
      changed = current.status !== lastStatus;
      if (changed) log.debug(`waiting for bulk export ${exportId} to complete: ${current.status}`);
      lastStatus = current.status;
      if (FINAL_EXPORT_STATUSES.includes(current.status)) return { kind: 'finished', export: current };
    } catch (err) {
      if (limit.aborted) return ended();
      unreadable = isUnreadable(err) ? unreadable + 1 : 0;
      if (!pollsThrough(err, unreadable, isTransient)) throw err;
      log.warn(`waiting for bulk export ${exportId}: ${(err as Error).message}; trying again`);
    }
    await sleep(interval.next(changed), limit);
  }
}

/** Waits for a one-off export to finish and returns its state; never throws, so the id is kept in state. */
export async function settle(
  req: Pick<CreateRequest<BulkExportSchema>, 'ctx' | 'signal' | 'diagnostics'>,
  client: BulkExportClient,
  model: BulkExportModel,
): Promise<BulkExportModel> {
  const id = model.id!;
  const allowedMs = timeoutMs(model.timeouts, 'create', BULK_EXPORT_TIMEOUTS);
  try {
    const outcome = await waitForExport({ client, exportId: id, timeoutMs: allowedMs, signal: req.signal, log: req.ctx.log });
    if (outcome.kind !== 'finished') {
      exportWaitEnded(req.diagnostics, id, outcome.kind, allowedMs, outcome.lastStatus);
      return { ...model, status: outcome.lastStatus ?? model.status };
    }
    const finished = outcome.export;
    if (finished.status === 'Failed') {
      const runs = await client.listExportRuns(id, { signal: req.signal });
      exportFailed(req.diagnostics, finished, runs, (text) => client.transport.redact(text));
    } else if (finished.status === 'TimedOut') exportTimedOut(req.diagnostics, finished);
    else if (finished.status === 'Cancelled') exportCancelledWhileWaiting(req.diagnostics, finished);
    return toModel(finished, model);
  } catch (err) {
    const problem = apiFailure(req.diagnostics, err, `follow bulk export ${id}`, EXPORT_BODY_FIELDS);
    req.diagnostics.error(problem.summary, problem.detail, problem.path);
    return model;
  }
}
