/**
 * A part file larger than one multipart chunk is streamed to the bucket as a multipart upload (a run never holds
 * the whole file), and the object reads back whole.
 */
import { toMicros } from '../../lib/local/tracing/store/time';
import { syntheticRunBatches } from '../../lib/local/tracing/synthetic/generate';
import { getObjectBytes, readParquetRows } from './support/parquet';
import { BUCKET, isFinal, startScenario, type Scenario } from './support/scenario';

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
