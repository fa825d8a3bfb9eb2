/**
 * Tracing projects ("sessions" on the wire): a uuid and a name unique within a workspace, a description, and `extra`
 * (LangSmith's: `metadata` and anything else a client keeps there).
 */
import { randomUUID } from 'node:crypto';
import type { SessionRecord as Session } from '../../../api/schemas/tracing';
import type { Clock } from '../../clock';
import { prepared, type PlatformDatabase } from '../../db';
import { HttpError } from '../../errors';

interface SessionRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  extra: string | null;
  created_at: string;
}

type Extra = Record<string, unknown>;

const toSession = (row: SessionRow): Session => ({
  ...row,
  extra: row.extra === null ? null : (JSON.parse(row.extra) as Extra),
  start_time: row.created_at,
});

const nameTaken = (name: string) => new HttpError(409, `A tracing project named "${name}" already exists in this workspace`);

/** The projects of every workspace. */
export class SessionStore {
  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
  ) {}

  /** Creates a project; 409 when the workspace already has one of that name or id. */
  create(tenantId: string, input: { id?: string; name: string; description?: string | null; extra?: Extra | null }): Session {
    if (this.findByName(tenantId, input.name)) throw nameTaken(input.name);
    const id = input.id ?? randomUUID();
    if (prepared(this.db, 'SELECT 1 FROM tracing_sessions WHERE id = ?').get(id)) {
      throw new HttpError(409, `A tracing project with id ${id} already exists`);
    }
    const row: SessionRow = {
      id,
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? null,
      extra: input.extra == null ? null : JSON.stringify(input.extra),
      created_at: new Date(this.clock.now()).toISOString(),
    };
    this.db
      .prepare('INSERT INTO tracing_sessions (id, tenant_id, name, description, extra, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(row.id, row.tenant_id, row.name, row.description, row.extra, row.created_at);
    return toSession(row);
  }

  /**
   * Changes the fields given (`null` clears a description or `extra`); 409 when the new name is another project's.
   * Undefined when the workspace has no such project.
   */
  update(tenantId: string, id: string, changes: { name?: string; description?: string | null; extra?: Extra | null }): Session | undefined {
    const session = this.get(tenantId, id);
    if (!session) return undefined;
    const name = changes.name ?? session.name;
    const holder = name === session.name ? undefined : this.findByName(tenantId, name);
    if (holder) throw nameTaken(name);
    const description = changes.description === undefined ? session.description : changes.description;
    const extra = changes.extra === undefined ? session.extra : changes.extra;
    prepared(this.db, 'UPDATE tracing_sessions SET name = ?, description = ?, extra = ? WHERE id = ?').run(
      name,
      description,
      extra === null ? null : JSON.stringify(extra),
      id,
    );
    return this.get(tenantId, id);
  }

  /** Deletes the project and its runs (the runs' foreign key cascades); false when the workspace has no such project. */
  delete(tenantId: string, id: string): boolean {
    return prepared(this.db, 'DELETE FROM tracing_sessions WHERE id = ? AND tenant_id = ?').run(id, tenantId).changes > 0;
  }

  /** The project with this id in the workspace, or undefined. */
  get(tenantId: string, id: string): Session | undefined {
    const row = prepared(this.db, 'SELECT * FROM tracing_sessions WHERE id = ? AND tenant_id = ?').get(id, tenantId) as
      | SessionRow
      | undefined;
    return row && toSession(row);
  }

  /** The project with this name in the workspace, or undefined. */
  findByName(tenantId: string, name: string): Session | undefined {
    const row = this.db
      .prepare('SELECT * FROM tracing_sessions WHERE tenant_id = ? AND name = ?')
      .get(tenantId, name) as SessionRow | undefined;
    return row && toSession(row);
  }

  /** The project named `name`, created when the workspace has none yet (runs may name their project). */
  getOrCreateByName(tenantId: string, name: string): Session {
    return this.findByName(tenantId, name) ?? this.create(tenantId, { name });
  }

  /** Every project of the workspace, oldest first, optionally only the one named `name`. */
  list(tenantId: string, name?: string): Session[] {
    const rows = (
      name === undefined
        ? prepared(this.db, 'SELECT * FROM tracing_sessions WHERE tenant_id = ? ORDER BY created_at, id').all(tenantId)
        : prepared(this.db, 'SELECT * FROM tracing_sessions WHERE tenant_id = ? AND name = ?').all(tenantId, name)
    ) as SessionRow[];
    return rows.map(toSession);
  }
}
