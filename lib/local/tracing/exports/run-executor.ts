/**
 * One attempt of one export run: read the run's day of the project in cursor order (start_time, id), one bounded
 * page at a time, apply the filter, encode Parquet row groups and stream them to the bucket as part files.
 *
 * Exactly-once across crashes: a part is first made visible in the bucket, then its checkpoint (cursor after its
 * last row, rows, file list) is committed. Part names come from the part index, so after a crash between the two
 * steps the resumed attempt writes the same name again, replacing the orphan instead of duplicating its rows.
 */
import { EXPORTABLE_FIELD_NAMES, type ExportableFieldName } from '../../../api/schemas/trace';
import type { BulkExportRunMetadata } from '../../../api/schemas/bulk-export';
import type { ResolvedDestination } from '../destinations/store';
import { createDestinationClient, exportPartKey, type S3ClientLimits } from '../destinations/s3';
import { exportColumns } from '../parquet/columns';
import { ParquetPartUpload } from '../parquet/part-upload';
import { formatCursor, parseCursor, type RunCursor, type RunStore } from '../store/runs';
import { toMicros, utcDayStart, MICROS_PER_MS } from '../store/time';
import { RunPageReader } from './page-reader';
import type { ExportRow, ExportStore, RunRow } from './store';

/** Sizes that bound an attempt's memory and its files. */
export interface ExportWriterLimits {
  /** Rows per Parquet row group (also the page size read from SQLite). */
  readonly rowGroupRows: number;
  /** Rows per part file at most. */
  readonly maxRowsPerFile: number;
  /** A part file is closed once it holds this many bytes (checked after each row group). */
  readonly maxFileBytes: number;
  /** Bytes buffered per multipart chunk (at least 5 MiB). */
  readonly multipartChunkBytes: number;
  /** Network limits of the S3 client. */
  readonly s3: S3ClientLimits;
}

/** Everything one attempt works with. */
export interface RunAttempt {
  readonly exportRow: ExportRow;
  readonly run: RunRow;
  readonly destination: ResolvedDestination;
  readonly runs: RunStore;
  readonly store: ExportStore;
  readonly limits: ExportWriterLimits;
  /** Aborts S3 requests in flight (run timeout, workflow timeout, shutdown). */
  readonly signal: AbortSignal;
  /** False once the run or its export stopped being Running (cancel): the attempt stops at its next checkpoint. */
  readonly shouldContinue: () => boolean;
}

/** How an attempt ended without an error. */
export type AttemptOutcome = 'completed' | 'stopped';

/** Runs one attempt from the run's last checkpoint; resolves when the day is exported or the run must stop. */
export async function executeRunAttempt(attempt: RunAttempt): Promise<AttemptOutcome> {
  const { exportRow, run, destination, runs, store, limits, signal } = attempt;
  const exported = (exportRow.export_fields ? JSON.parse(exportRow.export_fields) : EXPORTABLE_FIELD_NAMES) as ExportableFieldName[];
  const columns = exportColumns(exported, exportRow.format_version);
  const fromMicros = toMicros(run.start_time);
  const toMicrosExclusive = toMicros(run.end_time);
  const dayStartMs = utcDayStart(fromMicros) / MICROS_PER_MS;
  const config = destination.destination.config;
  const metadata = JSON.parse(run.metadata) as BulkExportRunMetadata;
  let cursor: RunCursor | null = metadata.latest_cursor ? parseCursor(metadata.latest_cursor) : null;
  const reader = new RunPageReader({
    runs,
    tenantId: exportRow.tenant_id,
    sessionId: exportRow.session_id,
    fromMicros,
    toMicros: toMicrosExclusive,
    columns,
    filter: exportRow.filter,
  });
  const client = createDestinationClient(config, destination.credentials, limits.s3);
  try {
    for (;;) {
      if (!attempt.shouldContinue()) return 'stopped';
      const key = exportPartKey({
        config,
        exportId: exportRow.id,
        tenantId: exportRow.tenant_id,
        sessionId: exportRow.session_id,
        dayStartMs,
        partIndex: metadata.exported_files.length,
      });
      const upload = new ParquetPartUpload({
        client,
        bucket: config.bucket_name,
        key,
        columns,
        signal,
        chunkBytes: limits.multipartChunkBytes,
      });
      let rowsInFile = 0;
      let exhausted = false;
      try {
        while (rowsInFile < limits.maxRowsPerFile && upload.bytesWritten < limits.maxFileBytes) {
          signal.throwIfAborted();
          const step = reader.readAndEncode(cursor, Math.min(limits.rowGroupRows, limits.maxRowsPerFile - rowsInFile), upload);
          if (step === undefined) {
            exhausted = true;
            break;
          }
          cursor = step.cursor;
          rowsInFile += step.rows;
          if (step.upload) await step.upload;
        }
        if (rowsInFile > 0) {
          await upload.finish();
          metadata.exported_files.push(key);
          metadata.rows_written += rowsInFile;
          metadata.latest_cursor = cursor && formatCursor(cursor);
          store.checkpoint(run.id, metadata);
        } else {
          await upload.abort();
        }
      } catch (err) {
        await upload.abort();
        throw err;
      }
      if (exhausted) {
        if (cursor && metadata.latest_cursor !== formatCursor(cursor)) {
          metadata.latest_cursor = formatCursor(cursor);
          store.checkpoint(run.id, metadata);
        }
        return 'completed';
      }
    }
  } finally {
    client.destroy();
  }
}
