/**
 * The revision pipeline: a state machine kept entirely in SQLite. Each in-flight revision row holds its `status`,
 * when it entered it (`status_changed_at`) and when it moves on (`next_transition_at`); one timer, always armed for
 * the earliest due row, advances whatever is due. Nothing lives only in memory, so after a restart (even a SIGKILL)
 * every in-flight revision carries on from the step it was in. Deletions of deployments are finished the same way.
 */
import { randomUUID } from 'node:crypto';
import type { DeploymentSource, RevisionStatus } from '../../api/schemas/control-plane';
import { MAX_TIMER_DELAY_MS, type Clock, type TimerHandle } from '../clock';
import { prepared, type PlatformDatabase } from '../db';
import { failingStep, FAILURE_MARKERS, PIPELINE_STEPS, type PipelineStep, type StoredRevisionConfig } from './model';

/** How long each step of a revision takes, and how long a deleted deployment stays visible. */
export interface PipelineTimings {
  /** Time spent in CREATING. */
  readonly creatingMs: number;
  /** Time spent in QUEUED. */
  readonly queuedMs: number;
  /** Time spent in AWAITING_BUILD. */
  readonly awaitingBuildMs: number;
  /** Time spent in BUILDING. */
  readonly buildingMs: number;
  /** Time spent in AWAITING_DEPLOY. */
  readonly awaitingDeployMs: number;
  /** Time spent in DEPLOYING. */
  readonly deployingMs: number;
  /** Time between a DELETE and the deployment's disappearance (GET answers 404 after it). */
  readonly deleteDelayMs: number;
}

/** About a second from creation to DEPLOYED, and a second for a delete. */
export const DEFAULT_PIPELINE_TIMINGS: PipelineTimings = {
  creatingMs: 100,
  queuedMs: 100,
  awaitingBuildMs: 100,
  buildingMs: 400,
  awaitingDeployMs: 100,
  deployingMs: 300,
  deleteDelayMs: 1000,
};

/** Timings with every pipeline step (not the delete delay) set to `stepMs`. */
export const uniformStepTimings = (stepMs: number): Omit<PipelineTimings, 'deleteDelayMs'> => ({
  creatingMs: stepMs,
  queuedMs: stepMs,
  awaitingBuildMs: stepMs,
  buildingMs: stepMs,
  awaitingDeployMs: stepMs,
  deployingMs: stepMs,
});

const STEP_TIMING: Record<PipelineStep, Exclude<keyof PipelineTimings, 'deleteDelayMs'>> = {
  CREATING: 'creatingMs',
  QUEUED: 'queuedMs',
  AWAITING_BUILD: 'awaitingBuildMs',
  BUILDING: 'buildingMs',
  AWAITING_DEPLOY: 'awaitingDeployMs',
  DEPLOYING: 'deployingMs',
};

const FAILURE_OF_STEP = new Map(Object.values(FAILURE_MARKERS).map((failure) => [failure.step, failure.status]));

interface DueRevision {
  id: string;
  deployment_id: string;
  status: PipelineStep;
  fails_at: PipelineStep | null;
}

/** Drives revisions through their steps and finishes deletions, on the platform's clock. */
export class RevisionPipeline {
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
    private readonly timings: PipelineTimings,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /**
   * Resumes the durable state: due times of in-flight revisions and pending deletions are recomputed from when they
   * entered their state with the current timings (so a restart with other timings takes effect at once).
   */
  start(): void {
    const cases = PIPELINE_STEPS.map((step) => `WHEN '${step}' THEN ${this.stepDelay(step)}`).join(' ');
    this.db.transaction(() => {
      this.db.exec(
        `UPDATE cp_revisions SET next_transition_at = status_changed_at + (CASE status ${cases} ELSE 0 END)
         WHERE next_transition_at IS NOT NULL`,
      );
      prepared(
        this.db,
        'UPDATE cp_deployments SET delete_at = delete_requested_at + ? WHERE delete_at IS NOT NULL',
      ).run(this.timings.deleteDelayMs);
    })();
    this.running = true;
    this.wake();
  }

  /** Stops the timer; the state stays in the database for the next start. */
  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Inserts a new CREATING revision and makes it the deployment's latest. In-flight revisions of the deployment are
   * superseded: DEPLOYING ones become INTERRUPTED, earlier ones SKIPPED. Call inside the caller's transaction.
   */
  startRevision(deploymentId: string, source: DeploymentSource, config: StoredRevisionConfig): string {
    this.abandonInFlight(deploymentId);
    const id = randomUUID();
    const now = this.clock.now();
    const iso = new Date(now).toISOString();
    prepared(
      this.db,
      `INSERT INTO cp_revisions (id, deployment_id, source, repo_ref, graph_config_path, image_uri, repo_commit_sha,
           status, fails_at, status_changed_at, next_transition_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'CREATING', ?, ?, ?, ?, ?)`,
    ).run(
      id,
      deploymentId,
      source,
      config.repo_ref,
      config.graph_config_path,
      config.image_uri,
      config.repo_commit_sha,
      failingStep(config),
      now,
      now + this.stepDelay('CREATING'),
      iso,
      iso,
    );
    prepared(this.db, 'UPDATE cp_deployments SET latest_revision_id = ? WHERE id = ?').run(id, deploymentId);
    return id;
  }

  /** Ends every in-flight revision of a deployment: DEPLOYING ones INTERRUPTED, the others SKIPPED. */
  abandonInFlight(deploymentId: string): void {
    const now = this.clock.now();
    prepared(
      this.db,
      `UPDATE cp_revisions
         SET status = CASE status WHEN 'DEPLOYING' THEN 'INTERRUPTED' ELSE 'SKIPPED' END,
             next_transition_at = NULL, status_changed_at = ?, updated_at = ?
         WHERE deployment_id = ? AND next_transition_at IS NOT NULL`,
    ).run(now, new Date(now).toISOString(), deploymentId);
  }

  /** Re-arms the timer for the earliest due revision or deletion; call after any write that adds work. */
  wake(): void {
    if (!this.running) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const { due } = prepared(
      this.db,
      `SELECT MIN(due) AS due FROM (
           SELECT MIN(next_transition_at) AS due FROM cp_revisions WHERE next_transition_at IS NOT NULL
           UNION ALL SELECT MIN(delete_at) FROM cp_deployments WHERE delete_at IS NOT NULL)`,
    ).get() as { due: number | null };
    if (due === null) return;
    const delay = Math.min(Math.max(0, due - this.clock.now()), MAX_TIMER_DELAY_MS);
    this.timer = this.clock.setTimeout(() => this.tick(), delay);
  }

  /** Advances every due revision by one step (repeating while steps of 0 ms are due) and finishes due deletions. */
  private tick(): void {
    this.timer = undefined;
    if (!this.running) return;
    try {
      this.db.transaction(() => {
        for (;;) {
          const due = prepared(
            this.db,
            `SELECT id, deployment_id, status, fails_at FROM cp_revisions
               WHERE next_transition_at IS NOT NULL AND next_transition_at <= ? ORDER BY next_transition_at, seq`,
          ).all(this.clock.now()) as DueRevision[];
          if (due.length === 0) break;
          for (const revision of due) this.advance(revision);
        }
        prepared(this.db, 'DELETE FROM cp_deployments WHERE delete_at <= ?').run(this.clock.now());
      })();
    } catch (err) {
      this.log(`revision pipeline: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.wake();
  }

  private advance(revision: DueRevision): void {
    const now = this.clock.now();
    const failure = revision.fails_at === revision.status ? FAILURE_OF_STEP.get(revision.status) : undefined;
    const nextStep = PIPELINE_STEPS[PIPELINE_STEPS.indexOf(revision.status) + 1];
    const status: RevisionStatus = failure ?? nextStep ?? 'DEPLOYED';
    const nextAt = failure || !nextStep ? null : now + this.stepDelay(nextStep);
    prepared(
      this.db,
      `UPDATE cp_revisions SET status = ?, status_changed_at = ?, next_transition_at = ?, remote_reconciled = ?,
           updated_at = ? WHERE id = ?`,
    ).run(status, now, nextAt, status === 'DEPLOYED' ? 1 : 0, new Date(now).toISOString(), revision.id);
    if (status === 'DEPLOYED') {
      prepared(this.db, 'UPDATE cp_deployments SET active_revision_id = ? WHERE id = ?').run(
        revision.id,
        revision.deployment_id,
      );
    }
  }

  private stepDelay(step: PipelineStep): number {
    return Math.max(0, this.timings[STEP_TIMING[step]]);
  }
}
