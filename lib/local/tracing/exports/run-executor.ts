/**
 * One attempt of one export run: its day of the project is read in cursor order (start_time, id) and encoded into
 * Parquet part files (run-encoder.ts, in the main thread or an encode worker: encode-pool.ts), and this side
 * streams the bytes to the bucket and commits the checkpoints, always in the main thread. A large run is cut into
 * segments at its first attempt, exported side by side (segments.ts).
 *
 * Exactly-once across crashes: a part is first made visible in the bucket, then its checkpoint (cursor after its
 * last row, rows, file list) is committed. Part names come from the part index, so after a crash between the two
 * steps the resumed attempt writes the same name again, replacing the orphan instead of duplicating its rows.
 *
 * Nothing left unrecorded: a part's name is recorded as uncommitted before its first request, and forgotten by the
 * checkpoint that commits it. A stop other than a shutdown lets the request that makes the part appear finish, once
 * sent, and the part be committed; whatever a run that ends for good still has uncommitted (a request whose answer
 * was lost, a shutdown or crash) is deleted from the bucket (uncommitted-files.ts), as no attempt writes that name
 * again.
 */
import { EXPORTABLE_FIELD_NAMES, type ExportableFieldName } from '../../../api/schemas/trace';
import type { BulkExportRunMetadata } from '../../../api/schemas/bulk-export';
import type { ResolvedDestination } from '../destinations/store';
import { createDestinationClient, exportPartKey, type S3ClientLimits } from '../destinations/s3';
import { ParquetPartUpload } from '../parquet/part-upload';
import { formatCursor, parseCursor } from '../store/runs';
import { toMicros, utcDayStart, MICROS_PER_MS } from '../store/time';
import type { AttemptWork } from './attempt-time-limit';
import type { EncodeScheduler } from './encode-pool';
import { cutSegments, runMetadata, wholeRunSegment, type RunSegment, type RunSegments } from './segments';
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
  /**
   * Aborts S3 requests in flight and the encoding (run timeout, workflow timeout, export ended, shutdown), but not the
   * request that makes a file's object appear, once sent: that file is committed when the store made it.
   */
  readonly signal: AbortSignal;
  /** Aborted when the platform stops: cuts off even that request (the file stays recorded as uncommitted). */
  readonly shutdown: AbortSignal;
  /** False once the run or its export stopped being Running (cancel): the attempt stops at its next checkpoint. */
  readonly shouldContinue: () => boolean;
  /** Told while a segment has its encoder: the run timeout counts that time only (attempt-time-limit.ts). */
  readonly work: AttemptWork;
}

/** How an attempt ended without an error. */
export type AttemptOutcome = 'completed' | 'stopped';

/** Runs one attempt from the run's last checkpoints; resolves when the day is exported or the run must stop. */
export async function executeRunAttempt(attempt: RunAttempt): Promise<AttemptOutcome> {
  if (!attempt.shouldContinue()) return 'stopped';
  const plan = segmentsOf(attempt);
  const client = createDestinationClient(attempt.destination.destination.config, attempt.destination.credentials, attempt.limits.s3);
  // a segment that fails stops the others, so the attempt ends (and its workers are free) before it is retried
  const siblings = new AbortController();
  const stopSiblings = (): void => siblings.abort(attempt.signal.reason);
  attempt.signal.addEventListener('abort', stopSiblings, { once: true });
  if (attempt.signal.aborted) stopSiblings();
  let firstError: { error: unknown } | undefined;
  try {
    const outcomes = await Promise.all(
      plan.segments.map(async (segment, index) => {
        if (segment.done) return 'completed';
        try {
          return await exportSegment({ ...attempt, signal: siblings.signal }, plan, index, client);
        } catch (error) {
          firstError ??= { error };
          siblings.abort(new Error('Another segment of the run failed'));
          return 'stopped';
        }
      }),
    );
    if (firstError) throw firstError.error;
    return outcomes.every((outcome) => outcome === 'completed') ? 'completed' : 'stopped';
  } finally {
    attempt.signal.removeEventListener('abort', stopSiblings);
    client.destroy();
  }
}

/**
 * The run's segments: as decided at its first attempt, or decided now (cut, or in one piece). The decision is stored
 * before any file is written, either way: a later attempt must write the same file names, so that a file uploaded
 * without its checkpoint is replaced, even when the day has grown past the cut since, or the encode threads changed.
 */
function segmentsOf(attempt: RunAttempt): RunSegments {
  const { run, exportRow, store } = attempt;
  const metadata = JSON.parse(run.metadata) as BulkExportRunMetadata;
  const whole: RunSegments = { segments: [wholeRunSegment(metadata)], cut: false };
  if (run.segments !== null) {
    const stored = JSON.parse(run.segments) as RunSegment[];
    // no segments: the run stays in one piece, whose progress is its metadata
    return stored.length === 0 ? whole : { segments: stored, cut: true };
  }
  // committed files and no decision: a run of a data dir from before the decision was stored for runs in one piece
  if (metadata.latest_cursor !== null || metadata.exported_files.length > 0) return whole;
  const ends = attempt.encoders.segmentCuts(exportRow.session_id, toMicros(run.start_time), toMicros(run.end_time));
  if (ends.length === 0) {
    store.checkpoint(run.id, metadata, []);
    return whole;
  }
  const segments = cutSegments(ends);
  store.checkpoint(run.id, runMetadata(segments), segments);
  return { segments, cut: true };
}

/** Exports one segment from its checkpoint (for a run in one piece: the whole run). */
async function exportSegment(
  attempt: RunAttempt,
  plan: RunSegments,
  index: number,
  client: ReturnType<typeof createDestinationClient>,
): Promise<AttemptOutcome> {
  const { exportRow, run, store, limits, signal } = attempt;
  const segment = plan.segments[index];
  const fromMicros = toMicros(run.start_time);
  const dayStartMs = utcDayStart(fromMicros) / MICROS_PER_MS;
  const config = attempt.destination.destination.config;
  const commit = (committedKey?: string): void =>
    store.checkpoint(run.id, runMetadata(plan.segments), plan.cut ? plan.segments : undefined, committedKey);
  const resumeAt = segment.cursor ?? segment.after;
  const source = await attempt.encoders.open(
    {
      tenantId: exportRow.tenant_id,
      sessionId: exportRow.session_id,
      fromMicros,
      toMicros: toMicros(run.end_time),
      cursor: resumeAt === null ? null : parseCursor(resumeAt),
      until: segment.until === null ? null : parseCursor(segment.until),
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
  // from here on the attempt works: the time it waited for an encode thread did not count against its time limit
  attempt.work.resume();
  try {
    for (;;) {
      if (!attempt.shouldContinue()) return 'stopped';
      const key = exportPartKey({
        config,
        exportId: exportRow.id,
        tenantId: exportRow.tenant_id,
        sessionId: exportRow.session_id,
        dayStartMs,
        segmentIndex: plan.cut ? index : undefined,
        partIndex: segment.files.length,
      });
      const upload = new ParquetPartUpload({ client, bucket: config.bucket_name, key, signal, finishSignal: attempt.shutdown });
      try {
        let event = await source.next();
        if (event.kind !== 'end') store.recordUncommittedFile(run.id, key);
        while (event.kind === 'chunk') {
          await upload.sendChunk(event.bytes);
          event = await source.next();
        }
        if (event.kind === 'end') {
          // rows the filter dropped after the last file still move the cursor
          const cursor = event.cursor ? formatCursor(event.cursor) : segment.cursor;
          const changed = cursor !== segment.cursor;
          segment.cursor = cursor;
          segment.done = true;
          // a run in one piece is completed by the engine; a segment's end must be stored for the next attempt
          if (changed || plan.cut) commit();
          return 'completed';
        }
        await upload.finish(event.bytes, event.size);
        // the part is visible in the bucket: only now is its checkpoint committed
        segment.files.push(key);
        segment.rows += event.rows;
        segment.cursor = formatCursor(event.cursor);
        commit(key);
      } catch (err) {
        await upload.abort();
        throw err;
      }
    }
  } finally {
    source.close();
    attempt.work.pause();
  }
}
