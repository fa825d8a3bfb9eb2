/** Tables of the agent servers. Every row belongs to one deployment; JSON columns hold the API's free-form objects. */
import type { MigrationSet } from '../../db';

/** The agent servers' migrations, under module `agents`. */
export const AGENT_SERVER_MIGRATIONS: MigrationSet = {
  module: 'agents',
  migrations: [
    {
      id: '001-agent-server',
      up: `
        CREATE TABLE agent_assistants (
          assistant_id TEXT PRIMARY KEY,
          deployment_id TEXT NOT NULL,
          graph_id TEXT NOT NULL,
          name TEXT NOT NULL,
          description TEXT,
          config TEXT NOT NULL,
          context TEXT NOT NULL,
          metadata TEXT NOT NULL,
          version INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX agent_assistants_deployment ON agent_assistants (deployment_id, created_at);

        CREATE TABLE agent_threads (
          thread_id TEXT PRIMARY KEY,
          deployment_id TEXT NOT NULL,
          metadata TEXT NOT NULL,
          status TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX agent_threads_deployment ON agent_threads (deployment_id);

        CREATE TABLE agent_checkpoints (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          checkpoint_id TEXT NOT NULL UNIQUE,
          thread_id TEXT NOT NULL REFERENCES agent_threads (thread_id) ON DELETE CASCADE,
          parent_checkpoint_id TEXT,
          run_id TEXT NOT NULL,
          step INTEGER NOT NULL,
          state TEXT NOT NULL,
          next TEXT NOT NULL,
          created_at TEXT NOT NULL
        );
        CREATE INDEX agent_checkpoints_thread ON agent_checkpoints (thread_id, seq);
        CREATE INDEX agent_checkpoints_run ON agent_checkpoints (run_id);

        CREATE TABLE agent_runs (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL UNIQUE,
          deployment_id TEXT NOT NULL,
          thread_id TEXT NOT NULL REFERENCES agent_threads (thread_id) ON DELETE CASCADE,
          assistant_id TEXT NOT NULL,
          status TEXT NOT NULL,
          multitask_strategy TEXT,
          metadata TEXT NOT NULL,
          kwargs TEXT NOT NULL,
          attempt INTEGER NOT NULL,
          error TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX agent_runs_thread ON agent_runs (thread_id, seq);
        CREATE INDEX agent_runs_status ON agent_runs (status);

        CREATE TABLE agent_crons (
          cron_id TEXT PRIMARY KEY,
          deployment_id TEXT NOT NULL,
          assistant_id TEXT NOT NULL,
          thread_id TEXT,
          schedule TEXT NOT NULL,
          payload TEXT NOT NULL,
          metadata TEXT NOT NULL,
          end_time TEXT,
          next_run_date TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX agent_crons_deployment ON agent_crons (deployment_id, created_at);
      `,
    },
    {
      // the default assistant of each served graph, found by deployment and graph rather than by its derived id,
      // which another deployment could take first
      id: '002-default-assistants',
      up: `
        CREATE TABLE agent_default_assistants (
          deployment_id TEXT NOT NULL,
          graph_id TEXT NOT NULL,
          assistant_id TEXT NOT NULL REFERENCES agent_assistants (assistant_id) ON DELETE CASCADE,
          PRIMARY KEY (deployment_id, graph_id)
        );
      `,
    },
    {
      // thread and assistant ids are each deployment's own, as each deployment of the platform has its own database:
      // the same id (a name-derived one, say) may be used in two deployments. The tables are rebuilt with keys of
      // (deployment, id) beside the old ones, filled, and swapped in; the old children are dropped before the old
      // parents, so dropping a parent deletes nothing through ON DELETE CASCADE.
      id: '003-ids-per-deployment',
      up: `
        CREATE TABLE agent_threads_v3 (
          deployment_id TEXT NOT NULL,
          thread_id TEXT NOT NULL,
          metadata TEXT NOT NULL,
          status TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          PRIMARY KEY (deployment_id, thread_id)
        );
        INSERT INTO agent_threads_v3 (deployment_id, thread_id, metadata, status, created_at, updated_at)
          SELECT deployment_id, thread_id, metadata, status, created_at, updated_at FROM agent_threads ORDER BY rowid;

        CREATE TABLE agent_checkpoints_v3 (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          checkpoint_id TEXT NOT NULL UNIQUE,
          deployment_id TEXT NOT NULL,
          thread_id TEXT NOT NULL,
          parent_checkpoint_id TEXT,
          run_id TEXT NOT NULL,
          step INTEGER NOT NULL,
          state TEXT NOT NULL,
          next TEXT NOT NULL,
          created_at TEXT NOT NULL,
          FOREIGN KEY (deployment_id, thread_id) REFERENCES agent_threads_v3 (deployment_id, thread_id) ON DELETE CASCADE
        );
        INSERT INTO agent_checkpoints_v3
          (seq, checkpoint_id, deployment_id, thread_id, parent_checkpoint_id, run_id, step, state, next, created_at)
          SELECT c.seq, c.checkpoint_id, t.deployment_id, c.thread_id, c.parent_checkpoint_id, c.run_id, c.step, c.state,
                 c.next, c.created_at
          FROM agent_checkpoints c JOIN agent_threads t ON t.thread_id = c.thread_id ORDER BY c.seq;

        CREATE TABLE agent_runs_v3 (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL UNIQUE,
          deployment_id TEXT NOT NULL,
          thread_id TEXT NOT NULL,
          assistant_id TEXT NOT NULL,
          status TEXT NOT NULL,
          multitask_strategy TEXT,
          metadata TEXT NOT NULL,
          kwargs TEXT NOT NULL,
          attempt INTEGER NOT NULL,
          error TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          FOREIGN KEY (deployment_id, thread_id) REFERENCES agent_threads_v3 (deployment_id, thread_id) ON DELETE CASCADE
        );
        INSERT INTO agent_runs_v3
          (seq, run_id, deployment_id, thread_id, assistant_id, status, multitask_strategy, metadata, kwargs, attempt, error,
           created_at, updated_at)
          SELECT r.seq, r.run_id, t.deployment_id, r.thread_id, r.assistant_id, r.status, r.multitask_strategy, r.metadata,
                 r.kwargs, r.attempt, r.error, r.created_at, r.updated_at
          FROM agent_runs r JOIN agent_threads t ON t.thread_id = r.thread_id ORDER BY r.seq;

        CREATE TABLE agent_assistants_v3 (
          deployment_id TEXT NOT NULL,
          assistant_id TEXT NOT NULL,
          graph_id TEXT NOT NULL,
          name TEXT NOT NULL,
          description TEXT,
          config TEXT NOT NULL,
          context TEXT NOT NULL,
          metadata TEXT NOT NULL,
          version INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          PRIMARY KEY (deployment_id, assistant_id)
        );
        INSERT INTO agent_assistants_v3
          (deployment_id, assistant_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at)
          SELECT deployment_id, assistant_id, graph_id, name, description, config, context, metadata, version, created_at,
                 updated_at
          FROM agent_assistants ORDER BY rowid;

        CREATE TABLE agent_default_assistants_v3 (
          deployment_id TEXT NOT NULL,
          graph_id TEXT NOT NULL,
          assistant_id TEXT NOT NULL,
          PRIMARY KEY (deployment_id, graph_id),
          FOREIGN KEY (deployment_id, assistant_id) REFERENCES agent_assistants_v3 (deployment_id, assistant_id) ON DELETE CASCADE
        );
        INSERT INTO agent_default_assistants_v3 (deployment_id, graph_id, assistant_id)
          SELECT deployment_id, graph_id, assistant_id FROM agent_default_assistants;

        -- numbers of deleted checkpoints and runs are not given again
        UPDATE sqlite_sequence
          SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'agent_checkpoints'), 0))
          WHERE name = 'agent_checkpoints_v3';
        UPDATE sqlite_sequence
          SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'agent_runs'), 0))
          WHERE name = 'agent_runs_v3';

        DROP TABLE agent_default_assistants;
        DROP TABLE agent_checkpoints;
        DROP TABLE agent_runs;
        DROP TABLE agent_threads;
        DROP TABLE agent_assistants;
        ALTER TABLE agent_threads_v3 RENAME TO agent_threads;
        ALTER TABLE agent_checkpoints_v3 RENAME TO agent_checkpoints;
        ALTER TABLE agent_runs_v3 RENAME TO agent_runs;
        ALTER TABLE agent_assistants_v3 RENAME TO agent_assistants;
        ALTER TABLE agent_default_assistants_v3 RENAME TO agent_default_assistants;

        CREATE INDEX agent_checkpoints_thread ON agent_checkpoints (deployment_id, thread_id, seq);
        CREATE INDEX agent_checkpoints_run ON agent_checkpoints (run_id);
        CREATE INDEX agent_runs_thread ON agent_runs (deployment_id, thread_id, seq);
        CREATE INDEX agent_runs_status ON agent_runs (status);
        CREATE INDEX agent_assistants_deployment ON agent_assistants (deployment_id, created_at);
      `,
    },
    {
      // how many times a process died while the run was running (a stop of the platform puts it back in the queue
      // itself, as the runs a stop left running are put back here); and the crons of threads deleted before a
      // thread's deletion took its crons with it
      id: '004-run-crashes',
      up: `
        ALTER TABLE agent_runs ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0;
        UPDATE agent_runs SET status = 'pending', attempt = attempt + 1 WHERE status = 'running';
        DELETE FROM agent_crons WHERE thread_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM agent_threads t WHERE t.deployment_id = agent_crons.deployment_id AND t.thread_id = agent_crons.thread_id);
      `,
    },
    {
      // the crons of assistants deleted before an assistant's deletion took its crons with it (each cron names the
      // assistant's id, resolved when the cron was made, so a cron whose assistant is gone can only fail)
      id: '005-orphan-assistant-crons',
      up: `
        DELETE FROM agent_crons
          WHERE NOT EXISTS (SELECT 1 FROM agent_assistants a WHERE a.deployment_id = agent_crons.deployment_id AND a.assistant_id = agent_crons.assistant_id);
      `,
    },
    {
      // the Store's items, each deployment's own: a namespace is kept as its labels joined by '.' (a label holds
      // none), so that a namespace prefix is a prefix of the text; and the metadata a checkpoint was given beyond
      // its run and step (a state update's source and writes, what a patch of its metadata added)
      id: '006-store',
      up: `
        CREATE TABLE agent_store_items (
          deployment_id TEXT NOT NULL,
          namespace TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          ttl_minutes REAL,
          expires_at TEXT,
          PRIMARY KEY (deployment_id, namespace, key)
        );
        ALTER TABLE agent_checkpoints ADD COLUMN metadata TEXT;
      `,
    },
    {
      // every version of each assistant, as it was written, for its list of versions and for making one the latest
      // again; each assistant's current row is its first recorded version
      id: '007-assistant-versions',
      up: `
        CREATE TABLE agent_assistant_versions (
          deployment_id TEXT NOT NULL,
          assistant_id TEXT NOT NULL,
          version INTEGER NOT NULL,
          graph_id TEXT NOT NULL,
          name TEXT NOT NULL,
          description TEXT,
          config TEXT NOT NULL,
          context TEXT NOT NULL,
          metadata TEXT NOT NULL,
          created_at TEXT NOT NULL,
          PRIMARY KEY (deployment_id, assistant_id, version),
          FOREIGN KEY (deployment_id, assistant_id) REFERENCES agent_assistants (deployment_id, assistant_id) ON DELETE CASCADE
        );
        INSERT INTO agent_assistant_versions
          (deployment_id, assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
          SELECT deployment_id, assistant_id, version, graph_id, name, description, config, context, metadata, updated_at
          FROM agent_assistants;
      `,
    },
  ],
};
