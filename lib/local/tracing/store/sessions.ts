/**
 * Tracing projects ("sessions" on the wire): a uuid and a name unique within a workspace.
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
  created_at: string;
}

const toSession = (row: SessionRow): Session => ({ ...row, start_time: row.created_at });

/** The projects of every workspace. */
export class SessionStore {
  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
  ) {}

  /** Creates a project; 409 when the workspace already has one of that name or id. */
  create(tenantId: string, input: { id?: string; name: string; description?: string | null }): Session {
    if (this.findByName(tenantId, input.name)) {
      throw new HttpError(409, `A tracing project named "${input.name}" already exists in this workspace`);
    }
    const id = input.id ?? randomUUID();
    if (prepared(this.db, 'SELECT 1 FROM tracing_sessions WHERE id = ?').get(id)) {
      throw new HttpError(409, `A tracing project with id ${id} already exists`);
    }
    const row: SessionRow = {
      id,
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? null,
      created_at: new Date(this.clock.now()).toISOString(),
    };
    this.db
      .prepare('INSERT INTO tracing_sessions (id, tenant_id, name, description, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(row.id, row.tenant_id, row.name, row.description, row.created_at);
    return toSession(row);
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
