/**
 * v1 timestamp columns are written as bytes digit by digit (no string per value): they must be exactly the ISO text
 * the rest of the platform shows for the same instant. Text columns are encoded a page at a time: each value's bytes
 * must be exactly its own UTF-8, whatever the mix of ASCII, other scripts, emoji and nulls, into a buffer reused page
 * after page (no column of a page overwrites another's bytes, also when the buffer grows halfway through a page).
 * Every column converts a page exactly as it converts each value.
 */
import { EXPORTABLE_FIELDS, type TraceFieldType } from '../../lib/api/schemas/trace-fields';
import { exportColumns } from '../../lib/local/tracing/parquet/columns';
import { PageBytes } from '../../lib/local/tracing/parquet/text-bytes';
import { formatMicros } from '../../lib/local/tracing/store/time';

test('v1 timestamp bytes are the ISO text of formatMicros, for any instant', () => {
  const [endTime] = exportColumns(['end_time'], 'v1');
  const instants = [
    0,
    1,
    -1,
    999_999,
    -86_400_000_000,
    -86_400_000_001,
    1_714_521_600_000_000,
    1_714_607_999_999_999,
    // the first and last microsecond of years 0000 and 9999, and the first of year 10000 (a longer date)
    -62_167_219_200_000_000,
    253_402_300_799_999_999,
    253_402_300_800_000_000,
  ];
  let state = 7;
  for (let i = 0; i < 20_000; i++) {
    state = (state * 48_271) % 2_147_483_647;
    instants.push(Math.floor((state / 2_147_483_647 - 0.3) * 4e15));
  }
  const mismatches = instants.filter((micros) => Buffer.from(endTime.convert(micros) as Uint8Array).toString('latin1') !== formatMicros(micros));
  expect(mismatches).toEqual([]);
  expect(endTime.convert(null)).toBeNull();
  // a page at a time: the same bytes, nulls kept
  const page = [null, ...instants.slice(0, 2_000), null];
  const converted = endTime.convertAll(
    page.map((micros) => [micros]),
    0,
    new PageBytes(),
  );
  expect(converted.map((bytes) => (bytes === null ? null : Buffer.from(bytes as Uint8Array).toString('latin1')))).toEqual(
    page.map((micros) => (micros === null ? null : formatMicros(micros))),
  );
});

test('a page of text is converted at once into each value\'s own UTF-8 bytes (ASCII or not, nulls kept)', () => {
  const [dottedOrder, extra, endTime] = exportColumns(['dotted_order', 'extra', 'end_time'], 'v1');
  const texts = ['plain ascii', '', 'é', 'naïve café', '日本語のテキスト', 'emoji 🚀 and \u{1F600}', 'a\u0000b', 'x'.repeat(5_000)];
  const pages: (string | null)[][] = [
    texts,
    ['only', 'ascii', 'values', ''],
    [null, null],
    [null, ...texts, null, 'tail'],
    // more than the buffer's first size: it grows halfway through the page
    ['before', 'é'.repeat(40_000), '🚀'.repeat(30_000), 'after'],
    texts.slice(3, 6),
  ];
  const pageBytes = new PageBytes();
  for (const page of pages) {
    pageBytes.reset();
    const rows = page.map((value, i) => ['other', value, value === null ? null : 1_714_521_600_000_000 + i]);
    // every column of the page first (timestamps between the two text columns), then their bytes: none was written
    // over by the next
    const converted = [dottedOrder, extra].map((column) => column.convertAll(rows, 1, pageBytes));
    const times = endTime.convertAll(rows, 2, pageBytes);
    converted.push(extra.convertAll(rows, 1, pageBytes));
    expect(times.map((bytes) => (bytes === null ? null : Buffer.from(bytes as Uint8Array).toString('latin1')))).toEqual(
      rows.map((row) => (row[2] === null ? null : formatMicros(row[2] as number))),
    );
    for (const [c, column] of [dottedOrder, extra, extra].entries()) {
      expect(converted[c]).toHaveLength(page.length);
      converted[c].forEach((bytes, i) => {
        if (page[i] === null) expect(bytes).toBeNull();
        else expect(Buffer.from(bytes as Uint8Array).equals(Buffer.from(page[i]!, 'utf8'))).toBe(true);
      });
      // and value by value, the same
      expect(page.map((value) => (value === null ? null : Buffer.from(column.convert(value) as Uint8Array).toString('utf8')))).toEqual(page);
    }
  }
});

test('every column converts a page exactly as it converts each of its values, in both formats', () => {
  const micros = 1_714_521_600_123_456;
  const stored: Record<TraceFieldType, unknown[]> = {
    boolean: [1, 0, null, 1],
    integer: [0, 42, null, 9_007_199_254_740_991],
    float: [0.25, 0, null, 1e-9],
    timestamp: [micros, micros + 3_599_999_999, null, micros + 86_399_999_999],
    uuid: ['0b1c7e2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d', null, '00000000-0000-4000-8000-000000000001', 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
    json: ['{"a":1}', null, '{}', '{"text":"naïve 🚀"}'],
    string: ['chain', 'llm', null, 'naïve 🚀'],
    string_list: ['["a","b"]', '[]', null, '["naïve"]'],
    uuid_list: ['["0b1c7e2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d"]', '[]', null, '[]'],
  };
  /** Bytes compare as their latin1 text; everything else as it is. */
  const comparable = (value: unknown): unknown => (value instanceof Uint8Array ? `bytes:${Buffer.from(value).toString('latin1')}` : value);
  for (const version of ['v1', 'v2_beta'] as const) {
    for (const field of EXPORTABLE_FIELDS) {
      const [column] = exportColumns([field.name], version);
      const values = stored[field.type];
      const page = column.convertAll(
        values.map((value) => ['other', value]),
        1,
        new PageBytes(),
      );
      expect({ field: field.name, version, values: page.map(comparable) }).toEqual({
        field: field.name,
        version,
        values: values.map((value) => comparable(column.convert(value))),
      });
    }
  }
});

test('the page buffer grows to the bytes a page needs, and one grown for very large values is not kept', () => {
  const pageBytes = new PageBytes();
  const first = pageBytes.capacity;
  pageBytes.encode('a'.repeat(first + 1));
  // ASCII text takes a byte per character: the buffer doubles, it does not make room for three per character
  expect(pageBytes.capacity).toBe(2 * first);
  pageBytes.reset();
  expect(pageBytes.capacity).toBe(2 * first);
  const large = 'b'.repeat(40 * 1024 * 1024);
  expect(pageBytes.encode(large).length).toBe(large.length);
  expect(pageBytes.capacity).toBe(large.length);
  pageBytes.reset();
  expect(pageBytes.capacity).toBe(first);
});
