/**
 * Encodes one Parquet part file into a buffer, row group by row group, and hands the bytes out in multipart-sized
 * chunks, so a writer holds about one chunk and one row group however large the file grows. Pages are compressed
 * with the native Snappy of the `snappy` package (the writer's own JavaScript Snappy took about 40% of the encoding
 * time). No I/O happens here: the same encoder runs in the main thread and in encode workers.
 */
import type * as HyparquetWriter from 'hyparquet-writer';
import { compressSync } from 'snappy';
import { fileSchema, type ExportColumn } from './columns';
import { hyparquetWriter } from './esm';

/** Room for a row group on top of a full chunk, so the buffer rarely has to grow (and copy) while encoding. */
const ROW_GROUP_HEADROOM_BYTES = 4 * 1024 * 1024;

/** S3's smallest allowed size of a part that is not the last one. */
export const MIN_MULTIPART_CHUNK_BYTES = 5 * 1024 * 1024;

// a V8-owned copy of the output: external buffers are invisible to the collector and made the heap grow
const SNAPPY_OPTIONS = { copyOutputData: true };

/** Raw (unframed) Snappy, as Parquet pages carry it. */
const snappyCompress = (input: Uint8Array): Uint8Array => compressSync(input, SNAPPY_OPTIONS);

type ByteWriter = InstanceType<typeof HyparquetWriter.ByteWriter>;
type ColumnSource = Parameters<InstanceType<typeof HyparquetWriter.ParquetWriter>['write']>[0]['columnData'][number];

/**
 * How handed-out bytes relate to the encoder's buffer: `view` hands out views of one buffer that is reused (valid
 * until the next call of the encoder); a {@link BufferSupply} hands out the buffer itself (so it can be transferred
 * to another thread) and continues, at its next write, in a buffer taken from the supply.
 */
export type ChunkHandOff = 'view' | BufferSupply;

/** Where an encoder that gives its buffers away gets the next one, and where it returns one it did not hand out. */
export interface BufferSupply {
  /** A buffer of at least `bytes` bytes. */
  take(bytes: number): ArrayBuffer;
  /** A buffer taken but not handed out (a part file that got no rows). */
  give(buffer: ArrayBuffer): void;
}

/** The size of an encoder's buffer for a chunk size: a full chunk plus room for one more row group. */
export const encoderBufferBytes = (chunkBytes: number): number =>
  Math.max(MIN_MULTIPART_CHUNK_BYTES, chunkBytes) + ROW_GROUP_HEADROOM_BYTES;

/**
 * The first buffer of an encoder whose chunks are views: most files encoded in the main thread are small, and the
 * buffer doubles when one is not. Allocating a full chunk buffer for each of them and freeing it again also made
 * the C allocator keep buffers of that size in its arenas (see encode-worker.ts).
 */
const VIEW_INITIAL_BYTES = 256 * 1024;

/** One Parquet file being encoded. */
export class ParquetPartEncoder {
  private readonly writer: ByteWriter;
  private readonly parquet: InstanceType<typeof HyparquetWriter.ParquetWriter>;
  private readonly chunkBytes: number;
  private rowCount = 0;
  private viewOut = false;
  /** The buffer was handed out: the next write takes another one from the supply. */
  private given = false;

  /**
   * @param columns the columns, in file order
   * @param chunkBytes bytes handed out at a time (at least 5 MiB, S3's smallest part)
   * @param handOff `view`, or where to get the next buffer when handing out the current one
   */
  constructor(
    private readonly columns: readonly ExportColumn[],
    chunkBytes: number,
    private readonly handOff: ChunkHandOff = 'view',
  ) {
    const { ByteWriter, ParquetWriter } = hyparquetWriter();
    this.chunkBytes = Math.max(MIN_MULTIPART_CHUNK_BYTES, chunkBytes);
    this.writer = new ByteWriter(0);
    this.useBuffer(handOff === 'view' ? new ArrayBuffer(VIEW_INITIAL_BYTES) : handOff.take(encoderBufferBytes(chunkBytes)));
    this.parquet = new ParquetWriter({
      writer: this.writer,
      schema: fileSchema(columns),
      codec: 'SNAPPY',
      compressors: { SNAPPY: snappyCompress },
      createdBy: 'agentplatform-local bulk export',
    });
  }

  /** Bytes of the file so far (handed out and buffered). */
  get bytesWritten(): number {
    return this.writer.offset;
  }

  /** Rows encoded so far. */
  get rows(): number {
    return this.rowCount;
  }

  /** Whether the next write takes a buffer from the supply (the last one was handed out). */
  get needsBuffer(): boolean {
    return this.given && this.handOff !== 'view';
  }

  /**
   * Encodes one row group (`values[i]` holds the converted values of column i). Returns a full chunk once the
   * buffer holds at least one, else undefined.
   */
  writeRowGroup(values: readonly unknown[][]): Uint8Array | undefined {
    const rowCount = values[0]?.length ?? 0;
    if (rowCount === 0) return undefined;
    this.reclaim();
    const columnData = this.columns.map(
      (column, i): ColumnSource => ({ name: column.name, data: values[i] as ColumnSource['data'], ...column.options }),
    );
    this.rowCount += rowCount;
    // the writer has no flush hook here, so it encodes synchronously
    void this.parquet.write({ columnData, rowGroupSize: rowCount });
    return this.writer.index >= this.chunkBytes ? this.takeBuffered() : undefined;
  }

  /** Writes the footer and returns every byte not handed out yet (the last chunk of the file). */
  finish(): Uint8Array {
    this.reclaim();
    void this.parquet.finish();
    return this.takeBuffered();
  }

  /**
   * Gives back the buffer of a file that is dropped unfinished (it got no rows), so a supply that counts its buffers
   * keeps it.
   */
  discard(): void {
    if (this.handOff !== 'view' && !this.given) this.handOff.give(this.writer.buffer);
    this.given = true;
  }

  private takeBuffered(): Uint8Array {
    const bytes = new Uint8Array(this.writer.buffer, 0, this.writer.index);
    if (this.handOff === 'view') this.viewOut = true;
    else this.given = true;
    return bytes;
  }

  private useBuffer(buffer: ArrayBuffer): void {
    this.writer.buffer = buffer;
    this.writer.view = new DataView(buffer);
    this.writer.index = 0;
  }

  /**
   * Before a write: a view handed out earlier is no longer used once the encoder is called again, so its bytes can
   * be overwritten; a buffer given away is replaced by one from the supply.
   */
  private reclaim(): void {
    if (this.viewOut) {
      this.viewOut = false;
      this.writer.index = 0;
    } else if (this.given && this.handOff !== 'view') {
      this.given = false;
      this.useBuffer(this.handOff.take(encoderBufferBytes(this.chunkBytes)));
    }
  }
}
