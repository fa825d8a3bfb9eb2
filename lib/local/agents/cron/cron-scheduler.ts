/**
 * Fires crons on the platform's clock: one timer armed for the earliest due cron; when it fires, every due cron
 * starts its run and is re-armed for its next time after now (a cron past its `end_time` stops).
 */
import { MAX_TIMER_DELAY_MS, type Clock, type TimerHandle } from '../../clock';
import { isoNow } from '../store/json';
import { CronExpression } from '../../../api/cron-expression';
import type { CronStore, StoredCron } from './cron-store';

/** The next time a schedule fires after `afterMs`, as ISO text; null when never again (or past `endTime`). */
export function nextRunDate(schedule: string, afterMs: number, endTime: string | null): string | null {
  const next = CronExpression.parse(schedule).next(afterMs);
  if (next === undefined || (endTime !== null && next > Date.parse(endTime))) return null;
  return new Date(next).toISOString();
}

/** What the scheduler uses. */
export interface CronSchedulerDeps {
  readonly clock: Clock;
  readonly crons: CronStore;
  /** Starts the cron's run. */
  readonly fire: (cron: StoredCron) => void;
  /** Receives one line per cron that could not start. */
  readonly log?: (line: string) => void;
}

/** The cron timer. */
export class CronScheduler {
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(private readonly deps: CronSchedulerDeps) {}

  /** Arms the timer for the earliest cron. */
  start(): void {
    this.running = true;
    this.arm();
  }

  /** Disarms the timer. */
  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Re-arms after crons were created or deleted. */
  wake(): void {
    if (this.running) this.arm();
  }

  private arm(): void {
    const { clock, crons } = this.deps;
    if (this.timer !== undefined) clock.clearTimeout(this.timer);
    this.timer = undefined;
    const earliest = crons.earliestNextRun();
    if (earliest === undefined) return;
    const delay = Math.min(Math.max(0, Date.parse(earliest) - clock.now()), MAX_TIMER_DELAY_MS);
    this.timer = clock.setTimeout(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = undefined;
    const { clock, crons } = this.deps;
    const now = clock.now();
    for (const stored of crons.due(isoNow(clock))) {
      try {
        this.deps.fire(stored);
      } catch (problem) {
        this.deps.log?.(
          `agent server: cron ${stored.cron.cron_id} could not start its run: ${(problem as Error).message}`,
        );
      }
      crons.setNextRun(stored.cron.cron_id, nextRunDate(stored.cron.schedule, now, stored.cron.end_time));
    }
    if (this.running) this.arm();
  }
}
