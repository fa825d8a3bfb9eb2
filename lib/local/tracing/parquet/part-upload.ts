/**
 * Sends one Parquet part file into a bucket while it is being encoded. Every full chunk the encoder hands out
 * becomes one part of a multipart upload; a file that never fills a chunk is sent with a single PUT. The object
 * appears only when the upload completes, so a reader never sees half a file; a failed upload is aborted so no
 * parts linger. The request that makes the object appear is not cut off by a stop once sent (only by a shutdown):
 * the store may have carried it out, and an object made but not known would be left in the bucket unrecorded.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** Settings of one part upload. */
export interface PartUploadOptions {
  /** Client of the destination. */
  readonly client: S3Client;
  /** Bucket name. */
  readonly bucket: string;
  /** Object key of the part. */
  readonly key: string;
  /** Aborts the requests in flight (run timeout, export ended, shutdown), but the one that makes the object appear. */
  readonly signal: AbortSignal;
  /**
   * Aborts, once sent, the request that makes the object appear (the single PUT, or the completion of the multipart
   * upload) and the size check after it. Only a shutdown should: any other stop lets them finish (bounded by the
   * client's timeouts), so that the object is committed as a file of its run rather than left in the bucket unknown.
   * @default signal
   */
  readonly finishSignal?: AbortSignal;
}

/** The HTTP status of an S3 client error, if the store answered. */
const statusOf = (err: unknown): number | undefined => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** The error of a bucket found gone, as the store names it when a request meets a missing bucket. */
function bucketGoneError(bucket: string, after: string): Error {
  // the key last: a description is cut at a few hundred characters
  const error = new Error(`The bucket ${bucket} does not exist: a HEAD of the bucket answered 404, after ${after}`);
  return Object.assign(error, { name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } });
}

/** One Parquet file being written to the bucket. */
export class ParquetPartUpload {
  private uploadId: string | undefined;
  private readonly parts: { ETag: string | undefined; PartNumber: number }[] = [];

  constructor(private readonly options: PartUploadOptions) {}

  /** Sends a full chunk (not the last one of the file) as the next part of a multipart upload. */
  async sendChunk(bytes: Uint8Array): Promise<void> {
    const { client, bucket, key, signal } = this.options;
    if (this.uploadId === undefined) {
      signal.throwIfAborted();
      // not cut off by the signal: an upload the store created must be known by its id, or `abort()` could not drop
      // it and its parts would stay in the bucket (the request is small, and bounded by the client's timeouts)
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      this.uploadId = created.UploadId;
      signal.throwIfAborted();
    }
    const partNumber = this.parts.length + 1;
    const uploaded = await client
      .send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId, PartNumber: partNumber, Body: asBuffer(bytes) }), {
        abortSignal: signal,
      })
      .catch((err: unknown) => this.unlessBucketGone(err, signal));
    this.parts.push({ ETag: uploaded.ETag, PartNumber: partNumber });
  }

  /**
   * Sends the file's last bytes and makes the object visible; then checks its size (`totalBytes`) when reads are
   * allowed.
   */
  async finish(lastBytes: Uint8Array, totalBytes: number): Promise<void> {
    const { client, bucket, key, signal } = this.options;
    const finishSignal = this.options.finishSignal ?? signal;
    if (this.uploadId === undefined) {
      signal.throwIfAborted();
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: asBuffer(lastBytes) }), { abortSignal: finishSignal });
    } else {
      await this.sendChunk(lastBytes);
      signal.throwIfAborted();
      await client
        .send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: this.uploadId,
            MultipartUpload: { Parts: this.parts },
          }),
          { abortSignal: finishSignal },
        )
        .catch((err: unknown) => this.unlessBucketGone(err, finishSignal));
    }
    await this.verifySize(totalBytes, finishSignal);
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
   * Rethrows a multipart request's error, as a missing bucket when the store no longer knows the upload
   * (`NoSuchUpload`) because the bucket was deleted with it; a lost upload of a bucket still there is retried.
   */
  private async unlessBucketGone(err: unknown, signal: AbortSignal): Promise<never> {
    if ((err as Error | undefined)?.name === 'NoSuchUpload' && (await this.bucketGone(signal))) {
      throw bucketGoneError(this.options.bucket, `the store answered NoSuchUpload for ${this.options.key}`);
    }
    throw err;
  }

  /**
   * Whether the bucket is gone: a HEAD of the bucket answers 404. Any other answer (200, or 403 for a key without
   * s3:ListBucket, which the export does not need) or no answer leaves the first error as it was.
   */
  private async bucketGone(signal: AbortSignal): Promise<boolean> {
    try {
      await this.options.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }), { abortSignal: signal });
      return false;
    } catch (err) {
      return statusOf(err) === 404;
    }
  }

  /** Read permission is optional but recommended: with it, a short object is caught before it is checkpointed. */
  private async verifySize(expected: number, signal: AbortSignal): Promise<void> {
    const { client, bucket, key } = this.options;
    let actual: number | undefined;
    try {
      actual = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal })).ContentLength;
    } catch (err) {
      const status = statusOf(err);
      if (status === 403) return;
      // the answer to a HEAD has no body, so a missing bucket and a missing object look alike: the bucket is asked
      // after (a bucket deleted during the export is not retried); an object the store has just taken but does not
      // show yet is retried
      if (status === 404) {
        if (await this.bucketGone(signal)) throw bucketGoneError(bucket, `a HEAD of ${key} answered 404`);
        throw new Error(`Parquet file ${key} was not found in the bucket right after it was written`);
      }
      throw err;
    }
    if (actual !== undefined && actual !== expected) {
      throw new Error(`Parquet file ${key} has ${actual} bytes in the bucket, ${expected} were written`);
    }
  }
}

/** The same bytes as a Buffer, without copying (the SDK sends a Buffer body as it is). */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
