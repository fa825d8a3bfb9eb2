/**
 * Run timestamps are kept as integer microseconds since the epoch (two runs a few microseconds apart must keep their
 * order) and shown as ISO 8601 with six fractional digits.
 */
import { parseIsoInstant } from '../../../api/schemas/trace-fields';

export const MICROS_PER_MS = 1000;
export const MICROS_PER_DAY = 86_400_000_000;

/** Microseconds of an ISO 8601 string, or of a number of epoch milliseconds; NaN when neither. */
export function toMicros(value: string | number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * MICROS_PER_MS) : Number.NaN;
  return parseIsoInstant(value);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
let cachedDay = Number.NaN;
let cachedDayPrefix = '';

/**
 * `2024-05-01T10:00:00.123456Z` for the given epoch microseconds. Exports format millions of these, mostly of one
 * day, so the date part is cached and the time of day is computed by arithmetic.
 */
export function formatMicros(micros: number): string {
  const day = Math.floor(micros / MICROS_PER_DAY);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayPrefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  const [hours, minutes, seconds, micro] = timeOfDay(micros, day, TIME_PARTS);
  return `${cachedDayPrefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${String(micro).padStart(6, '0')}Z`;
}

const TIME_PARTS = new Int32Array(4);

/**
 * Splits the time of day of `micros` (which falls on UTC day number `day`) into hours, minutes, seconds and
 * microseconds, written into `parts` (reused by hot loops, so nothing is allocated) and returned.
 */
export function timeOfDay(micros: number, day: number, parts: Int32Array): Int32Array {
  let rest = micros - day * MICROS_PER_DAY;
  const hours = Math.floor(rest / 3_600_000_000);
  rest -= hours * 3_600_000_000;
  const minutes = Math.floor(rest / 60_000_000);
  rest -= minutes * 60_000_000;
  const seconds = Math.floor(rest / 1_000_000);
  parts[0] = hours;
  parts[1] = minutes;
  parts[2] = seconds;
  parts[3] = rest - seconds * 1_000_000;
  return parts;
}

/** The compact form used in dotted orders: `20240501T100000123456Z`. */
export function formatDottedTimestamp(micros: number): string {
  return formatMicros(micros).replace(/[-:.]/g, '');
}

/** Start of the UTC day holding `micros`. */
export const utcDayStart = (micros: number): number => Math.floor(micros / MICROS_PER_DAY) * MICROS_PER_DAY;

/** ISO 8601 with milliseconds, or with microseconds when the instant has them. */
export const formatInstant = (micros: number): string =>
  micros % MICROS_PER_MS === 0 ? new Date(micros / MICROS_PER_MS).toISOString() : formatMicros(micros);
