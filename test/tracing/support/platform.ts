/**
 * A local platform serving the tracing module over real HTTP on loopback, with its own data dir, clock and tracing
 * settings, plus a client for its default workspace and direct access to the tracing stores (to seed runs fast).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkExportClient } from '../../../lib/api/bulk-export';
import { localBulkExport, type LocalBulkExportClient } from '../../support/complete-answers';
import { AUTH_MIGRATIONS, AuthStore } from '../../../lib/local/auth';
import { systemClock, type Clock } from '../../../lib/local/clock';
import { DEFAULT_PIPELINE_TIMINGS } from '../../../lib/local/control-plane/pipeline';
import { migrate, openDatabase, type PlatformDatabase } from '../../../lib/local/db';
import { FastRoutes } from '../../../lib/local/fast-routes';
import type { MountedModule } from '../../../lib/local/module';
import { SecretBox } from '../../../lib/local/secret-box';
import { createPlatformApp, listen } from '../../../lib/local/server';
import { createTracingModule, createTracingStores, type TracingSettings, type TracingStores } from '../../../lib/local/tracing/module';

/** Options of {@link startTracingPlatform}. */
export interface TracingPlatformOptions {
  /** @default a new temporary directory */
  readonly dataDir?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default the documented defaults */
  readonly settings?: Partial<TracingSettings>;
  /** @default 0 */
  readonly port?: number;
}

/** A running platform for one test file. */
export interface TracingPlatform {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly apiKey: string;
  readonly tenantId: string;
  readonly organizationId: string;
  readonly auth: AuthStore;
  readonly stores: TracingStores;
  /** The platform's database, for tests that read or change stored rows directly. */
  readonly db: PlatformDatabase;
  /** The lines the platform logged. */
  readonly logs: string[];
  readonly client: LocalBulkExportClient;
  /** A client acting as another key/workspace. */
  clientFor(apiKey: string, tenantId?: string): LocalBulkExportClient;
  close(): Promise<void>;
}

export async function startTracingPlatform(options: TracingPlatformOptions = {}): Promise<TracingPlatform> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tracing-platform-'));
  const clock = options.clock ?? systemClock;
  const db = openDatabase(dataDir);
  const module = createTracingModule(options.settings);
  const migrations = [AUTH_MIGRATIONS, module.migrations];
  migrate(db, migrations);
  const auth = new AuthStore(db, clock);
  const { organizationId, tenantId } = auth.defaultOrganization();
  const apiKey = 'test-key-tracing-0001';
  auth.addApiKey(organizationId, apiKey);
  const secrets = SecretBox.forDataDir(db, dataDir, migrations);
  const app = createPlatformApp();
  let baseUrl = '';
  const logs: string[] = [];
  const mounted: MountedModule = module.mount({
    db,
    clock,
    app,
    fastRoutes: new FastRoutes(),
    auth,
    secrets,
    dataDir,
    timings: DEFAULT_PIPELINE_TIMINGS,
    log: (line) => logs.push(line),
    baseUrl: () => baseUrl,
  });
  const server = await listen(app, '127.0.0.1', options.port ?? 0);
  baseUrl = `http://127.0.0.1:${server.port}`;
  mounted.start?.();
  const clients: BulkExportClient[] = [];
  const clientFor = (key: string, tenant?: string) => {
    const client = new BulkExportClient({
      baseUrl,
      auth: { kind: 'api-key', apiKey: key, ...(tenant ? { tenantId: tenant } : {}) },
      retry: { maxRetries: 0 },
    });
    clients.push(client);
    return localBulkExport(client);
  };
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    port: server.port,
    dataDir,
    apiKey,
    tenantId,
    organizationId,
    auth,
    stores: createTracingStores(db, clock, secrets),
    db,
    logs,
    client: clientFor(apiKey, tenantId),
    clientFor,
    close: () =>
      (closing ??= (async () => {
        await mounted.stop?.();
        await Promise.all(clients.map((client) => client.close()));
        await server.close();
        db.close();
      })()),
  };
}

/**
 * Sends a request to the tracing API of `platform` as its workspace, and reads the JSON answer. A string body is sent
 * as it is (JSON no object literal can hold: deep nesting, keys such as `__proto__`).
 */
export async function sendJson(
  platform: TracingPlatform,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${platform.url}/api/v1${path}`, {
    method,
    headers: { 'x-api-key': platform.apiKey, 'x-tenant-id': platform.tenantId, 'content-type': 'application/json' },
    body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
