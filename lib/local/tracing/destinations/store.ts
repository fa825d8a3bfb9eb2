/**
 * Export destinations of every workspace. Credentials are sealed with the platform's secret box (AES-256-GCM) and
 * never leave this module except to build an S3 client; responses name only the keys that were given.
 */
import { randomUUID } from 'node:crypto';
import {
  DestinationConfig,
  DestinationCredentials,
  type DestinationRecord,
} from '../../../api/schemas/bulk-export';
import type { Clock } from '../../clock';
import { prepared, type PlatformDatabase } from '../../db';
import type { SecretBox } from '../../secret-box';

interface DestinationRow {
  id: string;
  tenant_id: string;
  destination_type: 's3';
  display_name: string;
  config: string;
  credentials_ciphertext: string | null;
  credentials_keys: string;
  created_at: string;
  updated_at: string;
}

/** A destination with what the worker needs to reach it. */
export interface ResolvedDestination {
  /** The API view. */
  readonly destination: DestinationRecord;
  /** Decrypted credentials, or null for the host's environment credentials. */
  readonly credentials: DestinationCredentials | null;
}

const keysOf = (credentials: DestinationCredentials | null): string[] =>
  credentials ? Object.keys(credentials).filter((key) => credentials[key as keyof DestinationCredentials] != null) : [];

const toDestination = (row: DestinationRow): DestinationRecord => ({
  id: row.id,
  tenant_id: row.tenant_id,
  destination_type: row.destination_type,
  display_name: row.display_name,
  config: fullConfig(DestinationConfig.parse(JSON.parse(row.config))),
  credentials_keys: JSON.parse(row.credentials_keys) as string[],
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** Every field of a config, with its default when it was not given (or given as null). */
const fullConfig = (config: DestinationConfig): DestinationConfig => ({
  ...config,
  region: config.region ?? null,
  endpoint_url: config.endpoint_url ?? null,
  include_bucket_in_prefix: config.include_bucket_in_prefix ?? false,
});

/** The destinations table. */
export class DestinationStore {
  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
  ) {}

  /** Stores a validated destination. */
  create(
    tenantId: string,
    input: { display_name: string; config: DestinationConfig; credentials: DestinationCredentials | null },
  ): DestinationRecord {
    const now = new Date(this.clock.now()).toISOString();
    const row: DestinationRow = {
      id: randomUUID(),
      tenant_id: tenantId,
      destination_type: 's3',
      display_name: input.display_name,
      config: JSON.stringify(input.config),
      credentials_ciphertext: this.seal(input.credentials),
      credentials_keys: JSON.stringify(keysOf(input.credentials)),
      created_at: now,
      updated_at: now,
    };
    this.db
      .prepare(
        `INSERT INTO bulk_export_destinations
           (id, tenant_id, destination_type, display_name, config, credentials_ciphertext, credentials_keys, created_at, updated_at)
         VALUES (@id, @tenant_id, @destination_type, @display_name, @config, @credentials_ciphertext, @credentials_keys, @created_at, @updated_at)`,
      )
      .run(row);
    return toDestination(row);
  }

  /** The destination in the workspace, or undefined. */
  get(tenantId: string, id: string): DestinationRecord | undefined {
    const row = this.row(id);
    return row && row.tenant_id === tenantId ? toDestination(row) : undefined;
  }

  /** Every destination of the workspace, oldest first. */
  list(tenantId: string): DestinationRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM bulk_export_destinations WHERE tenant_id = ? ORDER BY created_at, id')
      .all(tenantId) as DestinationRow[];
    return rows.map(toDestination);
  }

  /** Replaces the credentials (already validated). */
  updateCredentials(id: string, credentials: DestinationCredentials): DestinationRecord {
    this.db
      .prepare(
        'UPDATE bulk_export_destinations SET credentials_ciphertext = ?, credentials_keys = ?, updated_at = ? WHERE id = ?',
      )
      .run(this.seal(credentials), JSON.stringify(keysOf(credentials)), new Date(this.clock.now()).toISOString(), id);
    return toDestination(this.row(id)!);
  }

  /** The destination with its decrypted credentials, for the export worker; undefined when it no longer exists. */
  resolve(id: string): ResolvedDestination | undefined {
    const row = this.row(id);
    if (!row) return undefined;
    const credentials =
      row.credentials_ciphertext === null
        ? null
        : DestinationCredentials.parse(JSON.parse(this.secrets.decrypt(row.credentials_ciphertext)));
    return { destination: toDestination(row), credentials };
  }

  private row(id: string): DestinationRow | undefined {
    return prepared(this.db, 'SELECT * FROM bulk_export_destinations WHERE id = ?').get(id) as DestinationRow | undefined;
  }

  private seal(credentials: DestinationCredentials | null): string | null {
    return credentials ? this.secrets.encrypt(JSON.stringify(credentials)) : null;
  }
}
