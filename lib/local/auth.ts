/**
 * Organizations, their workspaces (tenant ids) and API keys. A key belongs to an organization and may act in any of
 * its workspaces; `X-Tenant-Id` picks one, else the organization's default workspace. The database keeps SHA-256
 * hashes of the keys only.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MiddlewareHandler } from 'hono';
import type { Clock } from './clock';
import { prepared, type MigrationSet, type PlatformDatabase } from './db';
import { HttpError } from './errors';
import { nodeBindingsOf, type PlatformEnv, type Principal } from './platform-env';

/** What `createOrganization` returns. */
export interface CreatedOrganization {
  /** The new organization's id. */
  readonly organizationId: string;
  /** A new API key of the organization (shown once; only its hash is kept). */
  readonly apiKey: string;
  /** Its workspaces; the first is the default one. */
  readonly tenantIds: string[];
}

export const AUTH_MIGRATIONS: MigrationSet = {
  module: 'auth',
  migrations: [
    {
      id: '001-organizations',
      up: `
        CREATE TABLE organizations (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          created_at TEXT NOT NULL
        );
        CREATE TABLE workspaces (
          id TEXT PRIMARY KEY,
          organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          is_default INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL,
          UNIQUE (organization_id, name)
        );
        CREATE TABLE api_keys (
          key_hash TEXT PRIMARY KEY,
          organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
          created_at TEXT NOT NULL
        );
        CREATE TABLE platform_settings (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );`,
    },
    {
      // keys from the platform's configuration (--api-key, AGENTPLATFORM_LOCAL_API_KEYS, the dev key) are revoked when
      // they leave it. Of the keys a data dir had before, only its dev key is known to be one; the others may have been
      // added with addApiKey, and stay as added keys do (a start that is given them again takes them as configured)
      id: '002-configured-api-keys',
      up: (db) => {
        db.exec('ALTER TABLE api_keys ADD COLUMN configured INTEGER NOT NULL DEFAULT 0');
        // the database file lies in its data dir, beside the dev key file
        const devKey = db.memory ? undefined : keptDevApiKey(path.dirname(db.name));
        if (devKey) db.prepare('UPDATE api_keys SET configured = 1 WHERE key_hash = ?').run(hashKey(devKey));
      },
    },
  ],
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_ORGANIZATION_SETTING = 'default_organization_id';

/** The shortest API key the platform takes. */
export const MIN_API_KEY_LENGTH = 8;

/** The file (in the data dir) that keeps the generated dev API key across restarts. */
export const DEV_API_KEY_FILE = 'dev-api-key';

/** The dev key kept in a data dir; undefined when there is none (no file, or one emptied by a crash while written). */
export function keptDevApiKey(dataDir: string): string | undefined {
  const file = path.join(dataDir, DEV_API_KEY_FILE);
  const kept = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  return kept.length >= MIN_API_KEY_LENGTH ? kept : undefined;
}

/** A new random API key (`lp_` + 32 random bytes, base64url). */
export const generateApiKey = (): string => `lp_${randomBytes(32).toString('base64url')}`;

const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The organization/workspace/key store and the request authenticator. */
export class AuthStore {
  // Keys, organizations and workspaces are never removed or reassigned, so what was found once stays true; the
  // caches take these lookups (and the hashing of the key) off every request. Only keys that exist are cached, so
  // the cache holds no more entries than the database holds keys.
  private readonly keyOwners = new Map<string, string>();
  private readonly defaultWorkspaces = new Map<string, string>();

  constructor(private readonly db: PlatformDatabase, private readonly clock: Clock) {}

  /** Creates an organization with one default workspace and one API key. */
  createOrganization(name: string): CreatedOrganization {
    const organizationId = randomUUID();
    const apiKey = generateApiKey();
    return this.db.transaction(() => {
      prepared(this.db, 'INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(
        organizationId,
        name,
        this.timestamp(),
      );
      const tenantId = this.insertWorkspace(organizationId, 'default', true);
      this.addApiKey(organizationId, apiKey);
      return { organizationId, apiKey, tenantIds: [tenantId] };
    })();
  }

  /** Adds a workspace to an organization; returns its tenant id. */
  createWorkspace(organizationId: string, name: string): string {
    if (!prepared(this.db, 'SELECT 1 FROM organizations WHERE id = ?').get(organizationId)) {
      throw new Error(`organization ${organizationId} does not exist`);
    }
    return this.insertWorkspace(organizationId, name, false);
  }

  /** Lets `apiKey` act for the organization. Adding a key the organization already has is a no-op. */
  addApiKey(organizationId: string, apiKey: string): void {
    if (apiKey.length < MIN_API_KEY_LENGTH) throw new Error(`an API key must have at least ${MIN_API_KEY_LENGTH} characters`);
    const hash = hashKey(apiKey);
    const owner = prepared(this.db, 'SELECT organization_id FROM api_keys WHERE key_hash = ?').get(hash) as
      | { organization_id: string }
      | undefined;
    if (owner && owner.organization_id !== organizationId) {
      throw new Error('this API key already belongs to another organization');
    }
    if (!owner) {
      prepared(this.db, 'INSERT INTO api_keys (key_hash, organization_id, created_at, configured) VALUES (?, ?, ?, 0)').run(
        hash,
        organizationId,
        this.timestamp(),
      );
    }
  }

  /**
   * Makes `apiKeys` the configured keys of the organization: each is added (or kept), and every key configured before
   * but not now is revoked, so a key taken out of the configuration (a leaked one) stops working at the next start.
   * Keys added otherwise (`addApiKey`) are left alone.
   */
  setConfiguredKeys(organizationId: string, apiKeys: readonly string[]): void {
    this.db.transaction(() => {
      for (const apiKey of apiKeys) {
        this.addApiKey(organizationId, apiKey);
        prepared(this.db, 'UPDATE api_keys SET configured = 1 WHERE key_hash = ?').run(hashKey(apiKey));
      }
      const kept = new Set(apiKeys.map(hashKey));
      const configured = prepared(this.db, 'SELECT key_hash FROM api_keys WHERE configured = 1 AND organization_id = ?')
        .pluck()
        .all(organizationId) as string[];
      for (const hash of configured.filter((h) => !kept.has(h))) prepared(this.db, 'DELETE FROM api_keys WHERE key_hash = ?').run(hash);
    })();
    this.keyOwners.clear();
  }

  /** The organization and default workspace created on the first start of a data dir. */
  defaultOrganization(): { organizationId: string; tenantId: string } {
    const setting = prepared(this.db, 'SELECT value FROM platform_settings WHERE name = ?').get(
      DEFAULT_ORGANIZATION_SETTING,
    ) as { value: string } | undefined;
    if (setting) return { organizationId: setting.value, tenantId: this.defaultWorkspaceOf(setting.value) };
    return this.db.transaction(() => {
      const organizationId = randomUUID();
      prepared(this.db, 'INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(
        organizationId,
        'default',
        this.timestamp(),
      );
      const tenantId = this.insertWorkspace(organizationId, 'default', true);
      prepared(this.db, 'INSERT INTO platform_settings (name, value) VALUES (?, ?)').run(
        DEFAULT_ORGANIZATION_SETTING,
        organizationId,
      );
      return { organizationId, tenantId };
    })();
  }

  /** The organization owning a workspace, or undefined for an unknown tenant id. */
  organizationOfTenant(tenantId: string): string | undefined {
    const row = prepared(this.db, 'SELECT organization_id FROM workspaces WHERE id = ?').get(tenantId) as
      | { organization_id: string }
      | undefined;
    return row?.organization_id;
  }

  /**
   * Resolves the caller of a request. Throws 401 without a known key, 403 when `tenantHeader` names a workspace the
   * key's organization does not own.
   */
  authenticate(apiKey: string | undefined, tenantHeader: string | undefined): Principal {
    if (!apiKey) {
      throw new HttpError(401, 'Missing API key: send it in the X-Api-Key header or as "Authorization: Bearer <key>"');
    }
    const organizationId = this.organizationOfKey(apiKey);
    if (!organizationId) throw new HttpError(401, 'Invalid API key');
    if (tenantHeader === undefined || tenantHeader === '') {
      return { organizationId, tenantId: this.defaultWorkspaceOf(organizationId) };
    }
    if (!UUID_PATTERN.test(tenantHeader)) {
      throw new HttpError(403, 'X-Tenant-Id must be the id (a uuid) of a workspace of your organization');
    }
    const tenantId = tenantHeader.toLowerCase();
    if (this.organizationOfTenant(tenantId) !== organizationId) {
      throw new HttpError(403, `This API key may not use workspace ${tenantId}`);
    }
    return { organizationId, tenantId };
  }

  private organizationOfKey(apiKey: string): string | undefined {
    let organizationId = this.keyOwners.get(apiKey);
    if (organizationId === undefined) {
      const row = prepared(this.db, 'SELECT organization_id FROM api_keys WHERE key_hash = ?').get(hashKey(apiKey)) as
        | { organization_id: string }
        | undefined;
      organizationId = row?.organization_id;
      if (organizationId !== undefined) this.keyOwners.set(apiKey, organizationId);
    }
    return organizationId;
  }

  private defaultWorkspaceOf(organizationId: string): string {
    let workspaceId = this.defaultWorkspaces.get(organizationId);
    if (workspaceId === undefined) {
      const row = prepared(
        this.db,
        'SELECT id FROM workspaces WHERE organization_id = ? ORDER BY is_default DESC, created_at LIMIT 1',
      ).get(organizationId) as { id: string } | undefined;
      if (!row) throw new Error(`organization ${organizationId} has no workspace`);
      this.defaultWorkspaces.set(organizationId, (workspaceId = row.id));
    }
    return workspaceId;
  }

  private insertWorkspace(organizationId: string, name: string, isDefault: boolean): string {
    const id = randomUUID();
    prepared(
      this.db,
      'INSERT INTO workspaces (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(id, organizationId, name, isDefault ? 1 : 0, this.timestamp());
    return id;
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** The API key of a request: `X-Api-Key` (any case), else `Authorization: Bearer <key>`. */
export function apiKeyOf(header: (name: string) => string | undefined): string | undefined {
  const direct = header('x-api-key');
  if (direct) return direct;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header('authorization') ?? '');
  return match?.[1];
}

/** Middleware that authenticates the request and sets `principal`; use it per route so unknown routes stay 404. */
export function requireApiKey(auth: AuthStore): MiddlewareHandler<PlatformEnv> {
  return (c, next) => {
    const incoming = nodeBindingsOf(c)?.incoming;
    // Node joins repeated headers with ", " as `Headers.get` does, except `authorization`, whose repeats it drops:
    // that one is always read the fetch way, so a request is judged the same whichever way the app is called.
    const header = (name: string): string | undefined => {
      if (!incoming || name === 'authorization') return c.req.header(name);
      const value = incoming.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    c.set('principal', auth.authenticate(apiKeyOf(header), header('x-tenant-id')));
    return next();
  };
}
