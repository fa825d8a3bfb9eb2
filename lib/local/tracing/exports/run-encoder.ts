/**
 * The encoding half of one export run attempt, without any I/O but reads: from the run's checkpoint on, read pages
 * in cursor order, encode them into part files, and hand out the bytes as a sequence of events that the uploading
 * half turns into objects and checkpoints. It is pulled one event at a time, so the consumer decides how far
 * ahead encoding may run; the same code runs in the main thread and in encode workers.
 */
import type { FormatVersion } from '../../../api/schemas/bulk-export';
import type { ExportableFieldName } from '../../../api/schemas/trace-fields';
import { exportColumns } from '../parquet/columns';
import { ParquetPartEncoder, type ChunkHandOff } from '../parquet/part-encoder';
import type { RunCursor } from '../store/runs';
import { RunPageReader, type ReadPage } from './page-reader';

/** Sizes that bound the encoding of an attempt and its files. */
export interface EncodeLimits {
  /** Rows per Parquet row group (also the page size read from SQLite). */
  readonly rowGroupRows: number;
  /** Rows per part file at most. */
  readonly maxRowsPerFile: number;
  /** A part file is closed once it holds this many bytes (checked after each row group). */
  readonly maxFileBytes: number;
  /** Bytes buffered per multipart chunk (at least 5 MiB). */
  readonly multipartChunkBytes: number;
}

/** What one attempt encodes: plain data, so it can be posted to an encode worker. */
export interface EncodeJob {
  readonly tenantId: string;
  readonly sessionId: string;
  /** The run's range, epoch microseconds, [from, to). */
  readonly fromMicros: number;
  readonly toMicros: number;
  /** Where the segment's last checkpoint left off (null: from the start of the range). */
  readonly cursor: RunCursor | null;
  /** The segment's last run (inclusive); null: up to the end of the range. */
  readonly until: RunCursor | null;
  /** The exported fields, in column order. */
  readonly fields: readonly ExportableFieldName[];
  readonly formatVersion: FormatVersion;
  /** The export's filter expression, if any. */
  readonly filter: string | null;
  readonly limits: EncodeLimits;
}

/** One step of an attempt's output, in order. */
export type EncodedEvent =
  /** A full chunk of the current part file (more of the file follows). */
  | { readonly kind: 'chunk'; readonly bytes: Uint8Array }
  /** The last bytes of the current part file: the file is complete, with `rows` rows up to `cursor`. */
  | { readonly kind: 'part'; readonly bytes: Uint8Array; readonly rows: number; readonly size: number; readonly cursor: RunCursor }
  /** No rows are left; `cursor` is the last row read (rows the filter dropped after the last part included). */
  | { readonly kind: 'end'; readonly cursor: RunCursor | null };

/** Encodes one attempt, one event per `next()` call. */
export class RunEncoder {
  private readonly reader: RunPageReader;
  private readonly columns;
  private cursor: RunCursor | null;
  private part: ParquetPartEncoder | undefined;
  private exhausted = false;

  /**
   * @param job what to encode
   * @param readPage where pages come from
   * @param handOff whether chunks are views of a reused buffer (valid until the next call) or buffers given away
   * @param checkAbort called before each page, to stop a long encoding at once (throws to stop)
   */
  constructor(
    private readonly job: EncodeJob,
    readPage: ReadPage,
    private readonly handOff: ChunkHandOff = 'view',
    private readonly checkAbort: () => void = () => undefined,
  ) {
    this.columns = exportColumns(job.fields, job.formatVersion);
    this.cursor = job.cursor;
    this.reader = new RunPageReader({
      readPage,
      tenantId: job.tenantId,
      sessionId: job.sessionId,
      fromMicros: job.fromMicros,
      toMicros: job.toMicros,
      until: job.until,
      columns: this.columns,
      filter: job.filter,
    });
  }

  /** Whether the next step may take a buffer from the supply: it starts a part file, or continues one given away. */
  get needsBuffer(): boolean {
    if (this.part === undefined) return !this.exhausted;
    return this.part.needsBuffer;
  }

  /** Encodes up to the next full chunk, the end of the current part file, or the end of the run. */
  next(): EncodedEvent {
    const { limits } = this.job;
    const maxRows = Math.max(1, limits.maxRowsPerFile);
    for (;;) {
      if (this.exhausted && this.part === undefined) return { kind: 'end', cursor: this.cursor };
      const part = (this.part ??= new ParquetPartEncoder(this.columns, limits.multipartChunkBytes, this.handOff));
      while (!this.exhausted && part.rows < maxRows && part.bytesWritten < limits.maxFileBytes) {
        this.checkAbort();
        const step = this.reader.readAndEncode(this.cursor, Math.max(1, Math.min(limits.rowGroupRows, maxRows - part.rows)), part);
        if (step === undefined) {
          this.exhausted = true;
          break;
        }
        this.cursor = step.cursor;
        if (step.chunk) return { kind: 'chunk', bytes: step.chunk };
      }
      this.part = undefined;
      // a part that got no rows (the filter dropped them all) is no file
      if (part.rows === 0) {
        part.discard();
        continue;
      }
      const bytes = part.finish();
      return { kind: 'part', bytes, rows: part.rows, size: part.bytesWritten, cursor: this.cursor! };
    }
  }
}
