/**
 * Writes one Parquet part file straight into a bucket while it is being encoded. Row groups are encoded into a
 * buffer; once the buffer holds a multipart chunk it is sent as one part of a multipart upload and the buffer is
 * reused, so memory per writer stays near one chunk plus one row group however large the file grows. A file that
 * never fills a chunk is sent with a single PUT. The object appears only when the upload completes, so a reader
 * never sees half a file; a failed upload is aborted so no parts linger.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type * as HyparquetWriter from 'hyparquet-writer';
import { hyparquetWriter } from './esm';
import { fileSchema, type ExportColumn } from './columns';

/** Room for a row group on top of a full chunk, so the buffer rarely has to grow (and copy) while encoding. */
const ROW_GROUP_HEADROOM_BYTES = 4 * 1024 * 1024;

/** S3's smallest allowed size of a part that is not the last one. */
export const MIN_MULTIPART_CHUNK_BYTES = 5 * 1024 * 1024;

/** Settings of one part upload. */
export interface PartUploadOptions {
  /** Client of the destination. */
  readonly client: S3Client;
  /** Bucket name. */
  readonly bucket: string;
  /** Object key of the part. */
  readonly key: string;
  /** The columns, in file order. */
  readonly columns: readonly ExportColumn[];
  /** Aborts every request in flight (run timeout, shutdown). */
  readonly signal: AbortSignal;
  /**
   * Bytes buffered before they are sent as one multipart chunk (at least 5 MiB).
   * @default 8 MiB
   */
  readonly chunkBytes?: number;
}

/** What a finished upload wrote. */
export interface UploadedPart {
  /** Object key. */
  readonly key: string;
  /** Size of the object. */
  readonly bytes: number;
  /** Rows in the file. */
  readonly rows: number;
}

type ByteWriter = InstanceType<typeof HyparquetWriter.ByteWriter>;
type ColumnSource = Parameters<InstanceType<typeof HyparquetWriter.ParquetWriter>['write']>[0]['columnData'][number];

/** One Parquet file being written to the bucket. */
export class ParquetPartUpload {
  private readonly writer: ByteWriter;
  private readonly parquet: InstanceType<typeof HyparquetWriter.ParquetWriter>;
  private readonly chunkBytes: number;
  private uploadId: string | undefined;
  private readonly parts: { ETag: string | undefined; PartNumber: number }[] = [];
  private rows = 0;

  constructor(private readonly options: PartUploadOptions) {
    const { ByteWriter, ParquetWriter } = hyparquetWriter();
    this.chunkBytes = Math.max(MIN_MULTIPART_CHUNK_BYTES, options.chunkBytes ?? 8 * 1024 * 1024);
    this.writer = new ByteWriter(this.chunkBytes + ROW_GROUP_HEADROOM_BYTES);
    // ParquetWriter calls flush() after every row group and awaits it before encoding more
    (this.writer as ByteWriter & { flush(): Promise<void> | undefined }).flush = () =>
      this.writer.index >= this.chunkBytes ? this.sendChunk() : undefined;
    this.parquet = new ParquetWriter({
      writer: this.writer,
      schema: fileSchema(options.columns),
      codec: 'SNAPPY',
      createdBy: 'agentplatform-local bulk export',
    });
  }

  /** Bytes of the file so far (sent and buffered). */
  get bytesWritten(): number {
    return this.writer.offset;
  }

  /**
   * Encodes one row group (`values[i]` holds the converted values of column i) synchronously and returns the
   * pending upload of a full chunk, if any. Not async on purpose: the caller awaits only the upload, so no row data
   * stays reachable while it waits.
   */
  writeRowGroup(values: readonly unknown[][]): Promise<void> | undefined {
    const rowCount = values[0]?.length ?? 0;
    if (rowCount === 0) return undefined;
    const columnData = this.options.columns.map(
      (column, i): ColumnSource => ({ name: column.name, data: values[i] as ColumnSource['data'], ...column.options }),
    );
    this.rows += rowCount;
    return this.parquet.write({ columnData, rowGroupSize: rowCount }) ?? undefined;
  }

  /** Writes the footer, sends what is left and makes the object visible; then checks its size when reads are allowed. */
  async finish(): Promise<UploadedPart> {
    await this.parquet.finish();
    const { client, bucket, key, signal } = this.options;
    const bytes = this.writer.offset;
    if (this.uploadId === undefined) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: this.buffered() }), { abortSignal: signal });
      this.writer.index = 0;
    } else {
      await this.sendChunk();
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.parts },
        }),
        { abortSignal: signal },
      );
    }
    await this.verifySize(bytes);
    return { key, bytes, rows: this.rows };
  }

  /** Drops a multipart upload in progress; failures to abort are ignored (the permission is optional). */
  async abort(): Promise<void> {
    if (this.uploadId === undefined) return;
    const { client, bucket, key } = this.options;
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId }));
    } catch {
      // without s3:AbortMultipartUpload the bucket's lifecycle rules must clean up
    }
  }

  /**
   * The buffered bytes, without copying. The buffer is reused for the next chunk only after the request that sends
   * these bytes has completed (every upload is awaited before more is encoded), so one buffer serves the whole file.
   */
  private buffered(): Buffer {
    return Buffer.from(this.writer.buffer, 0, this.writer.index);
  }

  private async sendChunk(): Promise<void> {
    const { client, bucket, key, signal } = this.options;
    if (this.uploadId === undefined) {
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
      this.uploadId = created.UploadId;
    }
    const partNumber = this.parts.length + 1;
    const uploaded = await client.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId, PartNumber: partNumber, Body: this.buffered() }),
      { abortSignal: signal },
    );
    this.writer.index = 0;
    this.parts.push({ ETag: uploaded.ETag, PartNumber: partNumber });
  }

  /** Read permission is optional but recommended: with it, a short object is caught before it is checkpointed. */
  private async verifySize(expected: number): Promise<void> {
    const { client, bucket, key, signal } = this.options;
    let actual: number | undefined;
    try {
      actual = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal })).ContentLength;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 403) return;
      throw err;
    }
    if (actual !== undefined && actual !== expected) {
      throw new Error(`Parquet file ${key} has ${actual} bytes in the bucket, ${expected} were written`);
    }
  }
}
