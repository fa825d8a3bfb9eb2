/**
 * `agentplatform_bulk_export_runs`: the export runs of a bulk export (one per UTC day of its range), with their
 * status, the rows and Parquet files they wrote, and the error of each failed attempt.
 */
import type { BulkExportRun } from '../../api/schemas/bulk-export';
import { DiagnosticError, attr, defineDataSource, defineSchema, element, type DataSourceReadRequest, type SchemaModel } from '../framework';
import { bulkExportClient, isUuid, statusOf } from '../resources/bulk-export-client';

const computedString = (description: string) => attr.string({ computed: true, description });

/** The schema of `agentplatform_bulk_export_runs`. */
export const bulkExportRunsSchema = defineSchema({
  description: 'The runs of a bulk export, one per UTC day of its range, in range order: status, rows exported, Parquet files written, and errors.',
  attributes: {
    export_id: attr.string({
      required: true,
      validate: (v: string) => (isUuid(v) ? undefined : `must be a bulk export id (a UUID); got ${JSON.stringify(v)}.`),
      description: 'The export, e.g. `agentplatform_bulk_export.daily.id`.',
    }),
    runs: attr.listNested(
      {
        id: computedString('Export run id.'),
        status: computedString('`Created`, `Running`, `Completed`, `Failed`, `Cancelled` or `TimedOut`.'),
        start_time: computedString('Start of the run\'s range (RFC 3339).'),
        end_time: computedString('End of the run\'s range (RFC 3339).'),
        retry_number: attr.number({ computed: true, description: 'Retries used so far (0 on the first attempt).' }),
        rows_exported: attr.number({ computed: true, description: 'Rows written so far.' }),
        files: attr.list(element.string, { computed: true, description: 'Object keys of the Parquet files written, in order.' }),
        errors: attr.map(element.string, { computed: true, description: 'The error of each failed attempt, keyed `retry_0`, `retry_1`, ...' }),
        created_at: computedString('When the run was created (RFC 3339).'),
        finished_at: computedString('When the run reached a final status, if it has.'),
      },
      { computed: true, description: 'The runs, in range order.' },
    ),
  },
});

/** The attributes of `agentplatform_bulk_export_runs`. */
export type BulkExportRunsModel = SchemaModel<typeof bulkExportRunsSchema>;

async function read({ config, ctx, signal }: DataSourceReadRequest<typeof bulkExportRunsSchema>): Promise<BulkExportRunsModel> {
  try {
    const runs = await bulkExportClient(ctx).listExportRuns(config.export_id, { signal });
    return { ...config, runs: runs.map(toModel) };
  } catch (err) {
    if (statusOf(err) === 404) {
      throw new DiagnosticError('Bulk export not found', `There is no bulk export ${config.export_id} in this workspace.`, 'export_id');
    }
    throw err;
  }
}

function toModel(run: BulkExportRun): NonNullable<BulkExportRunsModel['runs']>[number] {
  return {
    id: run.id,
    status: run.status,
    start_time: run.start_time,
    end_time: run.end_time,
    retry_number: run.retry_number,
    rows_exported: run.metadata.rows_written,
    files: [...run.metadata.exported_files],
    errors: { ...run.errors },
    created_at: run.created_at,
    finished_at: run.finished_at,
  };
}

export default defineDataSource({ typeName: 'agentplatform_bulk_export_runs', schema: bulkExportRunsSchema, read });
