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
  /** Encoding and statistics settings. */
  readonly options: ColumnWriteOptions;
}

const identity = (value: unknown): unknown => value;
// Buffer.from allocates small strings from a shared pool: much cheaper than the writer's own TextEncoder per value
const utf8 = (value: unknown): unknown => (value === null ? null : Buffer.from(value as string, 'utf8'));
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
const DICTIONARY_FIELDS = new Set<ExportableFieldName>([
  'tenant_id',
  'session_id',
  'name',
  'run_type',
  'status',
  'is_root',
  'trace_tier',
  'tags',
  'error',
]);
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
  const options: ColumnWriteOptions = {
    ...(DICTIONARY_FIELDS.has(name) ? {} : { encoding: 'PLAIN' as const }),
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
      options: { statistics: false },
    };
  }
  const { element, convert } = primitive(name, type, version);
  // a dictionary keys its values: strings, not byte buffers (statistics compare bytes as well as strings, in the same
  // unsigned byte order)
  const needsStrings = element.converted_type === 'UTF8' && options.encoding === undefined;
  if (needsStrings) return { name, schema: [element], convert: type === 'timestamp' ? timestampString : identity, options };
  return { name, schema: [element], convert, options };
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
