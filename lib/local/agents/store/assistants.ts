/**
 * Assistants of each deployment. Every graph a deployment serves has a default assistant (created on first use,
 * with a name-derived id and metadata `{"created_by": "system"}`, and again after it was deleted); its
 * `assistant_id` may also be given as the graph id. Assistant ids are each deployment's own: two deployments may hold
 * an assistant of the same id, and neither sees the other's.
 */
import { randomUUID } from 'node:crypto';
import type { Assistant, AssistantCreate, AssistantSearch, AssistantUpdate } from '../../../api/schemas/agent-server';
import type { Clock } from '../../clock';
import type { PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';
import { fromJson, holdsAll, isoNow, isUuid, uuidFromName } from './json';

interface AssistantRow {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: string;
  context: string;
  metadata: string;
  version: number;
  created_at: string;
  updated_at: string;
}

const toAssistant = (row: AssistantRow): Assistant => ({
  ...row,
  config: fromJson(row.config),
  context: fromJson(row.context),
  metadata: fromJson(row.metadata),
});

/** One recorded version of an assistant: its fields as that version wrote them, `created_at` when it did. */
export type AssistantVersion = Omit<Assistant, 'updated_at'>;

/** Assistants of all deployments. */
export class AssistantStore {
  private readonly seeded = new Set<string>();

  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock) {}

  /** The id of a graph's default assistant in a deployment. */
  static defaultAssistantId(deploymentId: string, graphId: string): string {
    return uuidFromName(deploymentId, `assistant:${graphId}`);
  }

  /** Creates the default assistant of each graph the deployment serves that has none (on first use, or deleted). */
  ensureDefaults(deploymentId: string, graphIds: readonly string[]): void {
    const key = `${deploymentId}/${graphIds.join(',')}`;
    if (this.seeded.has(key)) return;
    this.db.transaction(() => {
      for (const graphId of graphIds) this.ensureDefault(deploymentId, graphId);
    })();
    this.seeded.add(key);
  }

  private ensureDefault(deploymentId: string, graphId: string): void {
    if (this.defaultOf(deploymentId, graphId)) return;
    const assistantId = AssistantStore.defaultAssistantId(deploymentId, graphId);
    // an assistant of the derived id is the default from before defaults were recorded
    const holder = this.db
      .prepare('SELECT 1 FROM agent_assistants WHERE deployment_id = ? AND assistant_id = ?')
      .get(deploymentId, assistantId);
    if (!holder) {
      const now = isoNow(this.clock);
      this.db
        .prepare(
          `INSERT INTO agent_assistants
           (assistant_id, deployment_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at)
           VALUES (?, ?, ?, ?, NULL, '{}', '{}', '{"created_by":"system"}', 1, ?, ?)`,
        )
        .run(assistantId, deploymentId, graphId, graphId, now, now);
      this.recordVersion(deploymentId, assistantId);
    }
    this.db
      .prepare('INSERT INTO agent_default_assistants (deployment_id, graph_id, assistant_id) VALUES (?, ?, ?)')
      .run(deploymentId, graphId, assistantId);
  }

  /** The id of the default assistant of a graph of the deployment, if it has one. */
  private defaultOf(deploymentId: string, graphId: string): string | undefined {
    const row = this.db
      .prepare('SELECT assistant_id FROM agent_default_assistants WHERE deployment_id = ? AND graph_id = ?')
      .get(deploymentId, graphId) as { assistant_id: string } | undefined;
    return row?.assistant_id;
  }

  /** Finds an assistant by id, or a served graph's default assistant by graph id; 404 otherwise. */
  resolve(deploymentId: string, assistantIdOrGraph: string, graphIds: readonly string[]): Assistant {
    const assistant = this.find(deploymentId, assistantIdOrGraph, graphIds);
    if (!assistant) throw new HttpError(404, `Assistant ${assistantIdOrGraph} not found`);
    return assistant;
  }

  /** As {@link resolve}, undefined when there is no such assistant. */
  find(deploymentId: string, assistantIdOrGraph: string, graphIds: readonly string[]): Assistant | undefined {
    if (!isUuid(assistantIdOrGraph) && graphIds.includes(assistantIdOrGraph)) this.ensureDefault(deploymentId, assistantIdOrGraph);
    const id = isUuid(assistantIdOrGraph)
      ? assistantIdOrGraph.toLowerCase()
      : graphIds.includes(assistantIdOrGraph)
      ? this.defaultOf(deploymentId, assistantIdOrGraph)
      : undefined;
    const row = id
      ? (this.db
          .prepare('SELECT * FROM agent_assistants WHERE deployment_id = ? AND assistant_id = ?')
          .get(deploymentId, id) as AssistantRow | undefined)
      : undefined;
    return row && toAssistant(row);
  }

  /** Creates an assistant of a served graph; 409 when the id exists, unless `if_exists` is `do_nothing`. */
  create(deploymentId: string, body: AssistantCreate): Assistant {
    // ids are kept in lower case, as paths are read
    const assistantId = (body.assistant_id ?? randomUUID()).toLowerCase();
    const existing = this.db
      .prepare('SELECT * FROM agent_assistants WHERE deployment_id = ? AND assistant_id = ?')
      .get(deploymentId, assistantId) as AssistantRow | undefined;
    if (existing) {
      if (body.if_exists === 'do_nothing') return toAssistant(existing);
      throw new HttpError(409, `Assistant ${assistantId} already exists`);
    }
    const now = isoNow(this.clock);
    this.db
      .prepare(
        `INSERT INTO agent_assistants
         (assistant_id, deployment_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
      )
      .run(
        assistantId,
        deploymentId,
        body.graph_id,
        body.name ?? 'Untitled',
        body.description ?? null,
        JSON.stringify(body.config ?? {}),
        JSON.stringify(body.context ?? {}),
        JSON.stringify(body.metadata ?? {}),
        now,
        now,
      );
    this.recordVersion(deploymentId, assistantId);
    return this.get(deploymentId, assistantId);
  }

  /** Records the assistant's current row as its version. */
  private recordVersion(deploymentId: string, assistantId: string): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO agent_assistant_versions
         (deployment_id, assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
         SELECT deployment_id, assistant_id, version, graph_id, name, description, config, context, metadata, updated_at
         FROM agent_assistants WHERE deployment_id = ? AND assistant_id = ?`,
      )
      .run(deploymentId, assistantId);
  }

  /** The assistant's versions whose metadata holds `metadata`, newest first; 404 when it is not in the deployment. */
  versions(
    deploymentId: string,
    assistantId: string,
    query: { metadata?: Record<string, unknown>; limit?: number; offset?: number },
  ): AssistantVersion[] {
    this.get(deploymentId, assistantId);
    const rows = this.db
      .prepare('SELECT * FROM agent_assistant_versions WHERE deployment_id = ? AND assistant_id = ? ORDER BY version DESC')
      .all(deploymentId, assistantId) as Omit<AssistantRow, 'updated_at'>[];
    const offset = query.offset ?? 0;
    return rows
      .map((row) => ({ ...row, config: fromJson(row.config), context: fromJson(row.context), metadata: fromJson(row.metadata) }))
      .filter((version) => holdsAll(version.metadata as Record<string, unknown>, query.metadata))
      .slice(offset, offset + (query.limit ?? 10)) as AssistantVersion[];
  }

  /** Makes a recorded version the assistant's current one; 404 when the assistant or the version is not there. */
  setLatest(deploymentId: string, assistantId: string, version: number): Assistant {
    this.get(deploymentId, assistantId);
    const result = this.db
      .prepare(
        `UPDATE agent_assistants SET (graph_id, name, description, config, context, metadata, version) =
           (SELECT graph_id, name, description, config, context, metadata, version FROM agent_assistant_versions v
            WHERE v.deployment_id = agent_assistants.deployment_id AND v.assistant_id = agent_assistants.assistant_id
              AND v.version = ?),
         updated_at = ?
         WHERE deployment_id = ? AND assistant_id = ?
           AND EXISTS (SELECT 1 FROM agent_assistant_versions v WHERE v.deployment_id = ? AND v.assistant_id = ? AND v.version = ?)`,
      )
      .run(version, isoNow(this.clock), deploymentId, assistantId, deploymentId, assistantId, version);
    if (result.changes === 0) throw new HttpError(404, `Assistant ${assistantId} has no version ${version}`);
    return this.get(deploymentId, assistantId);
  }

  /** One assistant by id; 404 when it is not in the deployment. */
  get(deploymentId: string, assistantId: string): Assistant {
    const row = this.db
      .prepare('SELECT * FROM agent_assistants WHERE deployment_id = ? AND assistant_id = ?')
      .get(deploymentId, assistantId) as AssistantRow | undefined;
    if (!row) throw new HttpError(404, `Assistant ${assistantId} not found`);
    return toAssistant(row);
  }

  /**
   * Changes the given fields and merges `metadata` into a new version, one above the highest recorded (a version made
   * the latest again is not overwritten).
   */
  update(deploymentId: string, assistantId: string, body: AssistantUpdate): Assistant {
    const current = this.get(deploymentId, assistantId);
    this.db
      .prepare(
        `UPDATE agent_assistants SET graph_id = ?, name = ?, description = ?, config = ?, context = ?, metadata = ?,
         version = max(version, coalesce((SELECT max(v.version) FROM agent_assistant_versions v
           WHERE v.deployment_id = agent_assistants.deployment_id AND v.assistant_id = agent_assistants.assistant_id), 0)) + 1,
         updated_at = ? WHERE deployment_id = ? AND assistant_id = ?`,
      )
      .run(
        body.graph_id ?? current.graph_id,
        body.name ?? current.name,
        body.description === undefined ? current.description : body.description,
        JSON.stringify(body.config ?? current.config),
        JSON.stringify(body.context ?? current.context),
        JSON.stringify({ ...current.metadata, ...(body.metadata ?? {}) }),
        isoNow(this.clock),
        deploymentId,
        assistantId,
      );
    this.recordVersion(deploymentId, assistantId);
    return this.get(deploymentId, assistantId);
  }

  /** Deletes an assistant with its crons; 404 when it is not in the deployment. */
  delete(deploymentId: string, assistantId: string): void {
    this.db.transaction(() => {
      const result = this.db
        .prepare('DELETE FROM agent_assistants WHERE deployment_id = ? AND assistant_id = ?')
        .run(deploymentId, assistantId);
      if (result.changes === 0) throw new HttpError(404, `Assistant ${assistantId} not found`);
      // its crons go with it, rather than fire for nothing at every schedule (as a thread's do)
      this.db.prepare('DELETE FROM agent_crons WHERE deployment_id = ? AND assistant_id = ?').run(deploymentId, assistantId);
    })();
  }

  /**
   * Assistants of served graphs of the given graph, whose name contains `name` (ignoring case) and whose metadata
   * contains every given key/value, sorted as asked (oldest first by default): the page asked for, and how many match
   * in all.
   */
  search(deploymentId: string, graphIds: readonly string[], query: AssistantSearch): { page: Assistant[]; total: number } {
    const rows = this.db
      .prepare('SELECT * FROM agent_assistants WHERE deployment_id = ? ORDER BY created_at, rowid')
      .all(deploymentId) as AssistantRow[];
    const name = query.name?.toLowerCase();
    const matching = rows
      .map(toAssistant)
      .filter((assistant) => graphIds.includes(assistant.graph_id))
      .filter((assistant) => query.graph_id === undefined || assistant.graph_id === query.graph_id)
      .filter((assistant) => name === undefined || assistant.name.toLowerCase().includes(name))
      .filter((assistant) => holdsAll(assistant.metadata, query.metadata));
    const direction = query.sort_order === 'desc' ? -1 : 1;
    // a stable sort of the assistants in order of creation (newest first when descending): those equal by the key
    // (made in the same millisecond, say) keep that order
    if (direction < 0) matching.reverse();
    const key = query.sort_by;
    if (key) matching.sort((a, b) => direction * String(a[key]).localeCompare(String(b[key])));
    const offset = query.offset ?? 0;
    return { page: matching.slice(offset, offset + (query.limit ?? 10)), total: matching.length };
  }
}
