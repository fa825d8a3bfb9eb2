/**
 * How an export is cut into export runs (one per UTC day of its range) and how a scheduled export's children
 * follow each other.
 */
import { MICROS_PER_DAY, formatInstant, utcDayStart } from '../store/time';

/** A half-open range [start, end) of epoch microseconds. */
export interface MicrosRange {
  readonly start: number;
  readonly end: number;
}

/** The UTC-day pieces of [start, end), in order. */
export function splitByUtcDay(range: MicrosRange): MicrosRange[] {
  const pieces: MicrosRange[] = [];
  for (let day = utcDayStart(range.start); day < range.end; day += MICROS_PER_DAY) {
    pieces.push({ start: Math.max(range.start, day), end: Math.min(range.end, day + MICROS_PER_DAY) });
  }
  return pieces;
}

/** The export runs' ranges as the API shows them. */
export const runRangesOf = (range: MicrosRange): { start: string; end: string }[] =>
  splitByUtcDay(range).map((piece) => ({ start: formatInstant(piece.start), end: formatInstant(piece.end) }));

const MICROS_PER_HOUR = 3_600_000_000;

/** The range of the k-th child (0-based) of a scheduled export: [start + k·interval, start + (k+1)·interval). */
export function childRange(startMicros: number, intervalHours: number, index: number): MicrosRange {
  const interval = intervalHours * MICROS_PER_HOUR;
  return { start: startMicros + index * interval, end: startMicros + (index + 1) * interval };
}
