/**
 * The build bundles hyparquet-writer into one CommonJS file, which the encoders load instead of the package's ES
 * modules (lib/local/tracing/parquet/esm.ts). The bundle must be the same writer: the same bytes for the same
 * columns, in both formats, compressed as the exports compress them, and strict mode code as the ES modules are. A
 * bundle of another version than the installed one is passed over.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORTABLE_FIELDS, type TraceFieldType } from '../../lib/api/schemas/trace-fields';
import { exportColumns, fileSchema } from '../../lib/local/tracing/parquet/columns';
import { compressSync } from 'snappy';
import { loadHyparquetWriter, packageManifest, WRITER_PACKAGE } from '../../lib/local/tracing/parquet/esm';
import { PageBytes } from '../../lib/local/tracing/parquet/text-bytes';
import { bundleParquetWriter } from '../../scripts/bundle-parquet-writer';

let dir: string;
let bundleFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'parquet-bundle-'));
  bundleFile = join(dir, 'hyparquet-writer.cjs');
  bundleParquetWriter(bundleFile);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Stored values of each field type, nulls and non-ASCII text among them. */
const STORED: Record<TraceFieldType, readonly unknown[]> = {
  boolean: [1, 0, null],
  integer: [0, 42, null, 9_007_199_254_740_991],
  float: [0.25, 0, null, 1e-9, -3.5],
  timestamp: [1_714_521_600_123_456, null, 1_714_607_999_999_999],
  uuid: ['0b1c7e2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d', null, '00000000-0000-4000-8000-000000000001'],
  json: ['{"a":1}', null, '{}', '{"text":"naïve 🚀"}'],
  string: ['chain', 'llm', null, 'naïve 🚀', 'tool'],
  string_list: ['["a","b"]', '[]', null, '["naïve"]'],
  uuid_list: ['["0b1c7e2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d"]', '[]', null],
};

/** A file of every exportable field, two row groups of 300 rows, written with `writer`. */
function writeFile(writer: ReturnType<typeof loadHyparquetWriter>, version: 'v1' | 'v2_beta'): Uint8Array {
  const columns = exportColumns(
    EXPORTABLE_FIELDS.map((field) => field.name),
    version,
  );
  const output = new writer.ByteWriter();
  // the exports' codec and compressor (parquet/part-encoder.ts)
  const parquet = new writer.ParquetWriter({
    writer: output,
    schema: fileSchema(columns),
    codec: 'SNAPPY',
    compressors: { SNAPPY: (input: Uint8Array) => compressSync(input, { copyOutputData: true }) },
    createdBy: 'bundle test',
  });
  for (let group = 0; group < 2; group++) {
    const rows = Array.from({ length: 300 }, (_, i) => EXPORTABLE_FIELDS.map((field) => STORED[field.type][(i + group) % STORED[field.type].length]));
    const pageBytes = new PageBytes();
    const columnData = columns.map((column, c) => ({ name: column.name, data: column.convertAll(rows, c, pageBytes) as never, ...column.options }));
    void parquet.write({ columnData, rowGroupSize: rows.length });
  }
  void parquet.finish();
  return output.getBytes().slice();
}

test('the bundle writes the same bytes as the package, in both formats', () => {
  const bundled = loadHyparquetWriter(bundleFile);
  const packaged = loadHyparquetWriter(join(dir, 'no-such-bundle.cjs'));
  expect(bundled).not.toBe(packaged);
  for (const version of ['v1', 'v2_beta'] as const) {
    const expected = writeFile(packaged, version);
    expect(expected.length).toBeGreaterThan(1000);
    expect(Buffer.from(writeFile(bundled, version)).equals(Buffer.from(expected))).toBe(true);
  }
});

test('the bundle is strict mode code and names the bundled packages, their versions and licenses', () => {
  const text = readFileSync(bundleFile, 'utf8');
  const [banner, directive] = text.split('\n', 2);
  expect(directive).toBe('"use strict";');
  const installed = packageManifest(WRITER_PACKAGE, __dirname).version;
  expect(banner).toMatch(new RegExp(`^/\\*! hyparquet-writer ${installed.replace(/\./g, '\\.')} \\(MIT License\\), hyparquet \\d+\\.\\d+\\.\\d+ \\(MIT License\\)`));
});

test('a bundle of another version than the installed one is passed over for the package', () => {
  const installed = packageManifest(WRITER_PACKAGE, __dirname).version;
  const stale = join(dir, 'stale-hyparquet-writer.cjs');
  writeFileSync(stale, readFileSync(bundleFile, 'utf8').replace(`hyparquet-writer ${installed} `, 'hyparquet-writer 0.0.1 '));
  const packaged = loadHyparquetWriter(join(dir, 'no-such-bundle.cjs'));
  expect(loadHyparquetWriter(stale)).toBe(packaged);
  expect(loadHyparquetWriter(bundleFile)).not.toBe(packaged);
});
