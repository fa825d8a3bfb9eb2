/**
 * The tracing module of the local platform: the trace store, export destinations and bulk exports under
 * `/api/v1`, and the export engine that writes Parquet to the destinations' buckets.
 */
import { Hono } from 'hono';
import { requireApiKey } from '../auth';
import type { Clock } from '../clock';
import type { PlatformDatabase } from '../db';
import type { ModuleContext, MountedModule, PlatformModule } from '../module';
import type { SecretBox } from '../secret-box';
import type { PlatformEnv } from '../platform-env';
import type { S3ClientLimits } from './destinations/s3';
import { DestinationStore } from './destinations/store';
import { DEFAULT_EXPORT_ENGINE_SETTINGS, ExportEngine, type ExportEngineSettings } from './exports/engine';
import { ExportStore } from './exports/store';
import { destinationRoutes } from './routes/destinations';
import { exportRoutes } from './routes/exports';
import { traceStoreRoutes } from './routes/trace-store';
import { TRACING_IDEMPOTENCY_TABLE, TRACING_MIGRATIONS } from './store/migrations';
import { IdempotencyKeys } from '../idempotency';
import { RunStore } from './store/runs';
import { SessionStore } from './store/sessions';

/** Settings of the tracing module; every field has the platform's documented default. */
export interface TracingSettings extends Omit<ExportEngineSettings, 'writer'> {
  /** Parquet and upload sizes (partial overrides allowed). */
  readonly writer: Partial<ExportEngineSettings['writer']>;
  /**
   * Network limits of destination validation requests.
   * @default 5 s to connect, 60 s per request
   */
  readonly validationLimits: S3ClientLimits;
}

/** The stores of the module, for in-process use (the synthetic generator, the agent servers' tracing). */
export interface TracingStores {
  /** Tracing projects. */
  readonly sessions: SessionStore;
  /** Runs. */
  readonly runs: RunStore;
  /** Export destinations. */
  readonly destinations: DestinationStore;
  /** Exports and export runs. */
  readonly exports: ExportStore;
}

/** Creates the stores of the tracing module over a migrated database. */
export function createTracingStores(db: PlatformDatabase, clock: Clock, secrets: SecretBox): TracingStores {
  const sessions = new SessionStore(db, clock);
  return {
    sessions,
    runs: new RunStore(db, sessions),
    destinations: new DestinationStore(db, clock, secrets),
    exports: new ExportStore(db, clock),
  };
}

/** Resolves partial settings against the defaults. */
export function resolveTracingSettings(overrides: Partial<TracingSettings> = {}): ExportEngineSettings & Pick<TracingSettings, 'validationLimits'> {
  const { writer, validationLimits, ...engine } = overrides;
  const settings = {
    ...DEFAULT_EXPORT_ENGINE_SETTINGS,
    ...engine,
    writer: { ...DEFAULT_EXPORT_ENGINE_SETTINGS.writer, ...writer },
    validationLimits: validationLimits ?? {},
  };
  for (const [name, value] of Object.entries(engine)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`tracing setting ${name} must be a non-negative number`);
    }
  }
  return settings;
}

/** The module with the given settings. */
export function createTracingModule(overrides: Partial<TracingSettings> = {}): PlatformModule {
  const settings = resolveTracingSettings(overrides);
  return {
    migrations: TRACING_MIGRATIONS,
    mount(ctx: ModuleContext): MountedModule {
      const stores = createTracingStores(ctx.db, ctx.clock, ctx.secrets);
      const engine = new ExportEngine(stores.exports, stores.runs, stores.destinations, ctx.clock, settings, ctx.log);
      const auth = requireApiKey(ctx.auth);
      const idempotencyKeys = new IdempotencyKeys(ctx.db, TRACING_IDEMPOTENCY_TABLE, ctx.clock, ctx.secrets);
      const api = new Hono<PlatformEnv>();
      api.route('/', traceStoreRoutes({ auth, engine, idempotencyKeys, ...stores }));
      // destinations first: `/bulk-exports/destinations` must not be taken for an export id
      api.route('/', destinationRoutes({ auth, destinations: stores.destinations, s3Limits: settings.validationLimits, idempotencyKeys }));
      api.route('/', exportRoutes({ auth, engine, clock: ctx.clock, idempotencyKeys, ...stores }));
      ctx.app.route('/api/v1', api);
      return { start: () => engine.start(), stop: () => engine.stop() };
    },
  };
}

/** The module with the platform's documented defaults. */
export const tracingModule: PlatformModule = createTracingModule();
