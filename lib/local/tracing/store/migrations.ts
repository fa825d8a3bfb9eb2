/**
 * Tables of the tracing module: projects and runs (the trace store), export destinations, exports and export runs.
 * Run timestamps are integer microseconds (see `time.ts`); API timestamps are ISO strings; JSON columns are text.
 */
import type { MigrationSet } from '../../db';
import { idempotencyBodyDigestMigration, idempotencyKeysMigration } from '../../idempotency';

/** The table of the `Idempotency-Key`s of project, destination and export creates. */
export const TRACING_IDEMPOTENCY_TABLE = 'tracing_idempotency_keys';

export const TRACING_MIGRATIONS: MigrationSet = {
  module: 'tracing',
  migrations: [
    {
      id: '001-trace-store',
      up: `
        CREATE TABLE tracing_sessions (
          id TEXT PRIMARY KEY,
          tenant_id TEXT NOT NULL,
          name TEXT NOT NULL,
          description TEXT,
          created_at TEXT NOT NULL,
          UNIQUE (tenant_id, name)
        );
        CREATE TABLE trace_runs (
          id TEXT PRIMARY KEY,
          tenant_id TEXT NOT NULL,
          session_id TEXT NOT NULL REFERENCES tracing_sessions(id) ON DELETE CASCADE,
          trace_id TEXT NOT NULL,
          parent_run_id TEXT,
          parent_run_ids TEXT NOT NULL,
          reference_example_id TEXT,
          name TEXT NOT NULL,
          run_type TEXT NOT NULL,
          start_time INTEGER NOT NULL,
          end_time INTEGER,
          status TEXT NOT NULL,
          is_root INTEGER NOT NULL,
          dotted_order TEXT NOT NULL,
          trace_tier TEXT,
          inputs TEXT NOT NULL,
          outputs TEXT,
          error TEXT,
          extra TEXT,
          events TEXT,
          tags TEXT NOT NULL,
          feedback_stats TEXT,
          total_tokens INTEGER,
          prompt_tokens INTEGER,
          completion_tokens INTEGER,
          total_cost REAL,
          prompt_cost REAL,
          completion_cost REAL,
          first_token_time INTEGER
        );
        -- the export cursor order: (start_time, id) within a project
        CREATE INDEX trace_runs_export_order ON trace_runs (session_id, start_time, id);`,
    },
    {
      id: '002-bulk-exports',
      up: `
        CREATE TABLE bulk_export_destinations (
          id TEXT PRIMARY KEY,
          tenant_id TEXT NOT NULL,
          destination_type TEXT NOT NULL,
          display_name TEXT NOT NULL,
          config TEXT NOT NULL,
          credentials_ciphertext TEXT,
          credentials_keys TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE TABLE bulk_exports (
          id TEXT PRIMARY KEY,
          seq INTEGER NOT NULL,
          tenant_id TEXT NOT NULL,
          bulk_export_destination_id TEXT NOT NULL REFERENCES bulk_export_destinations(id),
          session_id TEXT NOT NULL,
          start_time TEXT NOT NULL,
          end_time TEXT,
          filter TEXT,
          export_fields TEXT,
          interval_hours INTEGER,
          format_version TEXT NOT NULL,
          status TEXT NOT NULL,
          source_bulk_export_id TEXT REFERENCES bulk_exports(id),
          spawned_count INTEGER NOT NULL DEFAULT 0,
          started_at_ms INTEGER,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          finished_at TEXT
        );
        CREATE INDEX bulk_exports_by_tenant ON bulk_exports (tenant_id, seq);
        CREATE INDEX bulk_exports_by_status ON bulk_exports (status, seq);
        CREATE TABLE bulk_export_runs (
          id TEXT PRIMARY KEY,
          bulk_export_id TEXT NOT NULL REFERENCES bulk_exports(id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          status TEXT NOT NULL,
          retry_number INTEGER NOT NULL DEFAULT 0,
          errors TEXT NOT NULL DEFAULT '{}',
          start_time TEXT NOT NULL,
          end_time TEXT NOT NULL,
          metadata TEXT NOT NULL,
          next_attempt_at_ms INTEGER,
          attempt_started_at_ms INTEGER,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          finished_at TEXT,
          UNIQUE (bulk_export_id, seq)
        );
        CREATE INDEX bulk_export_runs_by_status ON bulk_export_runs (status);`,
    },
    {
      // the cut of a large run into segments and each segment's progress (exports/segments.ts); '[]': in one piece;
      // NULL: not decided yet (or a run in one piece that committed files before the decision was stored)
      id: '003-export-run-segments',
      up: `ALTER TABLE bulk_export_runs ADD COLUMN segments TEXT;`,
    },
    {
      // a run's id is its workspace's own: the same run (a trace replayed into a second workspace, say) is stored in
      // each workspace that posts it, not skipped in the second as a duplicate. The table is rebuilt
      // with the key (tenant_id, id), filled in the old table's order, and swapped in; the export index is made
      // after the copy. Nothing references trace_runs, so dropping the old table deletes nothing else. Inputs and
      // outputs, most of a run's bytes, now come last in each row: the columns before them stay on the row's own page,
      // so reading those (an export without inputs and outputs) does not follow the overflow pages that large inputs
      // and outputs spill into.
      id: '004-run-ids-per-workspace',
      up: `
        CREATE TABLE trace_runs_v4 (
          tenant_id TEXT NOT NULL,
          id TEXT NOT NULL,
          session_id TEXT NOT NULL REFERENCES tracing_sessions(id) ON DELETE CASCADE,
          trace_id TEXT NOT NULL,
          parent_run_id TEXT,
          parent_run_ids TEXT NOT NULL,
          reference_example_id TEXT,
          name TEXT NOT NULL,
          run_type TEXT NOT NULL,
          start_time INTEGER NOT NULL,
          end_time INTEGER,
          status TEXT NOT NULL,
          is_root INTEGER NOT NULL,
          dotted_order TEXT NOT NULL,
          trace_tier TEXT,
          error TEXT,
          extra TEXT,
          events TEXT,
          tags TEXT NOT NULL,
          feedback_stats TEXT,
          total_tokens INTEGER,
          prompt_tokens INTEGER,
          completion_tokens INTEGER,
          total_cost REAL,
          prompt_cost REAL,
          completion_cost REAL,
          first_token_time INTEGER,
          inputs TEXT NOT NULL,
          outputs TEXT,
          PRIMARY KEY (tenant_id, id)
        );
        INSERT INTO trace_runs_v4 SELECT tenant_id, id, session_id, trace_id, parent_run_id, parent_run_ids,
            reference_example_id, name, run_type, start_time, end_time, status, is_root, dotted_order, trace_tier, error,
            extra, events, tags, feedback_stats, total_tokens, prompt_tokens, completion_tokens, total_cost, prompt_cost,
            completion_cost, first_token_time, inputs, outputs
          FROM trace_runs ORDER BY rowid;
        DROP TABLE trace_runs;
        ALTER TABLE trace_runs_v4 RENAME TO trace_runs;
        CREATE INDEX trace_runs_export_order ON trace_runs (session_id, start_time, id);`,
    },
    {
      // the files an export run has started to write and not committed (exports/uncommitted-files.ts): written before
      // a file's first request, deleted with the checkpoint that commits it. One left behind by a run that ended for
      // good may be an object nothing records: it is deleted from the bucket
      id: '005-export-uncommitted-files',
      up: `
        CREATE TABLE bulk_export_uncommitted_files (
          run_id TEXT NOT NULL REFERENCES bulk_export_runs(id) ON DELETE CASCADE,
          key TEXT NOT NULL,
          PRIMARY KEY (run_id, key)
        );`,
    },
    // the `Idempotency-Key`s of destination and export creates (idempotency.ts)
    idempotencyKeysMigration('006-idempotency-keys', TRACING_IDEMPOTENCY_TABLE),
    // the digest of the body that made a key's object: another body under the key is a new create (idempotency.ts)
    idempotencyBodyDigestMigration('007-idempotency-key-body-digest', TRACING_IDEMPOTENCY_TABLE),
    // a project's `extra` (LangSmith's: `metadata` and what else a client keeps there), JSON text; NULL: none
    { id: '008-session-extra', up: `ALTER TABLE tracing_sessions ADD COLUMN extra TEXT;` },
  ],
  sealedColumns: [{ table: 'bulk_export_destinations', column: 'credentials_ciphertext' }],
};
