/** Crons of all deployments: a schedule, the run payload, and when it next fires. */
import { randomUUID } from 'node:crypto';
import type { Cron, CronCount, CronSearch } from '../../../api/schemas/agent-server-crons';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';
import { fromJson, holdsAll, isoNow } from '../store/json';

interface CronRow {
  cron_id: string;
  deployment_id: string;
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  payload: string;
  metadata: string;
  end_time: string | null;
  next_run_date: string | null;
  created_at: string;
  updated_at: string;
}

/** A stored cron with its deployment. */
export interface StoredCron {
  readonly cron: Cron;
  readonly deploymentId: string;
}

const toStoredCron = (row: CronRow): StoredCron => ({
  deploymentId: row.deployment_id,
  cron: {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    schedule: row.schedule,
    payload: fromJson(row.payload),
    metadata: fromJson(row.metadata),
    end_time: row.end_time,
    next_run_date: row.next_run_date,
    created_at: row.created_at,
    updated_at: row.updated_at,
  },
});

/** What a new cron is made of. */
export interface CronWrite {
  readonly assistantId: string;
  readonly threadId: string | null;
  readonly schedule: string;
  readonly payload: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
  readonly endTime: string | null;
  readonly nextRunDate: string | null;
}

/** What a cron update changes: each field given replaces its value; undefined keeps it. */
export interface CronChange {
  readonly schedule?: string;
  readonly payload?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly endTime?: string | null;
  readonly nextRunDate?: string | null;
}

/** Crons of all deployments. */
export class CronStore {
  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock) {}

  /** Stores a new cron. */
  create(deploymentId: string, cron: CronWrite): Cron {
    const cronId = randomUUID();
    const now = isoNow(this.clock);
    this.db
      .prepare(
        `INSERT INTO agent_crons (cron_id, deployment_id, assistant_id, thread_id, schedule, payload, metadata, end_time,
         next_run_date, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        cronId,
        deploymentId,
        cron.assistantId,
        cron.threadId,
        cron.schedule,
        JSON.stringify(cron.payload),
        JSON.stringify(cron.metadata),
        cron.endTime,
        cron.nextRunDate,
        now,
        now,
      );
    return (this.find(cronId) as StoredCron).cron;
  }

  /** One cron by id, wherever it is. */
  find(cronId: string): StoredCron | undefined {
    const row = this.db.prepare('SELECT * FROM agent_crons WHERE cron_id = ?').get(cronId) as CronRow | undefined;
    return row && toStoredCron(row);
  }

  /** Deletes a cron of the deployment; 404 when there is none. */
  delete(deploymentId: string, cronId: string): void {
    const result = this.db
      .prepare('DELETE FROM agent_crons WHERE cron_id = ? AND deployment_id = ?')
      .run(cronId, deploymentId);
    if (result.changes === 0) throw new HttpError(404, `Cron ${cronId} not found`);
  }

  /** Crons of the deployment whose assistant, thread and metadata match, oldest first. */
  private matching(deploymentId: string, query: CronCount): Cron[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM agent_crons WHERE deployment_id = ? AND (? IS NULL OR assistant_id = ?) AND (? IS NULL OR thread_id = ?)
         ORDER BY created_at, rowid`,
      )
      .all(
        deploymentId,
        query.assistant_id ?? null,
        query.assistant_id ?? null,
        query.thread_id ?? null,
        query.thread_id ?? null,
      ) as CronRow[];
    return rows.map((row) => toStoredCron(row).cron).filter((cron) => holdsAll(cron.metadata, query.metadata));
  }

  /** A page of the crons that match, oldest first. */
  search(deploymentId: string, query: CronSearch): Cron[] {
    const offset = query.offset ?? 0;
    return this.matching(deploymentId, query).slice(offset, offset + (query.limit ?? 10));
  }

  /** How many crons match. */
  count(deploymentId: string, query: CronCount): number {
    return this.matching(deploymentId, query).length;
  }

  /**
   * Changes a cron of the deployment (404 when there is none): the given fields replace theirs, `metadata` is merged
   * into the cron's (as the agent server's cron update documents), and `payload` takes the given run fields.
   */
  update(deploymentId: string, cronId: string, change: CronChange): Cron {
    const stored = this.find(cronId);
    if (!stored || stored.deploymentId !== deploymentId) throw new HttpError(404, `Cron ${cronId} not found`);
    const { cron } = stored;
    this.db
      .prepare(
        `UPDATE agent_crons SET schedule = ?, payload = ?, metadata = ?, end_time = ?, next_run_date = ?, updated_at = ?
         WHERE cron_id = ?`,
      )
      .run(
        change.schedule ?? cron.schedule,
        JSON.stringify({ ...cron.payload, ...change.payload }),
        JSON.stringify({ ...cron.metadata, ...change.metadata }),
        change.endTime === undefined ? cron.end_time : change.endTime,
        change.nextRunDate === undefined ? cron.next_run_date : change.nextRunDate,
        isoNow(this.clock),
        cronId,
      );
    return (this.find(cronId) as StoredCron).cron;
  }

  /** Crons due at or before `nowIso`, earliest first. */
  due(nowIso: string): StoredCron[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM agent_crons WHERE next_run_date IS NOT NULL AND next_run_date <= ? ORDER BY next_run_date',
      )
      .all(nowIso) as CronRow[];
    return rows.map(toStoredCron);
  }

  /** The earliest next run date of all crons. */
  earliestNextRun(): string | undefined {
    const row = this.db.prepare('SELECT min(next_run_date) AS next FROM agent_crons').get() as { next: string | null };
    return row.next ?? undefined;
  }

  /** Records when a cron fires next (null: never again). */
  setNextRun(cronId: string, nextRunDate: string | null): void {
    this.db
      .prepare('UPDATE agent_crons SET next_run_date = ?, updated_at = ? WHERE cron_id = ?')
      .run(nextRunDate, isoNow(this.clock), cronId);
  }
}
