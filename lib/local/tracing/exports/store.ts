/**
 * Exports and export runs as stored. The export engine is the only writer of statuses; routes read and create.
 */
import { randomUUID } from 'node:crypto';
import {
  isFinalBulkExportStatus,
  type BulkExportRecord,
  type BulkExportRunRecord,
  type BulkExportRunMetadata,
  type BulkExportStatus,
  type FormatVersion,
} from '../../../api/schemas/bulk-export';
import type { Clock } from '../../clock';
import { prepared, type PlatformDatabase } from '../../db';
import type { RunSegment } from './segments';

/** A stored export. */
export interface ExportRow {
  id: string;
  seq: number;
  tenant_id: string;
  bulk_export_destination_id: string;
  session_id: string;
  start_time: string;
  end_time: string | null;
  filter: string | null;
  export_fields: string | null;
  interval_hours: number | null;
  format_version: FormatVersion;
  status: BulkExportStatus;
  source_bulk_export_id: string | null;
  spawned_count: number;
  started_at_ms: number | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A stored export run. */
export interface RunRow {
  id: string;
  bulk_export_id: string;
  seq: number;
  status: BulkExportStatus;
  retry_number: number;
  errors: string;
  start_time: string;
  end_time: string;
  metadata: string;
  /**
   * How the run is encoded, decided at its first attempt: cut into segments, their bounds and progress (JSON of
   * `RunSegment[]`); in one piece, `[]` (its progress is `metadata`); null before the first attempt.
   */
  segments: string | null;
  next_attempt_at_ms: number | null;
  attempt_started_at_ms: number | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A file a run started to write and did not commit. */
export interface UncommittedFile {
  readonly runId: string;
  readonly exportId: string;
  readonly key: string;
  readonly destinationId: string;
}

/** What a new export is made of (validated). */
export interface NewExport {
  readonly tenantId: string;
  readonly destinationId: string;
  readonly sessionId: string;
  readonly startTime: string;
  readonly endTime: string | null;
  readonly filter: string | null;
  readonly exportFields: readonly string[] | null;
  readonly intervalHours: number | null;
  readonly formatVersion: FormatVersion;
  readonly sourceExportId: string | null;
  /** The export runs' ranges (ISO strings), in order; empty for a scheduled parent. */
  readonly runRanges: readonly { start: string; end: string }[];
}

export const EMPTY_RUN_METADATA: BulkExportRunMetadata = { latest_cursor: null, rows_written: 0, exported_files: [] };

export const toBulkExport = (row: ExportRow): BulkExportRecord => ({
  id: row.id,
  tenant_id: row.tenant_id,
  bulk_export_destination_id: row.bulk_export_destination_id,
  session_id: row.session_id,
  start_time: row.start_time,
  end_time: row.end_time,
  filter: row.filter,
  export_fields: row.export_fields === null ? null : (JSON.parse(row.export_fields) as string[]),
  interval_hours: row.interval_hours,
  format_version: row.format_version,
  status: row.status,
  source_bulk_export_id: row.source_bulk_export_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  finished_at: row.finished_at,
});

export const toBulkExportRun = (row: RunRow): BulkExportRunRecord => ({
  id: row.id,
  bulk_export_id: row.bulk_export_id,
  status: row.status,
  retry_number: row.retry_number,
  errors: JSON.parse(row.errors) as Record<string, string>,
  start_time: row.start_time,
  end_time: row.end_time,
  metadata: JSON.parse(row.metadata) as BulkExportRunMetadata,
  created_at: row.created_at,
  updated_at: row.updated_at,
  finished_at: row.finished_at,
});

/** The exports and export runs tables. */
export class ExportStore {
  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
  ) {}

  /** Stores an export and its runs (status Created) in one transaction. */
  create(input: NewExport): ExportRow {
    return this.db.transaction(() => {
      const now = this.timestamp();
      const id = randomUUID();
      const seq = this.nextSeq('bulk_exports');
      this.db
        .prepare(
          `INSERT INTO bulk_exports (id, seq, tenant_id, bulk_export_destination_id, session_id, start_time, end_time,
             filter, export_fields, interval_hours, format_version, status, source_bulk_export_id, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'Created', ?, ?, ?)`,
        )
        .run(
          id,
          seq,
          input.tenantId,
          input.destinationId,
          input.sessionId,
          input.startTime,
          input.endTime,
          input.filter,
          input.exportFields === null ? null : JSON.stringify(input.exportFields),
          input.intervalHours,
          input.formatVersion,
          input.sourceExportId,
          now,
          now,
        );
      const insertRun = prepared(
        this.db,
        `INSERT INTO bulk_export_runs (id, bulk_export_id, seq, status, start_time, end_time, metadata, created_at, updated_at)
         VALUES (?, ?, ?, 'Created', ?, ?, ?, ?, ?)`,
      );
      input.runRanges.forEach((range, index) =>
        insertRun.run(randomUUID(), id, index, range.start, range.end, JSON.stringify(EMPTY_RUN_METADATA), now, now),
      );
      return this.exportRow(id)!;
    })();
  }

  exportRow(id: string): ExportRow | undefined {
    return prepared(this.db, 'SELECT * FROM bulk_exports WHERE id = ?').get(id) as ExportRow | undefined;
  }

  /** The export in the workspace, or undefined. */
  get(tenantId: string, id: string): ExportRow | undefined {
    const row = this.exportRow(id);
    return row?.tenant_id === tenantId ? row : undefined;
  }

  /** Every export of the workspace, oldest first. */
  list(tenantId: string): ExportRow[] {
    return prepared(this.db, 'SELECT * FROM bulk_exports WHERE tenant_id = ? ORDER BY seq').all(tenantId) as ExportRow[];
  }

  /** Exports in a status, oldest first. */
  exportsWithStatus(status: BulkExportStatus): ExportRow[] {
    return prepared(this.db, 'SELECT * FROM bulk_exports WHERE status = ? ORDER BY seq').all(status) as ExportRow[];
  }

  /** One-off exports in progress, per workspace. */
  runningExportsPerTenant(): Map<string, number> {
    const rows = this.db
      .prepare(
        `SELECT tenant_id, count(*) AS n FROM bulk_exports WHERE status = 'Running' AND interval_hours IS NULL GROUP BY tenant_id`,
      )
      .all() as { tenant_id: string; n: number }[];
    return new Map(rows.map((row) => [row.tenant_id, row.n]));
  }

  /** Workspaces that have one-off exports waiting in the queue. */
  tenantsWithQueuedExports(): string[] {
    const rows = this.db
      .prepare(`SELECT DISTINCT tenant_id FROM bulk_exports WHERE status = 'Created' AND interval_hours IS NULL`)
      .all() as { tenant_id: string }[];
    return rows.map((row) => row.tenant_id);
  }

  /** The oldest `limit` one-off exports waiting in a workspace's queue. */
  queuedExports(tenantId: string, limit: number): ExportRow[] {
    return this.db
      .prepare(
        `SELECT * FROM bulk_exports WHERE status = 'Created' AND interval_hours IS NULL AND tenant_id = ? ORDER BY seq LIMIT ?`,
      )
      .all(tenantId, limit) as ExportRow[];
  }

  /** Scheduled exports not yet accepted. */
  newSchedules(): ExportRow[] {
    return this.db
      .prepare(`SELECT * FROM bulk_exports WHERE status = 'Created' AND interval_hours IS NOT NULL ORDER BY seq`)
      .all() as ExportRow[];
  }

  runRow(id: string): RunRow | undefined {
    return prepared(this.db, 'SELECT * FROM bulk_export_runs WHERE id = ?').get(id) as RunRow | undefined;
  }

  /** The runs of an export, in range order. */
  runsOf(exportId: string): RunRow[] {
    return prepared(this.db, 'SELECT * FROM bulk_export_runs WHERE bulk_export_id = ? ORDER BY seq').all(exportId) as RunRow[];
  }

  /** Sets an export's status; a final status also sets `finished_at`. */
  setExportStatus(id: string, status: BulkExportStatus, startedAtMs?: number): void {
    const now = this.timestamp();
    this.db
      .prepare(
        `UPDATE bulk_exports SET status = ?, updated_at = ?, finished_at = ?, started_at_ms = coalesce(?, started_at_ms)
         WHERE id = ?`,
      )
      .run(status, now, isFinalBulkExportStatus(status) ? now : null, startedAtMs ?? null, id);
  }

  /** Records that a scheduled export has spawned `count` children so far. */
  setSpawnedCount(id: string, count: number): void {
    prepared(this.db, 'UPDATE bulk_exports SET spawned_count = ?, updated_at = ? WHERE id = ?').run(count, this.timestamp(), id);
  }

  /**
   * Stores the next child of a scheduled export and counts it, in one transaction: a crash between the two would
   * otherwise leave a child that the count does not know of, and the same interval would be exported again.
   */
  spawnChild(parentId: string, spawnedCount: number, child: NewExport): ExportRow {
    return this.db.transaction(() => {
      const row = this.create(child);
      this.setSpawnedCount(parentId, spawnedCount);
      return row;
    })();
  }

  /** Every non-final run of an export gets `status` (cancel, workflow timeout, failure of a sibling). */
  finishOpenRuns(exportId: string, status: BulkExportStatus): void {
    const now = this.timestamp();
    this.db
      .prepare(
        `UPDATE bulk_export_runs SET status = ?, updated_at = ?, finished_at = ?, next_attempt_at_ms = NULL,
           attempt_started_at_ms = NULL
         WHERE bulk_export_id = ? AND status IN ('Created', 'Running')`,
      )
      .run(status, now, now, exportId);
  }

  /** Runs whose attempt was in progress when the platform stopped (the mark of `startAttempt` is still set). */
  interruptedRuns(): RunRow[] {
    return this.db
      .prepare(`SELECT * FROM bulk_export_runs WHERE status = 'Running' AND attempt_started_at_ms IS NOT NULL ORDER BY seq`)
      .all() as RunRow[];
  }

  /** Clears the in-progress mark of an attempt that stopped without a result (its run was cancelled meanwhile). */
  clearAttempt(runId: string): void {
    prepared(this.db, 'UPDATE bulk_export_runs SET attempt_started_at_ms = NULL WHERE id = ?').run(runId);
  }

  /** Marks an attempt as started (status Running); the mark survives a crash, telling recovery it was interrupted. */
  startAttempt(runId: string, nowMs: number): void {
    this.db
      .prepare(
        `UPDATE bulk_export_runs SET status = 'Running', attempt_started_at_ms = ?, next_attempt_at_ms = NULL, updated_at = ?
         WHERE id = ?`,
      )
      .run(nowMs, this.timestamp(), runId);
  }

  /**
   * Persists progress after a file is safely in the bucket: the API's metadata, and for a run cut into segments
   * (segments.ts) the segments' own progress, in one statement; with `committedKey`, in one transaction with it, the
   * file is no longer uncommitted.
   */
  checkpoint(runId: string, metadata: BulkExportRunMetadata, segments?: readonly RunSegment[], committedKey?: string): void {
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE bulk_export_runs SET metadata = ?, segments = coalesce(?, segments), updated_at = ? WHERE id = ?')
        .run(JSON.stringify(metadata), segments ? JSON.stringify(segments) : null, this.timestamp(), runId);
      if (committedKey !== undefined) this.forgetUncommittedFile(runId, committedKey);
    })();
  }

  /** Records that a run starts to write a file, before its first request: until committed, it may be an object nothing records. */
  recordUncommittedFile(runId: string, key: string): void {
    prepared(this.db, 'INSERT OR IGNORE INTO bulk_export_uncommitted_files (run_id, key) VALUES (?, ?)').run(runId, key);
  }

  forgetUncommittedFile(runId: string, key: string): void {
    prepared(this.db, 'DELETE FROM bulk_export_uncommitted_files WHERE run_id = ? AND key = ?').run(runId, key);
  }

  /** The files left uncommitted by runs that ended for good (never to be written again), with their destination. */
  uncommittedFilesOfFinalRuns(): UncommittedFile[] {
    return this.db
      .prepare(
        `SELECT f.run_id AS runId, f.key AS key, e.id AS exportId, e.bulk_export_destination_id AS destinationId
         FROM bulk_export_uncommitted_files f
         JOIN bulk_export_runs r ON r.id = f.run_id
         JOIN bulk_exports e ON e.id = r.bulk_export_id
         WHERE r.status NOT IN ('Created', 'Running')
         ORDER BY e.bulk_export_destination_id, f.key`,
      )
      .all() as UncommittedFile[];
  }

  /** Ends the current attempt with a final status. */
  finishRun(runId: string, status: BulkExportStatus): void {
    const now = this.timestamp();
    this.db
      .prepare(
        `UPDATE bulk_export_runs SET status = ?, attempt_started_at_ms = NULL, next_attempt_at_ms = NULL, updated_at = ?,
           finished_at = ? WHERE id = ?`,
      )
      .run(status, now, now, runId);
  }

  /**
   * Records the error of the current attempt as `retry_<retry_number>`. With `retryAtMs` the run stays Running and
   * its retry number grows; without, the run ends with `finalStatus`.
   */
  recordAttemptError(runId: string, message: string, next: { retryAtMs: number } | { finalStatus: BulkExportStatus }): RunRow {
    return this.db.transaction(() => {
      const run = this.runRow(runId)!;
      const errors = JSON.parse(run.errors) as Record<string, string>;
      errors[`retry_${run.retry_number}`] = message;
      const now = this.timestamp();
      if ('retryAtMs' in next) {
        this.db
          .prepare(
            `UPDATE bulk_export_runs SET errors = ?, retry_number = retry_number + 1, attempt_started_at_ms = NULL,
               next_attempt_at_ms = ?, updated_at = ? WHERE id = ?`,
          )
          .run(JSON.stringify(errors), next.retryAtMs, now, runId);
      } else {
        this.db
          .prepare(
            `UPDATE bulk_export_runs SET errors = ?, status = ?, attempt_started_at_ms = NULL, next_attempt_at_ms = NULL,
               updated_at = ?, finished_at = ? WHERE id = ?`,
          )
          .run(JSON.stringify(errors), next.finalStatus, now, now, runId);
      }
      return this.runRow(runId)!;
    })();
  }

  private nextSeq(table: 'bulk_exports'): number {
    return (prepared(this.db, `SELECT coalesce(max(seq), 0) + 1 AS seq FROM ${table}`).get() as { seq: number }).seq;
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
