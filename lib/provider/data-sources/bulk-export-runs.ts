/**
 * `agentplatform_bulk_export_runs`: the export runs of a bulk export (one per UTC day of its range), with their
 * status, the rows and Parquet files they wrote, and the error of each failed attempt. A scheduled export has no
 * runs of its own: its intervals are exports it spawns, whose runs are read instead.
 */
import type { BulkExportClient } from '../../api/bulk-export';
import type { BulkExportRun } from '../../api/schemas/bulk-export';
import { DiagnosticError, attr, defineDataSource, defineSchema, element, type DataSourceReadRequest, type SchemaModel } from '../framework';
import { bulkExportClient, statusOf } from '../resources/shared/bulk-export-client';

const computedString = (description: string) => attr.string({ computed: true, description });

/** The schema of `agentplatform_bulk_export_runs`. */
export const bulkExportRunsSchema = defineSchema({
  description:
    'The runs of a bulk export, one per UTC day of its range, in range order: status, rows exported, Parquet files written, and errors. ' +
    'For a scheduled export, the runs of every export it has spawned so far (one per interval), in range order: ' +
    'reading them takes a request per spawned export, so a long-running hourly schedule makes reads of thousands of requests.',
  attributes: {
    export_id: attr.string({
      required: true,
      description: 'The export, one-off or scheduled, e.g. `agentplatform_bulk_export.daily.id`.',
    }),
    runs: attr.listNested(
      {
        id: computedString('Export run id.'),
        bulk_export_id: computedString('The export the run belongs to: `export_id`, or for a scheduled export the spawned export of its interval.'),
        status: computedString('`Created`, `Running`, `Completed`, `Failed`, `Cancelled` or `TimedOut`, or a status the platform added since.'),
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

/** Spawned exports whose runs are read at once. */
const CONCURRENT_READS = 8;

async function read({ config, ctx, signal }: DataSourceReadRequest<typeof bulkExportRunsSchema>): Promise<BulkExportRunsModel> {
  const client = bulkExportClient(ctx);
  try {
    const own = await client.listExportRuns(config.export_id, { signal });
    if (own.length > 0) return { ...config, runs: own.map(toModel) };
    const exported = await client.getExport(config.export_id, { signal });
    if (exported.interval_hours == null) return { ...config, runs: [] };
    return { ...config, runs: (await spawnedRuns(client, config.export_id, signal)).map(toModel) };
  } catch (err) {
    if (statusOf(err) === 404) {
      throw new DiagnosticError('Bulk export not found', `There is no bulk export ${config.export_id} in this workspace.`, 'export_id');
    }
    throw err;
  }
}

/** The runs of the exports a schedule spawned, in range order. */
async function spawnedRuns(client: BulkExportClient, scheduleId: string, signal: AbortSignal | undefined): Promise<BulkExportRun[]> {
  // ids are kept in lower case; `export_id` may be written in any
  const schedule = scheduleId.toLowerCase();
  const spawned = (await client.listExports({ signal }))
    .filter((e) => e.source_bulk_export_id?.toLowerCase() === schedule)
    .sort((a, b) => Date.parse(a.start_time ?? '') - Date.parse(b.start_time ?? ''));
  const runs: BulkExportRun[][] = [];
  for (let i = 0; i < spawned.length; i += CONCURRENT_READS) {
    const batch = spawned.slice(i, i + CONCURRENT_READS);
    runs.push(...(await Promise.all(batch.map((e) => client.listExportRuns(e.id, { signal })))));
  }
  return runs.flat();
}

function toModel(run: BulkExportRun): NonNullable<BulkExportRunsModel['runs']>[number] {
  return {
    id: run.id,
    bulk_export_id: run.bulk_export_id ?? null,
    status: run.status,
    start_time: run.start_time ?? null,
    end_time: run.end_time ?? null,
    retry_number: run.retry_number ?? null,
    rows_exported: run.metadata?.rows_written ?? null,
    files: run.metadata?.exported_files ? [...run.metadata.exported_files] : null,
    errors: run.errors ? { ...run.errors } : null,
    created_at: run.created_at ?? null,
    finished_at: run.finished_at ?? null,
  };
}

export default defineDataSource({ typeName: 'agentplatform_bulk_export_runs', schema: bulkExportRunsSchema, read });
