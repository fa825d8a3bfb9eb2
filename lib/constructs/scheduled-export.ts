/**
 * `ScheduledExport`: a bulk export that runs on a schedule. From `start` on, the platform spawns one export per
 * interval, 10 minutes after the interval ends; destroy cancels the schedule.
 */
import { Construct } from 'constructs';
import { INTERVAL_HOURS_MAX, INTERVAL_HOURS_MIN } from '../api/schemas/bulk-export';
import { booleanProblem } from './checks';
import { Duration } from './duration';
import { Violations, messages } from './errors';
import { queryAttributes, timeAttribute, type ExportQueryProps, type ExportTime } from './export-query';
import { BulkExport as BulkExportResource } from './generated/bulk-export';

/** Props of {@link ScheduledExport}. */
export interface ScheduledExportProps extends ExportQueryProps {
  /** Start of the first interval. */
  readonly start: ExportTime;
  /** Length of each interval: whole hours from 1 to 168, e.g. `Duration.hours(24)`. */
  readonly every: Duration;
  /**
   * On destroy, also cancel the exports the schedule spawned that are not finished (the platform leaves them
   * running otherwise).
   * @default false
   */
  readonly cancelSpawnedOnDestroy?: boolean;
}

/**
 * A scheduled bulk export of a tracing project's runs.
 *
 * ```ts
 * new ScheduledExport(this, 'Daily', {
 *   destination, tracingProjectId, start: '2025-01-01T00:00:00Z', every: Duration.hours(24),
 *   fields: ['id', 'name', 'run_type', 'start_time', 'end_time', 'total_tokens'],
 *   filter: Filter.eq('run_type', 'llm'),
 * });
 * ```
 */
export class ScheduledExport extends Construct {
  /** The export id of the schedule (its spawned exports name it as their source). */
  readonly exportId: string;
  /** The `agentplatform_bulk_export` resource, for escape hatches. */
  readonly resource: BulkExportResource;

  constructor(scope: Construct, id: string, props: ScheduledExportProps) {
    super(scope, id);
    const violations = new Violations();
    const query = queryAttributes(props, violations, this);
    const startTime = timeAttribute('start', props.start, violations);
    violations.check('every', props.every, (every) => {
      if (!(every instanceof Duration)) return messages.notDuration(every);
      const hours = every.toHours();
      return Number.isInteger(hours) && hours >= INTERVAL_HOURS_MIN && hours <= INTERVAL_HOURS_MAX
        ? undefined
        : messages.everyHours(every.toString(), INTERVAL_HOURS_MIN, INTERVAL_HOURS_MAX);
    });
    violations.check('cancelSpawnedOnDestroy', props.cancelSpawnedOnDestroy, booleanProblem);
    violations.throwIfAny('ScheduledExport', this);

    this.resource = new BulkExportResource(this, 'Resource', {
      ...query,
      startTime,
      intervalHours: props.every.toHours(),
      cancelSpawnedOnDestroy: props.cancelSpawnedOnDestroy,
    });
    this.exportId = this.resource.id;
  }
}
