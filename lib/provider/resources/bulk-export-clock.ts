/**
 * The checks of `agentplatform_bulk_export` at plan that depend on the platform's time: how many intervals of a new
 * schedule are due at once (the platform refuses more than 1000), and whether a one-off export ends in its future
 * (refused too). The platform's time comes from the `Date` of its answers; when none told it yet and this machine's
 * clock finds a problem, the platform is asked (a read of the destination) before the plan says so.
 */
import type { Diagnostics, ProviderContext } from '../framework';
import { MAX_DUE_INTERVALS, SCHEDULE_DELAY_MS, instantMicros } from './bulk-export-checks';
import { bulkExportClient, isUuid } from './bulk-export-client';
import { exportBackfill } from './bulk-export-messages';

type Clock = { readonly ms: number; readonly known: boolean };

/** What the checks need of a plan request. */
interface ClockCheck {
  readonly ctx: ProviderContext;
  readonly destinationId: unknown;
  readonly signal: AbortSignal | undefined;
  readonly diagnostics: Diagnostics;
}

/**
 * The platform's time now: from the `Date` of its last answer to this provider (the refresh before a replacement),
 * else this machine's.
 */
function platformNow(ctx: ProviderContext): Clock {
  try {
    const server = bulkExportClient(ctx).transport.serverNow();
    return server === undefined ? { ms: Date.now(), known: false } : { ms: server, known: true };
  } catch {
    return { ms: Date.now(), known: false };
  }
}

/**
 * The platform's time, asked of it when no answer told it yet: the destination is read (when its id is known), and
 * any answer, a 404 too, carries the time in its `Date`. Without one, this machine's time.
 */
async function askedPlatformNow(ctx: ProviderContext, destinationId: unknown, signal: AbortSignal | undefined): Promise<Clock> {
  const now = platformNow(ctx);
  if (now.known || typeof destinationId !== 'string' || !isUuid(destinationId)) return now;
  try {
    await bulkExportClient(ctx).getDestination(destinationId, { signal });
  } catch {
    // the answer's time is noted all the same; without an answer, this machine's time stays
  }
  return platformNow(ctx);
}

/** How far this machine's clock may be ahead of the platform's before a count of due intervals is taken as certain. */
const CLOCK_SKEW_ALLOWANCE_MS = 24 * 3_600_000;

/** A schedule starting at `start`, every `hours`: warns of the intervals exported at once, refuses too many. */
export async function checkDueIntervals({
  start,
  hours,
  replacing,
  ctx,
  destinationId,
  signal,
  diagnostics,
}: ClockCheck & { readonly start: string; readonly hours: number; readonly replacing: boolean }): Promise<void> {
  const startMs = instantMicros(start) / 1000;
  const dueAt = (nowMs: number): number => (nowMs - SCHEDULE_DELAY_MS - startMs) / (hours * 3_600_000);
  let now = platformNow(ctx);
  // too many by this machine's clock: worth asking the platform its own before saying so
  if (!now.known && dueAt(now.ms) > MAX_DUE_INTERVALS) now = await askedPlatformNow(ctx, destinationId, signal);
  const due = dueAt(now.ms);
  if (due > MAX_DUE_INTERVALS) {
    // the platform refuses it. Its time is known here only from its last answer (else this machine's is taken, which
    // a platform need not keep: an error then could be wrong): an error when it is known and even a day of skew
    // cannot explain the count, a warning otherwise
    const certain = now.known && dueAt(now.ms - CLOCK_SKEW_ALLOWANCE_MS) > MAX_DUE_INTERVALS;
    diagnostics[certain ? 'error' : 'warning'](
      'Scheduled export starts too far in the past',
      `More than ${MAX_DUE_INTERVALS} intervals of ${hours}h since ${start} would be due at once (${Math.floor(due)}): ` +
        `the platform refuses such a schedule${certain ? '' : ', so the apply will fail'}. Start the schedule later, or export the past in one-off exports (\`end_time\`).`,
      'start_time',
    );
  } else if (due >= 1) exportBackfill(diagnostics, start, hours, Math.floor(due), replacing);
}

/**
 * A one-off export may end at the latest 10 minutes after the platform's time (its runs write the runs stored when they
 * execute): later is an error at plan, by the platform's clock, asked of it when this machine's finds it later.
 */
export async function checkEndNotAhead({ end, ctx, destinationId, signal, diagnostics }: ClockCheck & { readonly end: string }): Promise<void> {
  const endMs = instantMicros(end) / 1000;
  let now = platformNow(ctx);
  if (!(endMs > now.ms + SCHEDULE_DELAY_MS)) return;
  if (!now.known) now = await askedPlatformNow(ctx, destinationId, signal);
  if (!now.known || !(endMs > now.ms + SCHEDULE_DELAY_MS)) return;
  diagnostics.error(
    'One-off export ends in the future',
    `\`end_time\` ${end} is after the platform's time (${new Date(now.ms).toISOString()}): an export writes the runs stored when it runs, ` +
      'and later ones would be missed, so the platform refuses it. End it at the latest now, or make it scheduled with `interval_hours` ' +
      '(each interval is exported once it has ended).',
    'end_time',
  );
}
