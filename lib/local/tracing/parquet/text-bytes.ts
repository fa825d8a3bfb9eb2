/**
 * Values that go into the Parquet file as UTF-8 bytes, converted without a string or a buffer per value where it
 * can be helped: text columns of a page are encoded at once, and v1 timestamps are written digit by digit, into the
 * page's {@link PageBytes}. Each value is a view of its own bytes, which the writer copies into the page.
 */
import { formatMicros, MICROS_PER_DAY, timeOfDay } from '../store/time';

/** The rows of a page, as read: each an array of stored values. */
type PageRows = readonly (readonly unknown[])[];

/** The first buffer of a {@link PageBytes}; it grows to what a page needs. */
const PAGE_BYTES_INITIAL = 64 * 1024;
/**
 * A buffer that grew larger than this for a page of very large values is not kept for the next page (the next such
 * page makes its own).
 */
const PAGE_BYTES_KEPT_MAX = 32 * 1024 * 1024;

const textEncoder = new TextEncoder();

/**
 * Where the byte values of one page are written, reused page after page: the writer copies each value into its
 * own pages, so once a row group is written its values are garbage. A buffer per page and column instead (each
 * several MB with inputs and outputs) left the collector megabytes of dead memory outside its heap after every
 * page, which it collects only once enough of it has piled up, and which the C allocator kept in its arenas.
 */
export class PageBytes {
  private buffer = new Uint8Array(PAGE_BYTES_INITIAL);
  private used = 0;

  /** Bytes of the buffer now (what the reader holds between pages). */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Starts the next page: the values of the previous one are no longer read. */
  reset(): void {
    this.used = 0;
    if (this.buffer.length > PAGE_BYTES_KEPT_MAX) this.buffer = new Uint8Array(PAGE_BYTES_INITIAL);
  }

  /** Room for `bytes` bytes, valid until the next {@link reset}. */
  take(bytes: number): Uint8Array {
    if (this.used + bytes > this.buffer.length) this.grow(bytes);
    const out = this.buffer.subarray(this.used, this.used + bytes);
    this.used += bytes;
    return out;
  }

  /** The UTF-8 bytes of `text`, valid until the next {@link reset}. */
  encode(text: string): Uint8Array {
    for (;;) {
      const free = this.buffer.subarray(this.used);
      const { read, written } = textEncoder.encodeInto(text, free);
      if (read === text.length) {
        this.used += written;
        return free.subarray(0, written);
      }
      this.grow(Buffer.byteLength(text, 'utf8'));
    }
  }

  /**
   * A larger buffer for the rest of the page and the pages after it; the values already in the old one keep it
   * alive until the page is written.
   */
  private grow(bytes: number): void {
    this.buffer = new Uint8Array(Math.max(2 * this.buffer.length, bytes));
    this.used = 0;
  }
}

/**
 * The UTF-8 bytes of a column of strings: all of them encoded at once, and a view per value. Encoding value by
 * value cost two calls into C++ per value (its byte length, then the write); this makes one for the page. ASCII text
 * (ids, most names) needs no per-value byte length at all.
 */
export function utf8Column(rows: PageRows, position: number, pageBytes: PageBytes): unknown[] {
  const count = rows.length;
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    if (value !== null) strings.push(value as string);
  }
  const values: unknown[] = new Array<unknown>(count).fill(null);
  if (strings.length === 0) return values;
  const joined = strings.join('');
  const bytes = pageBytes.encode(joined);
  const ascii = bytes.length === joined.length;
  // plain views: a Buffer's subarray goes through its subclass constructor, which cost about twice as much per value
  const buffer = bytes.buffer;
  let offset = bytes.byteOffset;
  for (let i = 0; i < count; i++) {
    const value = rows[i][position];
    if (value === null) continue;
    const length = ascii ? (value as string).length : Buffer.byteLength(value as string, 'utf8');
    values[i] = new Uint8Array(buffer, offset, length);
    offset += length;
  }
  return values;
}

/** Bytes of a timestamp of a year 0000–9999: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
const TIMESTAMP_BYTES = 27;

let bytesDay = Number.NaN;
let bytesDayPrefix: Uint8Array | undefined;
const parts = new Int32Array(4);
/**
 * The ASCII digits of 0–59, tens and ones. Dividing by 10 instead made V8 assume whole results while the first runs
 * of a day all fell in hour 0, and discard the optimised code in every encode thread once the hours went on.
 */
const TENS = Uint8Array.from({ length: 60 }, (_, n) => 48 + Math.floor(n / 10));
const ONES = Uint8Array.from({ length: 60 }, (_, n) => 48 + (n % 10));

/**
 * Writes the bytes of `formatMicros(micros)` (ASCII) at `offset` of `out`, digit by digit: no string is built. The
 * date part is cached per day, as `formatMicros` does. Returns false, writing nothing, for a year outside
 * 0000–9999 (a longer text), which takes the string path.
 */
function writeTimestamp(micros: number, out: Uint8Array, offset: number): boolean {
  const day = Math.floor(micros / MICROS_PER_DAY);
  if (day !== bytesDay) {
    const iso = new Date(day * 86_400_000).toISOString();
    bytesDay = day;
    bytesDayPrefix = iso.length === 24 ? Buffer.from(iso.slice(0, 11), 'latin1') : undefined;
  }
  const prefix = bytesDayPrefix;
  if (prefix === undefined) return false;
  for (let i = 0; i < 11; i++) out[offset + i] = prefix[i];
  timeOfDay(micros, day, parts);
  const hours = parts[0]!;
  const minutes = parts[1]!;
  const seconds = parts[2]!;
  let fraction = parts[3]!;
  out[offset + 11] = TENS[hours]!;
  out[offset + 12] = ONES[hours]!;
  out[offset + 13] = 58; // ':'
  out[offset + 14] = TENS[minutes]!;
  out[offset + 15] = ONES[minutes]!;
  out[offset + 16] = 58;
  out[offset + 17] = TENS[seconds]!;
  out[offset + 18] = ONES[seconds]!;
  out[offset + 19] = 46; // '.'
  for (let i = 25; i >= 20; i--) {
    out[offset + i] = 48 + (fraction % 10);
    fraction = Math.floor(fraction / 10);
  }
  out[offset + 26] = 90; // 'Z'
  return true;
}

/**
 * The bytes of `formatMicros(micros)`, in an array of their own (a plain one: small, so V8 keeps it on its heap, and of
 * the same kind as the column views the writer gets elsewhere).
 */
export function timestampBytes(micros: number): Uint8Array {
  const out = new Uint8Array(TIMESTAMP_BYTES);
  return writeTimestamp(micros, out, 0) ? out : Buffer.from(formatMicros(micros), 'latin1');
}

/** The bytes of a column of timestamps (epoch microseconds or null): one buffer for the page, a view per value. */
export function timestampColumn(rows: PageRows, position: number, pageBytes: PageBytes): unknown[] {
  const count = rows.length;
  const values: unknown[] = new Array<unknown>(count).fill(null);
  // a plain Uint8Array like timestampBytes's, so writeTimestamp sees one kind of array (a Buffer is a subclass, whose
  // other shape made V8 discard writeTimestamp's optimised code when the second kind came along)
  const out = pageBytes.take(count * TIMESTAMP_BYTES);
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const micros = rows[i][position];
    if (micros === null) continue;
    if (writeTimestamp(micros as number, out, offset)) {
      values[i] = new Uint8Array(out.buffer, out.byteOffset + offset, TIMESTAMP_BYTES);
      offset += TIMESTAMP_BYTES;
    } else {
      values[i] = Buffer.from(formatMicros(micros as number), 'latin1');
    }
  }
  return values;
}
