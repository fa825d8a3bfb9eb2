/**
 * Deployments and their secrets in SQLite, scoped by workspace: every read takes the caller's tenant id, so one
 * workspace never sees another's deployments. Revisions are written by the pipeline; this store reads them.
 */
import { randomUUID } from 'node:crypto';
import type {
  DeploymentRecord as DeploymentAnswer,
  DeploymentCreate,
  DeploymentPatch,
  DeploymentSource,
  DeploymentStatus,
  Revision,
  RevisionStatus,
} from '../../api/schemas/control-plane';
import type { Clock } from '../clock';
import { prepared, type Migration, type PlatformDatabase } from '../db';
import { deploymentNotFound, HttpError, revisionNotFound } from '../errors';
import type { SecretBox } from '../secret-box';
import {
  asksForNewRevision,
  initialRevisionConfig,
  initialSourceConfig,
  mergeSourceConfig,
  nextRevisionConfig,
  type StoredRevisionConfig,
  type StoredSourceConfig,
} from './model';
import type { RevisionPipeline } from './pipeline';

export const DEPLOYMENT_MIGRATIONS: readonly Migration[] = [
  {
    id: '001-deployments',
    up: `
      CREATE TABLE cp_deployments (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tenant_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        source TEXT NOT NULL,
        source_config TEXT NOT NULL,
        status TEXT NOT NULL,
        latest_revision_id TEXT,
        active_revision_id TEXT,
        delete_requested_at INTEGER,
        delete_at INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (tenant_id, name)
      );
      CREATE INDEX cp_deployments_delete_due ON cp_deployments (delete_at) WHERE delete_at IS NOT NULL;
      CREATE TABLE cp_revisions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        deployment_id TEXT NOT NULL REFERENCES cp_deployments(id) ON DELETE CASCADE,
        source TEXT NOT NULL,
        repo_ref TEXT,
        graph_config_path TEXT,
        image_uri TEXT,
        repo_commit_sha TEXT,
        status TEXT NOT NULL,
        fails_at TEXT,
        remote_reconciled INTEGER NOT NULL DEFAULT 0,
        status_changed_at INTEGER NOT NULL,
        next_transition_at INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX cp_revisions_by_deployment ON cp_revisions (deployment_id, seq);
      CREATE INDEX cp_revisions_due ON cp_revisions (next_transition_at) WHERE next_transition_at IS NOT NULL;
      CREATE TABLE cp_secrets (
        deployment_id TEXT NOT NULL REFERENCES cp_deployments(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        sealed_value TEXT NOT NULL,
        PRIMARY KEY (deployment_id, name)
      );`,
  },
];

/** A deployment row, decoded. */
export interface DeploymentRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly source: DeploymentSource;
  readonly sourceConfig: StoredSourceConfig;
  readonly status: DeploymentStatus;
  readonly latestRevisionId: string | null;
  readonly activeRevisionId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

interface DeploymentRow {
  id: string;
  tenant_id: string;
  name: string;
  source: DeploymentSource;
  source_config: string;
  status: DeploymentStatus;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  created_at: string;
  updated_at: string;
}

interface RevisionRow extends StoredRevisionConfig {
  id: string;
  source: DeploymentSource;
  status: RevisionStatus;
  created_at: string;
  updated_at: string;
}

/** Filters and paging of a revision list. */
export interface RevisionQuery {
  readonly statuses?: readonly RevisionStatus[];
  readonly remoteReconciled?: boolean;
  readonly limit: number;
  readonly offset: number;
}

const decode = (row: DeploymentRow): DeploymentRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  source: row.source,
  sourceConfig: JSON.parse(row.source_config) as StoredSourceConfig,
  status: row.status,
  latestRevisionId: row.latest_revision_id,
  activeRevisionId: row.active_revision_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRevision = (row: RevisionRow): Revision => ({
  id: row.id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  status: row.status,
  source: row.source,
  source_revision_config: {
    repo_ref: row.repo_ref,
    graph_config_path: row.graph_config_path,
    image_uri: row.image_uri,
    repo_commit_sha: row.repo_commit_sha,
  },
});

const REVISION_COLUMNS =
  'id, source, status, repo_ref, graph_config_path, image_uri, repo_commit_sha, created_at, updated_at';

/**
 * A revision and whether its deployment exists in the workspace, in one statement (each statement is a read
 * transaction of its own, with its file locks): no row means no such deployment, a row of nulls no such revision.
 */
const REVISION_IN_WORKSPACE_SQL = `SELECT ${REVISION_COLUMNS.split(', ')
  .map((column) => `r.${column}`)
  .join(', ')}
  FROM cp_deployments d LEFT JOIN cp_revisions r ON r.id = ? AND r.deployment_id = d.id
  WHERE d.id = ? AND d.tenant_id = ?`;

/** Deployment reads and writes for one platform. */
export class DeploymentStore {
  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
    private readonly pipeline: RevisionPipeline,
  ) {}

  /** Creates a deployment and its first revision; 409 when the workspace already has the name. */
  create(tenantId: string, input: DeploymentCreate): DeploymentRecord {
    const existing = prepared(this.db, 'SELECT id FROM cp_deployments WHERE tenant_id = ? AND name = ?').get(
      tenantId,
      input.name,
    ) as { id: string } | undefined;
    if (existing) {
      throw new HttpError(409, `Deployment named '${input.name}' already exists in this workspace (id ${existing.id})`);
    }
    const id = randomUUID();
    const now = this.timestamp();
    const sourceConfig = initialSourceConfig(input.source_config);
    this.db.transaction(() => {
      prepared(
        this.db,
        `INSERT INTO cp_deployments (id, tenant_id, name, source, source_config, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'READY', ?, ?)`,
      ).run(id, tenantId, input.name, input.source, JSON.stringify(sourceConfig), now, now);
      this.writeSecrets(id, input.secrets ?? []);
      const config = initialRevisionConfig(input.source, sourceConfig, input.source_revision_config);
      this.pipeline.startRevision(id, input.source, config);
    })();
    this.pipeline.wake();
    return this.require(tenantId, id);
  }

  /** The deployment, or undefined when the workspace has none with this id. */
  find(tenantId: string, id: string): DeploymentRecord | undefined {
    const row = prepared(this.db, 'SELECT * FROM cp_deployments WHERE id = ? AND tenant_id = ?').get(id, tenantId) as
      | DeploymentRow
      | undefined;
    return row && decode(row);
  }

  /** The deployment, or a 404 naming its id. */
  require(tenantId: string, id: string): DeploymentRecord {
    const record = this.find(tenantId, id);
    if (!record) throw deploymentNotFound(id);
    return record;
  }

  /** Deployments of a workspace, newest first, optionally filtered by a case-insensitive name substring. */
  list(tenantId: string, nameContains: string | undefined, limit: number, offset: number): DeploymentRecord[] {
    const rows = prepared(
      this.db,
      `SELECT * FROM cp_deployments WHERE tenant_id = ? AND (? IS NULL OR instr(lower(name), lower(?)) > 0)
         ORDER BY seq DESC LIMIT ? OFFSET ?`,
    ).all(tenantId, nameContains ?? null, nameContains ?? null, limit, offset) as DeploymentRow[];
    return rows.map(decode);
  }

  /** The latest revision's config, the base of PATCH checks and of the next revision. */
  latestRevisionConfig(record: DeploymentRecord): StoredRevisionConfig {
    const row = prepared(
      this.db,
      'SELECT repo_ref, graph_config_path, image_uri, repo_commit_sha FROM cp_revisions WHERE id = ?',
    ).get(record.latestRevisionId) as StoredRevisionConfig | undefined;
    return row ?? { repo_ref: null, graph_config_path: null, image_uri: null, repo_commit_sha: null };
  }

  /** 409 when the deployment awaits deletion: it takes no change. */
  refuseWhileDeleting(record: DeploymentRecord): void {
    if (record.status === 'AWAITING_DELETE') throw new HttpError(409, `Deployment ${record.id} is being deleted`);
  }

  /** Applies a validated PATCH; a new revision starts when the PATCH asks for one or changes the secrets. */
  update(record: DeploymentRecord, patch: DeploymentPatch): DeploymentRecord {
    this.refuseWhileDeleting(record);
    const sourceConfig = mergeSourceConfig(record.sourceConfig, patch.source_config);
    this.db.transaction(() => {
      prepared(this.db, 'UPDATE cp_deployments SET source_config = ?, updated_at = ? WHERE id = ?').run(
        JSON.stringify(sourceConfig),
        this.timestamp(),
        record.id,
      );
      const secretsChanged = patch.secrets !== undefined && this.secretsDiffer(record.id, patch.secrets);
      if (secretsChanged) this.writeSecrets(record.id, patch.secrets ?? []);
      if (secretsChanged || asksForNewRevision(patch.source_revision_config)) {
        const config = nextRevisionConfig(
          sourceConfig,
          this.latestRevisionConfig(record),
          patch.source_revision_config,
        );
        this.pipeline.startRevision(record.id, record.source, config);
      }
    })();
    this.pipeline.wake();
    return this.require(record.tenantId, record.id);
  }

  /** Marks the deployment AWAITING_DELETE; the pipeline removes it once the delay has passed. Idempotent. */
  requestDelete(record: DeploymentRecord, delayMs: number): DeploymentRecord {
    if (record.status !== 'AWAITING_DELETE') {
      const now = this.clock.now();
      this.db.transaction(() => {
        prepared(
          this.db,
          `UPDATE cp_deployments SET status = 'AWAITING_DELETE', delete_requested_at = ?, delete_at = ?, updated_at = ?
             WHERE id = ?`,
        ).run(now, now + delayMs, this.timestamp(), record.id);
        this.pipeline.abandonInFlight(record.id);
      })();
      this.pipeline.wake();
    }
    return this.require(record.tenantId, record.id);
  }

  /** Revisions of a deployment, newest first. */
  listRevisions(deploymentId: string, query: RevisionQuery): Revision[] {
    const statuses = query.statuses ?? [];
    const statusFilter = statuses.length > 0 ? `AND status IN (${statuses.map(() => '?').join(', ')})` : '';
    const reconciledFilter = query.remoteReconciled === undefined ? '' : 'AND remote_reconciled = ?';
    const params: unknown[] = [deploymentId, ...statuses];
    if (query.remoteReconciled !== undefined) params.push(query.remoteReconciled ? 1 : 0);
    const rows = prepared(
      this.db,
      `SELECT ${REVISION_COLUMNS} FROM cp_revisions WHERE deployment_id = ? ${statusFilter} ${reconciledFilter}
         ORDER BY seq DESC LIMIT ? OFFSET ?`,
    ).all(...params, query.limit, query.offset) as RevisionRow[];
    return rows.map(toRevision);
  }

  /** One revision of a deployment of the workspace; a 404 naming the deployment, else the revision, when missing. */
  getRevisionInWorkspace(tenantId: string, deploymentId: string, revisionId: string): Revision {
    const row = this.revisionRowInWorkspace(tenantId, deploymentId, revisionId);
    if (!row) throw deploymentNotFound(deploymentId);
    if (row.id === null) throw revisionNotFound(deploymentId, revisionId);
    return toRevision(row);
  }

  /** The revision when both it and its deployment exist in the workspace; undefined otherwise (no error built). */
  findRevisionInWorkspace(tenantId: string, deploymentId: string, revisionId: string): Revision | undefined {
    const row = this.revisionRowInWorkspace(tenantId, deploymentId, revisionId);
    return row && row.id !== null ? toRevision(row) : undefined;
  }

  private revisionRowInWorkspace(tenantId: string, deploymentId: string, revisionId: string): RevisionRow | { id: null } | undefined {
    return prepared(this.db, REVISION_IN_WORKSPACE_SQL).get(revisionId, deploymentId, tenantId) as RevisionRow | { id: null } | undefined;
  }

  /** The API representation; `baseUrl` is the platform's own address, used when no custom URL is set. */
  toDeployment(record: DeploymentRecord, baseUrl: string): DeploymentAnswer {
    const names = prepared(this.db, 'SELECT name FROM cp_secrets WHERE deployment_id = ? ORDER BY position').all(
      record.id,
    ) as { name: string }[];
    return {
      id: record.id,
      tenant_id: record.tenantId,
      name: record.name,
      source: record.source,
      source_config: record.sourceConfig,
      source_revision_config: this.latestRevisionConfig(record),
      secrets: names,
      status: record.status,
      latest_revision_id: record.latestRevisionId,
      active_revision_id: record.activeRevisionId,
      url: record.sourceConfig.custom_url ?? `${baseUrl}/deployments/${record.id}`,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
    };
  }

  private secretsDiffer(deploymentId: string, wanted: { name: string; value: string }[]): boolean {
    const rows = prepared(this.db, 'SELECT name, sealed_value FROM cp_secrets WHERE deployment_id = ?').all(
      deploymentId,
    ) as { name: string; sealed_value: string }[];
    if (rows.length !== wanted.length) return true;
    const current = new Map(rows.map((row) => [row.name, row.sealed_value]));
    return wanted.some((secret) => {
      const sealed = current.get(secret.name);
      return sealed === undefined || this.secrets.decrypt(sealed) !== secret.value;
    });
  }

  private writeSecrets(deploymentId: string, secrets: { name: string; value: string }[]): void {
    prepared(this.db, 'DELETE FROM cp_secrets WHERE deployment_id = ?').run(deploymentId);
    const insert = prepared(
      this.db,
      'INSERT INTO cp_secrets (deployment_id, position, name, sealed_value) VALUES (?, ?, ?, ?)',
    );
    secrets.forEach((secret, position) =>
      insert.run(deploymentId, position, secret.name, this.secrets.encrypt(secret.value)),
    );
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
