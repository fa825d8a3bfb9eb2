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
import { formatMicros } from '../store/time';
import { timestampBytes, timestampColumn, utf8Column, type PageBytes } from './text-bytes';

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

/**
 * Converts the value at `position` of each row of a page. Byte values may be written into `pageBytes`, so they are
 * valid until its next reset (once the page's row group is written).
 */
export type ColumnConverter = (rows: readonly (readonly unknown[])[], position: number, pageBytes: PageBytes) => unknown[];

const identity = (value: unknown): unknown => value;
const utf8 = (value: unknown): unknown => (value === null ? null : Buffer.from(value as string, 'utf8'));

/** A column converter that converts value by value (the kinds of column no export of the default format has). */
function valueByValue(convert: (stored: unknown) => unknown): ColumnConverter {
  return (rows, position) => {
    const count = rows.length;
    const values: unknown[] = new Array<unknown>(count);
    for (let i = 0; i < count; i++) values[i] = convert(rows[i][position]);
    return values;
  };
}

const timestampString = (value: unknown): unknown => (value === null ? null : formatMicros(value as number));
const timestampText = (value: unknown): unknown => (value === null ? null : timestampBytes(value as number));
const bigint = (value: unknown): unknown => (value === null ? null : BigInt(value as number));
const bool = (value: unknown): unknown => (value === null ? null : value === 1);
const parsed = (value: unknown): unknown => (value === null ? null : JSON.parse(value as string));

// Each converter of the default format's columns has a loop of its own, with no call of a converter in it. V8 keeps
// type feedback per function, and the closures of valueByValue share theirs: one loop calling each column's
// converter in turn was optimised for the converters it had met so far, and its code discarded in every encode
// thread when the next one came along.

/** Numbers (DOUBLE) and strings that go to a dictionary, as stored. */
function storedColumn(rows: readonly (readonly unknown[])[], position: number): unknown[] {
  const count = rows.length;
  const values: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) values[i] = rows[i][position];
  return values;
}

/** INT64 values. */
function bigintColumn(rows: readonly (readonly unknown[])[], position: number): unknown[] {
  const count = rows.length;
  const values: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    values[i] = value === null ? null : BigInt(value as number);
  }
  return values;
}

/** BOOLEAN values (SQLite stores 0 and 1). */
function boolColumn(rows: readonly (readonly unknown[])[], position: number): unknown[] {
  const count = rows.length;
  const values: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    values[i] = value === null ? null : value === 1;
  }
  return values;
}

/** v1 timestamps with statistics, each in an array of its own (see {@link columnConverter}). */
function timestampTextColumn(rows: readonly (readonly unknown[])[], position: number): unknown[] {
  const count = rows.length;
  const values: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    values[i] = value === null ? null : timestampBytes(value as number);
  }
  return values;
}

/** The loop of each value converter that has one. */
const COLUMN_LOOPS = new Map<(stored: unknown) => unknown, ColumnConverter>([
  [identity, storedColumn],
  [bigint, bigintColumn],
  [bool, boolColumn],
  [timestampText, timestampTextColumn],
]);

const OPTIONAL = 'OPTIONAL' as const;

/**
 * Columns whose values often repeat: the writer tries a dictionary and keeps it when it pays off. Every other column
 * but the ones below is written plain (a dictionary cannot pay off there, and trying costs).
 */
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
    return { name, schema: [element], convert: asString, convertAll: COLUMN_LOOPS.get(asString) ?? valueByValue(asString), options };
  }
  return { name, schema: [element], convert, convertAll: columnConverter(convert, options), options };
}

/**
 * Text and timestamps as bytes are converted a page at a time, into the page's buffer; a column whose min and max the
 * writer keeps for the file's footer (the start time) value by value, each in an array of its own: the page's buffer
 * is written over by the next page, long before the footer.
 */
function columnConverter(convert: (stored: unknown) => unknown, options: ColumnWriteOptions): ColumnConverter {
  if (convert === utf8 && !options.statistics) return utf8Column;
  if (convert === timestampText && !options.statistics) return timestampColumn;
  return COLUMN_LOOPS.get(convert) ?? valueByValue(convert);
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
