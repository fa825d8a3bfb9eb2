/**
 * Reading Parquet files back with hyparquet, an independent reader (it shares no code with the writer's encoding
 * path), and listing and fetching objects of a bucket.
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type * as Hyparquet from 'hyparquet';

type NodeModuleApi = { createRequire(filename: string): NodeJS.Require };

/** hyparquet is ESM-only; Node's own require loads it (jest's registry cannot). */
export function hyparquet(): typeof Hyparquet {
  const builtins = (process as NodeJS.Process & { getBuiltinModule(id: string): unknown }).getBuiltinModule('node:module') as NodeModuleApi;
  return builtins.createRequire(__filename)('hyparquet') as typeof Hyparquet;
}

/** Every row of a Parquet file, as objects keyed by column name. */
export async function readParquetRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await hyparquet().parquetReadObjects({ file })) as Record<string, unknown>[];
}

/** The schema elements and row count of a Parquet file. */
export async function readParquetMetadata(bytes: Uint8Array): Promise<Hyparquet.FileMetaData> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return hyparquet().parquetMetadata(file);
}

/** Every key under a prefix (all pages), sorted. */
export async function listKeys(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) keys.push(object.Key!);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

/** The bytes of one object. */
export async function getObjectBytes(client: S3Client, bucket: string, key: string): Promise<Uint8Array> {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return object.Body!.transformToByteArray();
}
