/**
 * Reads one export run's rows page by page in cursor order and turns each page into a Parquet row group: the filter
 * picks rows, each column converts its values. Columns that are the same on every row of an export (its project
 * and workspace) are not read from SQLite at all.
 */
import { compileFilter, parseFilter, referencedFields, type RunPredicate } from '../../../api/filter';
import { EXPORTABLE_FIELD_NAMES, getExportableField, type ExportableFieldName } from '../../../api/schemas/trace-fields';
import type { ExportColumn } from '../parquet/columns';
import type { ParquetPartEncoder } from '../parquet/part-encoder';
import { PageBytes } from '../parquet/text-bytes';
import { cursorPositions, type RunCursor, type RunPageQuery } from '../store/runs';
import { formatMicros } from '../store/time';

/** Reads one page of runs (the trace store's `readPage`, or a worker's own connection). */
export type ReadPage = (query: RunPageQuery) => unknown[][];

/** What to read. */
export interface PageReaderOptions {
  readonly readPage: ReadPage;
  readonly tenantId: string;
  readonly sessionId: string;
  /** The run's range, epoch microseconds, [from, to). */
  readonly fromMicros: number;
  readonly toMicros: number;
  /** The last run to read (inclusive: the end of a segment); none: up to the end of the range. */
  readonly until: RunCursor | null;
  /** The exported columns, in file order. */
  readonly columns: readonly ExportColumn[];
  /** The export's filter expression, if any. */
  readonly filter: string | null;
}

/** One step: where the cursor now stands, how many rows went into the file, and a full chunk it may have made. */
export interface PageStep {
  readonly cursor: RunCursor;
  readonly rows: number;
  readonly chunk: Uint8Array | undefined;
}

const TIMESTAMP_FIELDS = new Set(EXPORTABLE_FIELD_NAMES.filter((name) => getExportableField(name)?.type === 'timestamp'));

/** Reads pages of one export run. */
export class RunPageReader {
  private readonly constants: ReadonlyMap<string, string>;
  private readonly columnsRead: ExportableFieldName[];
  /** For each exported column: its position in a read row, or its constant value. */
  private readonly sources: ({ position: number } | { constant: string })[];
  private readonly predicate: RunPredicate | undefined;
  private readonly cursorAt: { readonly startTime: number; readonly id: number };
  /** Where the byte values of a page are converted to, reused page after page. */
  private readonly pageBytes = new PageBytes();

  constructor(private readonly options: PageReaderOptions) {
    this.constants = new Map([
      ['tenant_id', options.tenantId],
      ['session_id', options.sessionId],
    ]);
    const expr = options.filter ? parseFilter(options.filter) : undefined;
    this.predicate = expr && compileFilter(expr);
    const needed = [...options.columns.map((column) => column.name), ...(expr ? referencedFields(expr) : [])];
    this.columnsRead = [...new Set(needed)].filter(
      (name): name is ExportableFieldName => EXPORTABLE_FIELD_NAMES.includes(name as ExportableFieldName) && !this.constants.has(name),
    );
    this.cursorAt = cursorPositions(this.columnsRead);
    this.sources = options.columns.map((column) =>
      this.constants.has(column.name) ? { constant: this.constants.get(column.name)! } : { position: this.columnsRead.indexOf(column.name) },
    );
  }

  /**
   * Reads up to `limit` rows after `cursor` and encodes the matching ones as one row group of `encoder`.
   * Synchronous, so the page is garbage by the time the caller sends a chunk. Undefined when no rows are left.
   */
  readAndEncode(cursor: RunCursor | null, limit: number, encoder: ParquetPartEncoder): PageStep | undefined {
    const { readPage, sessionId, fromMicros, toMicros, until, columns } = this.options;
    const page = readPage({ sessionId, fromMicros, toMicros, after: cursor, until, limit, columns: this.columnsRead });
    if (page.length === 0) return undefined;
    const last = page[page.length - 1];
    const next = { startTime: last[this.cursorAt.startTime] as number, id: last[this.cursorAt.id] as string };
    const predicate = this.predicate;
    const rows = predicate ? page.filter((row) => predicate(this.filterRecord(row))) : page;
    if (rows.length === 0) return { cursor: next, rows: 0, chunk: undefined };
    // the previous page's values were copied into its row group
    this.pageBytes.reset();
    const values = columns.map((column, i) => {
      const source = this.sources[i];
      return 'constant' in source ? new Array<unknown>(rows.length).fill(column.convert(source.constant)) : column.convertAll(rows, source.position, this.pageBytes);
    });
    return { cursor: next, rows: rows.length, chunk: encoder.writeRowGroup(values) };
  }

  /** A filter's view of a row: field names, timestamps as ISO text (exact to the microsecond). */
  private filterRecord(row: readonly unknown[]): Record<string, unknown> {
    const record: Record<string, unknown> = Object.fromEntries(this.constants);
    this.columnsRead.forEach((name, i) => {
      const value = row[i];
      record[name] = TIMESTAMP_FIELDS.has(name) && typeof value === 'number' ? formatMicros(value) : value;
    });
    return record;
  }
}
