/**
 * The attributes of `agentplatform_bulk_export`, their descriptions and timeouts, and the model the handlers see.
 */
import { INTERVAL_HOURS_MAX, INTERVAL_HOURS_MIN } from '../../../api/schemas/bulk-export-constants';
import { attr, defineSchema, element, timeoutsAttribute, type SchemaModel } from '../../framework';
import { sameUuid } from '../../../api/ids';
import { exportFieldProblem, filterProblem, sameFilter, sameInstant, timestampProblem, uuidProblem } from './checks';
import { tenantIdAttribute } from '../shared/workspace';

/** The attributes of `agentplatform_bulk_export` as handlers see them. */
export type BulkExportModel = SchemaModel<typeof bulkExportSchema>;

/** The schema's type, as the handlers' requests take it. */
export type BulkExportSchema = typeof bulkExportSchema;

/** The `timeouts` of the resource: a create waits (when told to) until a one-off export is finished. */
export const BULK_EXPORT_TIMEOUTS = timeoutsAttribute({ create: '60m' });
const timeouts = BULK_EXPORT_TIMEOUTS;

/** The schema of `agentplatform_bulk_export`. */
export const bulkExportSchema = defineSchema({
  description:
    'An export of the runs of one tracing project to an export destination, as Parquet files (one export run per UTC ' +
    'day of the range). With `end_time` it is one-off; with `interval_hours` it is scheduled: the platform spawns an ' +
    'export of each interval, 10 minutes after the interval ends. Exports cannot change, so every argument replaces ' +
    'the export, except a change that only writes the same value otherwise (the same instant, a tracing project ' +
    'id in another case, a filter that the platform\'s parser reads the same, its strings compared in Unicode NFC), which is made in place. Destroy cancels an export still in progress and only forgets a finished one.',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'The export id; `terraform import` takes it.' }),
    destination_id: attr.string({
      required: true,
      requiresReplace: true,
      // the spec types a destination id as a plain string: only the same text is the same id
      description: 'Where to write, e.g. `agentplatform_export_destination.bucket.id`.',
    }),
    session_id: attr.string({
      required: true,
      requiresReplace: true,
      validate: uuidProblem('a tracing project id'),
      sameValue: sameUuid,
      description: 'The tracing project (session) whose runs are exported.',
    }),
    start_time: attr.string({
      required: true,
      requiresReplace: true,
      validate: timestampProblem,
      sameValue: sameInstant,
      description: 'Start of the range of runs (ISO 8601, UTC), e.g. `"2025-01-01T00:00:00Z"`.',
    }),
    end_time: attr.string({
      optional: true,
      requiresReplace: true,
      validate: timestampProblem,
      sameValue: sameInstant,
      description:
        'End of the range (ISO 8601, UTC, after `start_time`): a one-off export. Exactly one of `end_time` and `interval_hours`.',
    }),
    // spec: Scheduled exports, rule 1: interval_hours is an integer from 1 to 168
    interval_hours: attr.number({
      optional: true,
      integer: true,
      min: INTERVAL_HOURS_MIN,
      max: INTERVAL_HOURS_MAX,
      requiresReplace: true,
      description: 'Hours per spawned export: a scheduled export from `start_time` on. Exactly one of `end_time` and `interval_hours`.',
    }),
    filter: attr.string({
      optional: true,
      requiresReplace: true,
      validate: filterProblem,
      sameValue: sameFilter,
      description:
        'Only runs matching this filter expression, e.g. `and(eq(run_type, "llm"), gt(total_tokens, 1000))`; its shape ' +
        '(function-style operators) is checked at plan time, the functions and fields it names by the platform. All runs of ' +
        'the range when left out.',
    }),
    export_fields: attr.list(element.string, {
      optional: true,
      requiresReplace: true,
      unordered: true,
      // spec: Exportable fields, the table of the columns of the Parquet files
      validateElement: exportFieldProblem,
      description:
        'Only these fields become columns (every exportable field when left out), checked at plan time against the ' +
        'platform\'s exportable fields; leaving out `inputs` and `outputs` makes exports much smaller.',
    }),
    format_version: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      requiresReplace: true,
      description:
        'Parquet layout, e.g. `v2_beta` (typed columns for JSON and timestamps, Hive-compliant folders). Sent only when set; ' +
        'left out, the platform chooses, and its choice is read after apply.',
    }),
    wait_for_completion: attr.bool({
      optional: true,
      computed: true,
      default: false,
      description:
        'On create of a one-off export, wait until it is `Completed`, within `timeouts.create`; `Failed` or `TimedOut` ' +
        'fails the apply. See [Behaviour](#behaviour).',
    }),
    cancel_spawned_on_destroy: attr.bool({
      optional: true,
      computed: true,
      default: false,
      description: 'On destroy of a scheduled export, also cancel the exports it spawned that are not finished (the platform leaves them running otherwise). A destroy reads it from the state: set it with an apply before the destroy.',
    }),
    timeouts,
    status: attr.string({ computed: true, useStateForUnknown: true, description: 'Status: `Created`, `Running`, `Completed`, `Failed`, `Cancelled` or `TimedOut` (a scheduled export stays `Running`), or a status the platform added since, as it names it.' }),
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the export was created (RFC 3339).' }),
    finished_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the export reached a final status, if it has.' }),
    tenant_id: tenantIdAttribute('bulk export'),
  },
});
