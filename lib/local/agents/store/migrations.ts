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
  ],
};
