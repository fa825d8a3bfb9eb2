/**
 * A part file larger than one multipart chunk is streamed to the bucket as a multipart upload (a run never holds
 * the whole file), and the object reads back whole.
 */
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { classifyStorageError } from '../../lib/local/tracing/destinations/storage-errors';
import { ParquetPartUpload } from '../../lib/local/tracing/parquet/part-upload';
import { toMicros } from '../../lib/local/tracing/store/time';
import { syntheticRunBatches } from '../../lib/local/tracing/synthetic/generate';
import { getObjectBytes, readParquetRows } from './support/parquet';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy';
import { startTestS3 } from './support/s3';
import { BUCKET, isFinal, startScenario, type Scenario } from './support/scenario';
import { waitFor } from './support/wait';

let scenario: Scenario | undefined;
afterEach(async () => {
  await scenario?.close();
  scenario = undefined;
});

test.each([
  ['encoded in the main thread', { encodeThreads: 0 }],
  ['encoded in a worker, whose chunk buffers travel to the main thread and back', { encodeThreads: 1, encodeWorkerMinRows: 0 }],
])('a large part goes up in 5 MiB chunks and completes as one object (%s)', async (_label, threads) => {
  scenario = await startScenario({
    days: 1,
    runsPerDay: 4,
    settings: { ...threads, writer: { rowGroupRows: 200, maxRowsPerFile: 100_000, multipartChunkBytes: 5 * 1024 * 1024 } },
  });
  const large = syntheticRunBatches({
    tenantId: scenario.platform.tenantId,
    sessionId: scenario.sessionId,
    count: 4_000,
    startMicros: toMicros('2024-01-01T01:00:00Z'),
    endMicros: toMicros('2024-01-01T23:00:00Z'),
    payloadBytes: 8_000,
    seed: 7,
    batchSize: 200,
  });
  // in small batches that let the event loop breathe: a client must not find its keep-alive socket closed under it
  for (const batch of large) {
    scenario.platform.stores.runs.insertStored(batch);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const exp = await scenario.createExport(1);
  expect((await scenario.exportStatus(exp.id, isFinal)).status).toBe('Completed');
  const [run] = await scenario.platform.client.listExportRuns(exp.id);
  expect(run.metadata.exported_files).toHaveLength(1);
  const parts = scenario.proxy.seen.filter((line) => /^PUT .*partNumber=\d+/.test(line));
  expect(parts.length).toBeGreaterThanOrEqual(2);
  expect(scenario.proxy.seen.some((line) => /^POST .*\?uploads/.test(line))).toBe(true);
  expect(scenario.proxy.seen.some((line) => /^POST .*uploadId=/.test(line))).toBe(true);
  const rows = await readParquetRows(await getObjectBytes(scenario.s3.client, BUCKET, run.metadata.exported_files[0]));
  expect(rows).toHaveLength(run.metadata.rows_written);
  expect(rows).toHaveLength(4 + 4_000);
});

/** An S3 server behind a fault proxy, and a client of the proxy, for one test of ParquetPartUpload. */
async function withProxiedStore(
  test: (setup: { client: S3Client; direct: S3Client; proxy: FaultProxy }) => Promise<void>,
): Promise<void> {
  const s3 = await startTestS3([BUCKET]);
  const proxy = await startFaultProxy(s3.server.endpoint);
  const client = new S3Client({
    endpoint: proxy.endpoint,
    region: s3.server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.server.accessKeyId, secretAccessKey: s3.server.secretAccessKey },
  });
  try {
    await test({ client, direct: s3.client, proxy });
  } finally {
    client.destroy();
    await proxy.close();
    await s3.close();
  }
}

test('a stop that arrives while the multipart upload is being created still drops the upload', () =>
  withProxiedStore(async ({ client, proxy }) => {
    const controller = new AbortController();
    const upload = new ParquetPartUpload({ client, bucket: BUCKET, key: 'stopped/part-00000.parquet', signal: controller.signal });
    // the store creates the upload, and its answer is held until the stop has come
    proxy.setMode('hold-responses', '?uploads', 'POST');
    const sending = upload.sendChunk(new Uint8Array(5 * 1024 * 1024));
    const settled = sending.then(
      () => 'sent',
      (err: Error) => err.name,
    );
    await waitFor('the upload to be created', () => (proxy.held === 1 ? true : undefined));
    controller.abort(new DOMException('stopped', 'AbortError'));
    proxy.setMode('pass');
    proxy.release();
    expect(await settled).toBe('AbortError');
    await upload.abort();
    const created = proxy.seen.filter((line) => /^POST .*\?uploads/.test(line));
    expect(created).toHaveLength(1);
    expect(proxy.seen.filter((line) => /^PUT .*partNumber=/.test(line))).toHaveLength(0);
    expect(proxy.seen.some((line) => /^DELETE .*stopped\/part-00000\.parquet\?uploadId=/.test(line))).toBe(true);
  }));

test.each([
  ['with its bucket deleted, is a missing bucket (not retried)', true, 'NoSuchBucket'],
  ['with its bucket still there, stays a lost upload (retried)', false, 'NoSuchUpload'],
])('an upload the store no longer knows (NoSuchUpload), %s', (_label, deleteBucket, errorName) =>
  withProxiedStore(async ({ client, direct, proxy }) => {
    const upload = new ParquetPartUpload({ client, bucket: BUCKET, key: 'lost/part-00000.parquet', signal: new AbortController().signal });
    await upload.sendChunk(new Uint8Array(5 * 1024 * 1024));
    if (deleteBucket) {
      await upload.abort();
      await direct.send(new DeleteBucketCommand({ Bucket: BUCKET }));
    }
    proxy.setMode('no-such-upload', 'uploadId=', 'PUT');
    const failure = await upload.sendChunk(new Uint8Array(5 * 1024 * 1024)).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failure?.name).toBe(errorName);
    expect(classifyStorageError(failure).kind).toBe(deleteBucket ? 'bucket_not_valid' : 'transient');
    expect(proxy.seen.filter((line) => line.startsWith('HEAD '))).toEqual([`HEAD /${BUCKET}/`]);
  }));
