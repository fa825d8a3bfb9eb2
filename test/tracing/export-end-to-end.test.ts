/**
 * End to end: runs ingested through the API and generated in bulk are exported to an S3 server, and the Parquet
 * files read back with an independent reader (hyparquet) hold exactly the source rows, in cursor order, under the
 * documented Hive-style layout.
 */
import type { BulkExport } from '../../lib/api/schemas/bulk-export';
import { EXPORTABLE_FIELD_NAMES } from '../../lib/api/schemas/trace';
import type { StoredRun } from '../../lib/local/tracing/store/runs';
import { formatMicros, toMicros } from '../../lib/local/tracing/store/time';
import { generateSyntheticRuns } from '../../lib/local/tracing/synthetic/generate';
import { getObjectBytes, listKeys, readParquetMetadata, readParquetRows } from './support/parquet';
import { startTracingPlatform, type TracingPlatform } from './support/platform';
import { startTestS3, type TestS3 } from './support/s3';
import { waitForFinalExport } from './support/wait';

const BUCKET = 'exports';
const START = '2024-03-01T00:00:00Z';
const END = '2024-03-03T12:00:00Z';

let s3: TestS3;
let platform: TracingPlatform;
let sessionId: string;
let destinationId: string;

/** The stored rows of the project in [start, end), in cursor order. */
function sourceRows(from: string, to: string): StoredRun[] {
  const db = platform.db;
  return db
    .prepare('SELECT * FROM trace_runs WHERE session_id = ? AND start_time >= ? AND start_time < ? ORDER BY start_time, id')
    .all(sessionId, toMicros(from), toMicros(to)) as StoredRun[];
}

async function exportedRows(exp: BulkExport): Promise<{ keys: string[]; rows: Record<string, unknown>[] }> {
  const runs = await platform.client.listExportRuns(exp.id);
  const keys = runs.flatMap((run) => run.metadata.exported_files);
  const rows: Record<string, unknown>[] = [];
  for (const key of keys) rows.push(...(await readParquetRows(await getObjectBytes(s3.client, BUCKET, key))));
  return { keys, rows };
}

const finished = (id: string): Promise<BulkExport> => waitForFinalExport(platform.client, id);

beforeAll(async () => {
  s3 = await startTestS3([BUCKET]);
  platform = await startTracingPlatform({ settings: { writer: { rowGroupRows: 150, maxRowsPerFile: 400 } } });
  sessionId = (await platform.client.createSession({ name: 'support-bot' })).id;
  const rootId = '0190a3c4-0000-7000-8000-000000000001';
  await platform.client.ingestRuns({
    post: [
      {
        id: rootId,
        name: 'Agent',
        run_type: 'chain',
        start_time: '2024-03-01T08:00:00.000123Z',
        session_name: 'support-bot',
        inputs: { question: 'where is my order?' },
        tags: ['vip'],
      },
      {
        id: '0190a3c4-0000-7000-8000-000000000002',
        parent_run_id: rootId,
        name: 'ChatModel',
        run_type: 'llm',
        start_time: '2024-03-01T08:00:00.5Z',
        end_time: '2024-03-01T08:00:01.25Z',
        session_id: sessionId,
        inputs: { messages: [] },
        outputs: { text: 'On its way' },
        prompt_tokens: 12,
        completion_tokens: 4,
        prompt_cost: 0.00012,
        completion_cost: 0.00008,
      },
    ],
    patch: [{ id: rootId, end_time: '2024-03-01T08:00:02Z', outputs: { answer: 'On its way' } }],
  });
  generateSyntheticRuns(platform.stores.runs, {
    tenantId: platform.tenantId,
    sessionId,
    count: 2_000,
    startMicros: toMicros('2024-02-29T20:00:00Z'),
    endMicros: toMicros('2024-03-03T20:00:00Z'),
    payloadBytes: 300,
  });
  destinationId = (
    await platform.client.createDestination({
      destination_type: 's3',
      display_name: 'archive',
      config: { bucket_name: BUCKET, prefix: 'team/traces', endpoint_url: s3.server.endpoint },
      credentials: s3.credentials,
    })
  ).id;
}, 60_000);

afterAll(async () => {
  await platform?.close();
  await s3?.close();
});

test('ingested runs get their hierarchy derived and their patch applied', async () => {
  const root = platform.stores.runs.get(platform.tenantId, '0190a3c4-0000-7000-8000-000000000001')!;
  const child = platform.stores.runs.get(platform.tenantId, '0190a3c4-0000-7000-8000-000000000002')!;
  expect(root).toMatchObject({ is_root: true, status: 'success', outputs: { answer: 'On its way' }, start_time: '2024-03-01T08:00:00.000123Z' });
  expect(child).toMatchObject({
    is_root: false,
    trace_id: root.id,
    parent_run_ids: [root.id],
    total_tokens: 16,
    status: 'success',
  });
  expect(child.dotted_order.startsWith(`${root.dotted_order}.`)).toBe(true);
});

test('a v1 export writes every source row exactly once, in cursor order, one run per UTC day', async () => {
  const created = await platform.client.createExport({
    bulk_export_destination_id: destinationId,
    session_id: sessionId,
    start_time: START,
    end_time: END,
  });
  expect(created).toMatchObject({ status: expect.stringMatching(/Created|Running/), format_version: 'v1', source_bulk_export_id: null });
  const exp = await finished(created.id);
  expect(exp.status).toBe('Completed');
  expect(exp.finished_at).not.toBeNull();

  const runs = await platform.client.listExportRuns(exp.id);
  expect(runs.map((run) => [run.start_time, run.end_time])).toEqual([
    ['2024-03-01T00:00:00.000Z', '2024-03-02T00:00:00.000Z'],
    ['2024-03-02T00:00:00.000Z', '2024-03-03T00:00:00.000Z'],
    ['2024-03-03T00:00:00.000Z', '2024-03-03T12:00:00.000Z'],
  ]);
  expect(runs.every((run) => run.status === 'Completed' && run.retry_number === 0)).toBe(true);

  const source = sourceRows(START, END);
  const { keys, rows } = await exportedRows(exp);
  expect(runs.reduce((sum, run) => sum + run.metadata.rows_written, 0)).toBe(source.length);
  expect(keys.length).toBeGreaterThan(3);
  const layout = new RegExp(
    `^team/traces/export_id=${exp.id}/tenant_id=${platform.tenantId}/session_id=${sessionId}/runs/year=2024/month=03/day=0[123]/part-\\d{5}\\.parquet$`,
  );
  for (const key of keys) expect(key).toMatch(layout);
  expect(await listKeys(s3.client, BUCKET, `team/traces/export_id=${exp.id}/`)).toEqual([...keys].sort());

  // files of up to 400 rows in row groups of up to 150, every column chunk compressed with Snappy
  const metadata = await Promise.all(keys.map(async (key) => readParquetMetadata(await getObjectBytes(s3.client, BUCKET, key))));
  expect(Math.max(...metadata.map((file) => Number(file.num_rows)))).toBe(400);
  expect(Math.max(...metadata.map((file) => file.row_groups.length))).toBe(3);
  for (const file of metadata) {
    for (const group of file.row_groups) {
      expect(Number(group.num_rows)).toBeLessThanOrEqual(150);
      expect(group.columns.map((column) => column.meta_data?.codec)).toEqual(new Array(EXPORTABLE_FIELD_NAMES.length).fill('SNAPPY'));
    }
  }

  expect(rows.map((row) => row.id)).toEqual(source.map((run) => run.id));
  expect(Object.keys(rows[0]).sort()).toEqual([...EXPORTABLE_FIELD_NAMES].sort());
  rows.forEach((row, i) => {
    const run = source[i];
    expect(row).toEqual({
      ...run,
      start_time: formatMicros(run.start_time),
      end_time: run.end_time === null ? null : formatMicros(run.end_time),
      first_token_time: run.first_token_time === null ? null : formatMicros(run.first_token_time),
      is_root: run.is_root === 1,
      total_tokens: run.total_tokens === null ? null : BigInt(run.total_tokens),
      prompt_tokens: run.prompt_tokens === null ? null : BigInt(run.prompt_tokens),
      completion_tokens: run.completion_tokens === null ? null : BigInt(run.completion_tokens),
    });
  });
});

test('include_bucket_in_prefix puts the bucket name before the prefix of every exported file, once', async () => {
  for (const [prefix, root] of [
    ['legacy', `${BUCKET}/legacy`],
    [`${BUCKET}/already`, `${BUCKET}/already`],
  ]) {
    const destination = await platform.client.createDestination({
      display_name: `bucket in prefix ${prefix}`,
      config: { bucket_name: BUCKET, prefix, endpoint_url: s3.server.endpoint, include_bucket_in_prefix: true },
      credentials: s3.credentials,
    });
    const created = await platform.client.createExport({
      bulk_export_destination_id: destination.id,
      session_id: sessionId,
      start_time: START,
      end_time: '2024-03-02T00:00:00Z',
      export_fields: ['id'],
    });
    expect((await finished(created.id)).status).toBe('Completed');
    const { keys, rows } = await exportedRows(created);
    expect(rows).toHaveLength(sourceRows(START, '2024-03-02T00:00:00Z').length);
    for (const key of keys) expect(key.startsWith(`${root}/export_id=${created.id}/tenant_id=`)).toBe(true);
    expect(await listKeys(s3.client, BUCKET, `${root}/export_id=${created.id}/`)).toEqual([...keys].sort());
  }
});

test('export_fields selects the columns and the filter selects the rows', async () => {
  const created = await platform.client.createExport({
    bulk_export_destination_id: destinationId,
    session_id: sessionId,
    start_time: START,
    end_time: END,
    export_fields: ['id', 'run_type', 'total_tokens', 'start_time'],
    filter: 'and(eq(run_type, "llm"), gt(total_tokens, 1000))',
  });
  expect((await finished(created.id)).status).toBe('Completed');
  const { rows } = await exportedRows(created);
  const expected = sourceRows(START, END).filter((run) => run.run_type === 'llm' && (run.total_tokens ?? 0) > 1000);
  expect(expected.length).toBeGreaterThan(10);
  expect(rows.map((row) => row.id)).toEqual(expected.map((run) => run.id));
  expect(Object.keys(rows[0])).toEqual(['id', 'run_type', 'total_tokens', 'start_time']);
});

test('a v2_beta export writes typed columns: timestamps, UUIDs, JSON and lists', async () => {
  const created = await platform.client.createExport({
    bulk_export_destination_id: destinationId,
    session_id: sessionId,
    start_time: '2024-03-01T08:00:00Z',
    end_time: '2024-03-01T08:00:01Z',
    format_version: 'v2_beta',
  });
  expect((await finished(created.id)).status).toBe('Completed');
  const runs = await platform.client.listExportRuns(created.id);
  const bytes = await getObjectBytes(s3.client, BUCKET, runs[0].metadata.exported_files[0]);
  const schema = new Map((await readParquetMetadata(bytes)).schema.map((element) => [element.name, element]));
  expect(schema.get('start_time')).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', unit: 'MICROS', isAdjustedToUTC: true } });
  expect(schema.get('id')).toMatchObject({ type: 'FIXED_LEN_BYTE_ARRAY', logical_type: { type: 'UUID' } });
  expect(schema.get('inputs')).toMatchObject({ type: 'BYTE_ARRAY', logical_type: { type: 'JSON' } });
  expect(schema.get('tags')).toMatchObject({ converted_type: 'LIST' });
  const [root] = (await readParquetRows(bytes)).filter((row) => row.id === '0190a3c4-0000-7000-8000-000000000001');
  expect(root.tags).toEqual(['vip']);
  expect(root.inputs).toEqual({ question: 'where is my order?' });
  expect(root.is_root).toBe(true);
});
