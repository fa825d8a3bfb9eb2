/**
 * Segments of an export run. A run's day is encoded by one thread; when the day is large, that thread alone would
 * take the time of the whole day while the other encode threads wait (for example on the last day of an export).
 * So at its first attempt a large run is cut into segments of about equal rows, one per encode thread: each
 * segment is encoded by its own worker and written as its own part files (`part-SSSSS-FFFFF.parquet`: segment,
 * then file), and they are uploaded at the same time.
 *
 * Exactly once, as for a run in one piece: the cut is stored before any file is written and never changes (so is
 * the decision to keep a run in one piece, whose files are named differently: see run-executor.ts); each
 * segment commits its own checkpoint (the cursor after its last file, its rows, its files) after each of its files
 * is in the bucket; and an attempt resumes every segment from its own checkpoint, so a file written but not
 * committed is written again under the same name, replacing it.
 */
import type { BulkExportRunMetadata } from '../../../api/schemas/bulk-export';
import { formatCursor, type RunCursor } from '../store/runs';

/** One segment of a run, as stored (cursors as `formatCursor` text). */
export interface RunSegment {
  /** The segment holds the runs after this cursor; null: from the start of the run's range. */
  readonly after: string | null;
  /** ... up to and including this one; null: to the end of the run's range. */
  readonly until: string | null;
  /** The cursor after the segment's last committed file (or after its last row once done); null: none yet. */
  cursor: string | null;
  /** Rows in the segment's committed files. */
  rows: number;
  /** The segment's committed files, in order. */
  files: string[];
  /** Every row of the segment is exported. */
  done: boolean;
}

/** A run's segments and whether it was cut (a run in one piece keeps its progress in its metadata only). */
export interface RunSegments {
  readonly segments: RunSegment[];
  readonly cut: boolean;
}

/**
 * Where to cut a run of `rows` rows: the 0-based offsets, in cursor order, of the last row of every segment but
 * the last. A run is cut into as many segments as there are encode threads, as long as each holds at least
 * `minRows` rows; empty when it stays in one piece.
 */
export function segmentEnds(rows: number, threads: number, minRows: number): number[] {
  const count = Math.min(Math.floor(threads), Math.floor(rows / Math.max(1, minRows)));
  if (count < 2) return [];
  return Array.from({ length: count - 1 }, (_, i) => Math.round(((i + 1) * rows) / count) - 1);
}

/** The segments of a run cut at these cursors (the last row of each segment but the last), none exported yet. */
export function cutSegments(ends: readonly RunCursor[]): RunSegment[] {
  const bounds = ends.map(formatCursor);
  return [null, ...bounds].map((after, i) => ({
    after,
    until: i < bounds.length ? bounds[i] : null,
    cursor: null,
    rows: 0,
    files: [],
    done: false,
  }));
}

/** A run in one piece as a single segment, from its metadata. */
export const wholeRunSegment = (metadata: BulkExportRunMetadata): RunSegment => ({
  after: null,
  until: null,
  cursor: metadata.latest_cursor,
  rows: metadata.rows_written,
  files: [...metadata.exported_files],
  done: false,
});

/**
 * The run's progress as the API shows it: all rows and files of its segments (files in cursor order), and as the
 * latest cursor the point up to which every row is exported: the progress of the first segment not done.
 */
export function runMetadata(segments: readonly RunSegment[]): BulkExportRunMetadata {
  const open = segments.find((segment) => !segment.done);
  const latest = open ? (open.cursor ?? open.after) : (segments.findLast((segment) => segment.cursor !== null)?.cursor ?? null);
  return {
    latest_cursor: latest,
    rows_written: segments.reduce((sum, segment) => sum + segment.rows, 0),
    exported_files: segments.flatMap((segment) => segment.files),
  };
}
