/**
 * One attempt of one export run: its day of the project is read in cursor order (start_time, id) and encoded into
 * Parquet part files (run-encoder.ts, in the main thread or an encode worker: encode-pool.ts), and this side
 * streams the bytes to the bucket and commits the checkpoints, always in the main thread.
 *
 * Exactly-once across crashes: a part is first made visible in the bucket, then its checkpoint (cursor after its
 * last row, rows, file list) is committed. Part names come from the part index, so after a crash between the two
 * steps the resumed attempt writes the same name again, replacing the orphan instead of duplicating its rows.
 */
import { EXPORTABLE_FIELD_NAMES, type ExportableFieldName } from '../../../api/schemas/trace';
import type { BulkExportRunMetadata } from '../../../api/schemas/bulk-export';
import type { ResolvedDestination } from '../destinations/store';
import { createDestinationClient, exportPartKey, type S3ClientLimits } from '../destinations/s3';
import { ParquetPartUpload } from '../parquet/part-upload';
import { formatCursor, parseCursor } from '../store/runs';
import { toMicros, utcDayStart, MICROS_PER_MS } from '../store/time';
import type { EncodeScheduler } from './encode-pool';
import type { EncodeLimits } from './run-encoder';
import type { ExportRow, ExportStore, RunRow } from './store';

/** Sizes that bound an attempt's memory and its files, and the network limits of its uploads. */
export interface ExportWriterLimits extends EncodeLimits {
  /** Network limits of the S3 client. */
  readonly s3: S3ClientLimits;
}

/** Everything one attempt works with. */
export interface RunAttempt {
  readonly exportRow: ExportRow;
  readonly run: RunRow;
  readonly destination: ResolvedDestination;
  /** Where the attempt is encoded (main thread or worker). */
  readonly encoders: EncodeScheduler;
  readonly store: ExportStore;
  readonly limits: ExportWriterLimits;
  /** Aborts S3 requests in flight and the encoding (run timeout, workflow timeout, shutdown). */
  readonly signal: AbortSignal;
  /** False once the run or its export stopped being Running (cancel): the attempt stops at its next checkpoint. */
  readonly shouldContinue: () => boolean;
}

/** How an attempt ended without an error. */
export type AttemptOutcome = 'completed' | 'stopped';

/** Runs one attempt from the run's last checkpoint; resolves when the day is exported or the run must stop. */
export async function executeRunAttempt(attempt: RunAttempt): Promise<AttemptOutcome> {
  const { exportRow, run, destination, store, limits, signal } = attempt;
  const fromMicros = toMicros(run.start_time);
  const dayStartMs = utcDayStart(fromMicros) / MICROS_PER_MS;
  const config = destination.destination.config;
  const metadata = JSON.parse(run.metadata) as BulkExportRunMetadata;
  if (!attempt.shouldContinue()) return 'stopped';
  const source = await attempt.encoders.open(
    {
      tenantId: exportRow.tenant_id,
      sessionId: exportRow.session_id,
      fromMicros,
      toMicros: toMicros(run.end_time),
      cursor: metadata.latest_cursor ? parseCursor(metadata.latest_cursor) : null,
      fields: (exportRow.export_fields ? JSON.parse(exportRow.export_fields) : EXPORTABLE_FIELD_NAMES) as ExportableFieldName[],
      formatVersion: exportRow.format_version,
      filter: exportRow.filter,
      limits: {
        rowGroupRows: limits.rowGroupRows,
        maxRowsPerFile: limits.maxRowsPerFile,
        maxFileBytes: limits.maxFileBytes,
        multipartChunkBytes: limits.multipartChunkBytes,
      },
    },
    signal,
  );
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
      const upload = new ParquetPartUpload({ client, bucket: config.bucket_name, key, signal });
      try {
        let event = await source.next();
        while (event.kind === 'chunk') {
          await upload.sendChunk(event.bytes);
          event = await source.next();
        }
        if (event.kind === 'end') {
          // rows the filter dropped after the last file still move the cursor
          if (event.cursor && metadata.latest_cursor !== formatCursor(event.cursor)) {
            metadata.latest_cursor = formatCursor(event.cursor);
            store.checkpoint(run.id, metadata);
          }
          return 'completed';
        }
        await upload.finish(event.bytes, event.size);
        // the part is visible in the bucket: only now is its checkpoint committed
        metadata.exported_files.push(key);
        metadata.rows_written += event.rows;
        metadata.latest_cursor = formatCursor(event.cursor);
        store.checkpoint(run.id, metadata);
      } catch (err) {
        await upload.abort();
        throw err;
      }
    }
  } finally {
    source.close();
    client.destroy();
  }
}
