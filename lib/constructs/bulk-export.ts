/**
 * `BulkExport`: a one-off bulk export of a range of a tracing project's runs, optionally waited for until it is
 * Completed (a failed export fails the deploy with its runs' errors).
 */
import { Annotations } from 'cdktf';
import { Construct } from 'constructs';
import { MAX_EXPORT_DAYS, exportDays } from '../api/schemas/bulk-export-constants';
import { booleanProblem, positiveDurationProblem } from './checks';
import type { Duration } from './duration';
import { Violations, isToken, messages } from './errors';
import { instantOf, queryAttributes, timeAttribute, type ExportQueryProps, type ExportTime } from './export-query';
import { BulkExport as BulkExportResource } from './generated/bulk-export';

/** Props of {@link BulkExport}. */
export interface BulkExportProps extends ExportQueryProps {
  /** Start of the range of runs. */
  readonly start: ExportTime;
  /** End of the range, after `start`. */
  readonly end: ExportTime;
  /**
   * Wait on deploy until the export is Completed; Failed or TimedOut fail the deploy. Without waiting, a plan that
   * finds the export Failed or TimedOut while the state holds it in progress warns with its run errors.
   * @default false
   */
  readonly waitForCompletion?: boolean;
  /**
   * How long the wait may take (with `waitForCompletion` only).
   * @default Duration.minutes(60)
   */
  readonly timeout?: Duration;
}

/**
 * A one-off bulk export. Exports cannot change: a change of a prop that shapes the export (its destination, project,
 * range, fields, filter or format) makes a new export; `waitForCompletion` and `timeout` change in place.
 *
 * ```ts
 * new BulkExport(this, 'Backfill', {
 *   destination, tracingProjectId, start: '2025-01-01T00:00:00Z', end: '2025-02-01T00:00:00Z',
 *   waitForCompletion: true,
 * });
 * ```
 */
export class BulkExport extends Construct {
  /** The export id. */
  readonly exportId: string;
  /**
   * The export's status as last read: `Created`, `Running`, `Completed`, `Failed`, `Cancelled` or `TimedOut`;
   * `Completed` after a deploy that waited for it.
   */
  readonly status: string;
  /** The `agentplatform_bulk_export` resource, for escape hatches. */
  readonly resource: BulkExportResource;

  constructor(scope: Construct, id: string, props: BulkExportProps) {
    super(scope, id);
    const violations = new Violations();
    const query = queryAttributes(props, violations, this);
    const startTime = timeAttribute('start', props.start, violations);
    const endTime = timeAttribute('end', props.end, violations);
    const [from, to] = [instantOf(props.start), instantOf(props.end)];
    // spec: Bulk export, an export copies the runs "of one tracing project and a time range", the range given by
    // `start_time` and `end_time` (the export body's table); an end at or before the start makes no range, though the
    // spec states no such rule in words
    if (from !== undefined && to !== undefined && to <= from) violations.add('end', messages.endNotAfterStart(startTime, endTime));
    violations.check('waitForCompletion', props.waitForCompletion, booleanProblem);
    violations.check('timeout', props.timeout, positiveDurationProblem);
    violations.throwIfAny('BulkExport', this);
    // the local platform's limit, which the spec does not state: a warning
    if (from !== undefined && to !== undefined && exportDays(from, to) > MAX_EXPORT_DAYS) {
      Annotations.of(this).addWarning(messages.rangeTooLong(exportDays(from, to), MAX_EXPORT_DAYS));
    }
    // a wait given as a token may be on
    if (props.timeout !== undefined && props.waitForCompletion !== true && !isToken(props.waitForCompletion)) {
      Annotations.of(this).addWarning(messages.timeoutWithoutWait());
    }

    this.resource = new BulkExportResource(this, 'Resource', {
      ...query,
      startTime,
      endTime,
      waitForCompletion: props.waitForCompletion,
      timeouts: props.timeout && { create: props.timeout.toTerraformString() },
    });
    this.exportId = this.resource.id;
    this.status = this.resource.status;
  }
}
