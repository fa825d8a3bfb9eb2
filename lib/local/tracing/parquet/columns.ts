/**
 * The Parquet column of each exportable field, per `format_version`:
 * - `v1` (the default): every value a reader needs no extension for — ids, timestamps (ISO 8601 text, UTC,
 *   microseconds), JSON documents and lists (JSON text) are strings; booleans, integers (INT64) and floats (DOUBLE)
 *   are typed.
 * - `v2_beta` (enhanced types): ids are UUID, timestamps are INT64 TIMESTAMP(MICROS, UTC), JSON documents carry the
 *   JSON logical type, lists are Parquet LISTs of strings.
 * Each column converts a value as SQLite stores it into what the writer takes.
 */
import { EXPORTABLE_FIELDS, type ExportableFieldName, type TraceFieldType } from '../../../api/schemas/trace-fields';
import type { FormatVersion } from '../../../api/schemas/bulk-export';
import type * as HyparquetWriter from 'hyparquet-writer';
import { formatMicros, MICROS_PER_DAY, timeOfDay } from '../store/time';

type ParquetWriterInit = ConstructorParameters<typeof HyparquetWriter.ParquetWriter>[0];
/** A Parquet schema element, as hyparquet-writer takes it. */
export type SchemaElement = ParquetWriterInit['schema'][number];
type ColumnSource = Parameters<InstanceType<typeof HyparquetWriter.ParquetWriter>['write']>[0]['columnData'][number];
/** Per-column writer settings. */
export type ColumnWriteOptions = Pick<ColumnSource, 'encoding' | 'statistics'>;

/** How one field becomes one Parquet column. */
export interface ExportColumn {
  /** The field, also the column name. */
  readonly name: ExportableFieldName;
  /** Its schema elements: one for a primitive column, three for a LIST. */
  readonly schema: readonly SchemaElement[];
  /** Stored value (SQLite) to writer value. */
  readonly convert: (stored: unknown) => unknown;
  /** The writer values of a column of a page at once (`convert` of each row's value at `position`). */
  readonly convertAll: ColumnConverter;
  /** Encoding and statistics settings. */
  readonly options: ColumnWriteOptions;
}

/** Converts the value at `position` of each row of a page. */
export type ColumnConverter = (rows: readonly (readonly unknown[])[], position: number) => unknown[];

const identity = (value: unknown): unknown => value;
const utf8 = (value: unknown): unknown => (value === null ? null : Buffer.from(value as string, 'utf8'));

/** A column converter that converts value by value. */
function valueByValue(convert: (stored: unknown) => unknown): ColumnConverter {
  return (rows, position) => {
    const count = rows.length;
    const values: unknown[] = new Array<unknown>(count);
    for (let i = 0; i < count; i++) values[i] = convert(rows[i][position]);
    return values;
  };
}

/**
 * The UTF-8 bytes of a column of strings: all of them encoded at once, and a view per value. Encoding value by
 * value cost two calls into C++ per value (its byte length, then the write); this makes one for the page. ASCII text
 * (ids, most names) needs no per-value byte length at all.
 */
function utf8Column(rows: readonly (readonly unknown[])[], position: number): unknown[] {
  const count = rows.length;
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    if (value !== null) strings.push(value as string);
  }
  const values: unknown[] = new Array<unknown>(count).fill(null);
  if (strings.length === 0) return values;
  const joined = strings.join('');
  const bytes = Buffer.from(joined, 'utf8');
  const ascii = bytes.length === joined.length;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    if (value === null) continue;
    const end = offset + (ascii ? (value as string).length : Buffer.byteLength(value as string, 'utf8'));
    values[i] = bytes.subarray(offset, end);
    offset = end;
  }
  return values;
}
const timestampString = (value: unknown): unknown => (value === null ? null : formatMicros(value as number));
const timestampText = (value: unknown): unknown => (value === null ? null : timestampBytes(value as number));
const bigint = (value: unknown): unknown => (value === null ? null : BigInt(value as number));
const bool = (value: unknown): unknown => (value === null ? null : value === 1);
const parsed = (value: unknown): unknown => (value === null ? null : JSON.parse(value as string));

let bytesDay = Number.NaN;
let bytesDayPrefix: Uint8Array | undefined;
const parts = new Int32Array(4);

/**
 * The bytes of `formatMicros(micros)` (ASCII), written digit by digit: no string is built for a value written as
 * bytes. The date part is cached per day, as `formatMicros` does; a year outside 0000–9999 takes the string path.
 */
function timestampBytes(micros: number): Uint8Array {
  const day = Math.floor(micros / MICROS_PER_DAY);
  if (day !== bytesDay) {
    const iso = new Date(day * 86_400_000).toISOString();
    bytesDay = day;
    bytesDayPrefix = iso.length === 24 ? Buffer.from(iso.slice(0, 11), 'latin1') : undefined;
  }
  const prefix = bytesDayPrefix;
  if (prefix === undefined) return Buffer.from(formatMicros(micros), 'latin1');
  const out = Buffer.allocUnsafe(27);
  for (let i = 0; i < 11; i++) out[i] = prefix[i];
  const [hours, minutes, seconds] = timeOfDay(micros, day, parts);
  let fraction = parts[3]!;
  out[11] = 48 + Math.floor(hours / 10);
  out[12] = 48 + (hours % 10);
  out[13] = 58; // ':'
  out[14] = 48 + Math.floor(minutes / 10);
  out[15] = 48 + (minutes % 10);
  out[16] = 58;
  out[17] = 48 + Math.floor(seconds / 10);
  out[18] = 48 + (seconds % 10);
  out[19] = 46; // '.'
  for (let i = 25; i >= 20; i--) {
    out[i] = 48 + (fraction % 10);
    fraction = Math.floor(fraction / 10);
  }
  out[26] = 90; // 'Z'
  return out;
}

const OPTIONAL = 'OPTIONAL' as const;

/** Columns whose values repeat a lot; every other column skips the dictionary attempt (it cannot pay off). */
const DICTIONARY_FIELDS = new Set<ExportableFieldName>(['name', 'is_root', 'trace_tier', 'tags', 'error']);
/**
 * Columns that always take a dictionary: the same on every row of an export, or one of a few values and never null.
 * The writer then skips sampling them to decide (its decision would be the same).
 */
const ALWAYS_DICTIONARY_FIELDS = new Set<ExportableFieldName>(['tenant_id', 'session_id', 'run_type', 'status']);
/** Columns whose min/max statistics help readers prune (numbers, and the start time the files are ordered by). */
const STATISTICS_TYPES = new Set<TraceFieldType>(['integer', 'float', 'boolean']);

function primitive(name: string, type: TraceFieldType, version: FormatVersion): { element: SchemaElement; convert: (v: unknown) => unknown } {
  const typed = version === 'v2_beta';
  switch (type) {
    case 'boolean':
      return { element: { name, type: 'BOOLEAN', repetition_type: OPTIONAL }, convert: bool };
    case 'integer':
      return { element: { name, type: 'INT64', repetition_type: OPTIONAL }, convert: bigint };
    case 'float':
      return { element: { name, type: 'DOUBLE', repetition_type: OPTIONAL }, convert: identity };
    case 'timestamp':
      return typed
        ? {
            element: {
              name,
              type: 'INT64',
              repetition_type: OPTIONAL,
              logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
            },
            convert: bigint,
          }
        : { element: { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: OPTIONAL }, convert: timestampText };
    case 'uuid':
      return typed
        ? {
            element: { name, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' }, repetition_type: OPTIONAL },
            convert: identity,
          }
        : { element: { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: OPTIONAL }, convert: utf8 };
    case 'json':
      return typed
        ? {
            element: { name, type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' }, repetition_type: OPTIONAL },
            convert: parsed,
          }
        : { element: { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: OPTIONAL }, convert: utf8 };
    default:
      return { element: { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: OPTIONAL }, convert: utf8 };
  }
}

function column(name: ExportableFieldName, type: TraceFieldType, version: FormatVersion): ExportColumn {
  const encoding = ALWAYS_DICTIONARY_FIELDS.has(name) ? 'RLE_DICTIONARY' : DICTIONARY_FIELDS.has(name) ? undefined : 'PLAIN';
  const options: ColumnWriteOptions = {
    ...(encoding ? { encoding } : {}),
    statistics: STATISTICS_TYPES.has(type) || name === 'start_time',
  };
  const isList = type === 'string_list' || type === 'uuid_list';
  if (isList && version === 'v2_beta') {
    return {
      name,
      schema: [
        { name, repetition_type: OPTIONAL, converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: OPTIONAL },
      ],
      convert: parsed,
      convertAll: valueByValue(parsed),
      options: { statistics: false },
    };
  }
  const { element, convert } = primitive(name, type, version);
  // a dictionary keys its values: strings, not byte buffers (statistics compare bytes as well as strings, in the same
  // unsigned byte order)
  if (element.converted_type === 'UTF8' && options.encoding !== 'PLAIN') {
    const asString = type === 'timestamp' ? timestampString : identity;
    return { name, schema: [element], convert: asString, convertAll: valueByValue(asString), options };
  }
  return { name, schema: [element], convert, convertAll: convert === utf8 ? utf8Column : valueByValue(convert), options };
}

const TYPE_OF = new Map<string, TraceFieldType>(EXPORTABLE_FIELDS.map((field) => [field.name, field.type]));

/** The columns of an export, in the order of `fields`. */
export function exportColumns(fields: readonly ExportableFieldName[], version: FormatVersion): ExportColumn[] {
  return fields.map((name) => column(name, TYPE_OF.get(name)!, version));
}

/** The file schema of these columns (root first). */
export function fileSchema(columns: readonly ExportColumn[]): SchemaElement[] {
  return [{ name: 'root', num_children: columns.length }, ...columns.flatMap((c) => c.schema)];
}
