/**
 * Starts and stops the local platform in-process: one HTTP server on loopback serving every module's surface, one
 * SQLite database in the data dir, the background workers of the modules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SandboxTemplateRecord as SandboxTemplate } from '../api/schemas/control-plane';
import { AUTH_MIGRATIONS, AuthStore, DEV_API_KEY_FILE, generateApiKey, keptDevApiKey, type CreatedOrganization } from './auth';
import { systemClock, type Clock } from './clock';
import { DEFAULT_PIPELINE_TIMINGS, type PipelineTimings } from './control-plane/pipeline';
import { controlPlaneModule } from './control-plane/routes';
import { lockDataDir, resetDataDir, restrictToOwner } from './data-dir';
import { migrate, openDatabase, type PlatformDatabase } from './db';
import type { ModuleContext, MountedModule, PlatformModule } from './module';
import { SandboxTemplateInput, SandboxTemplateStore } from './sandbox-templates';
import { SecretBox } from './secret-box';
import { createPlatformApp, listen } from './server';
import { FastRoutes } from './fast-routes';
import { escapeLogLine } from './log-line';
import { urlHostOf } from './bind-address';
import { createAgentServerModule, type AgentServerModuleOptions } from './agents/module';
import { createTracingModule, type TracingSettings } from './tracing/module';

/**
 * The modules of the platform, in migration and mount order: the agent servers write their traces into the
 * tracing module's tables, so tracing comes first.
 */
export function platformModules(options: Pick<LocalPlatformOptions, 'tracing' | 'agents'> = {}): PlatformModule[] {
  return [controlPlaneModule, createTracingModule(options.tracing), createAgentServerModule(options.agents)];
}

/** Options of `startLocalPlatform`. */
export interface LocalPlatformOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** Directory of the database and the other durable files; created when missing. */
  readonly dataDir: string;
  /**
   * API keys of the default organization. When given, the first is `devApiKey` and no key is generated.
   * @default a key generated once per data dir and kept in `<dataDir>/dev-api-key`
   */
  readonly apiKeys?: readonly string[];
  /** Wipe the data dir before starting. @default false */
  readonly reset?: boolean;
  /** Revision pipeline step durations and the delete delay. @default DEFAULT_PIPELINE_TIMINGS */
  readonly timings?: Partial<PipelineTimings>;
  /** Time source of every delay. @default systemClock */
  readonly clock?: Clock;
  /**
   * Receives one line per request and unexpected errors; never secrets. Control characters of a line (newlines
   * included) come escaped, so each call is one line. @default no output
   */
  readonly log?: (line: string) => void;
  /** Export engine settings (retry delay, timeouts, concurrency, Parquet sizes). @default the documented defaults */
  readonly tracing?: Partial<TracingSettings>;
  /** Agent server settings (run timeout). @default the documented defaults */
  readonly agents?: AgentServerModuleOptions;
}

/** In-process administration, for tests and the CLI. */
export interface LocalPlatformAdmin {
  /** Creates an organization with a default workspace and an API key. */
  createOrganization(name: string): CreatedOrganization;
  /** Adds a workspace to an organization; returns its tenant id. */
  createWorkspace(organizationId: string, name: string): string;
  /** Adds an API key to an organization (a new random one when `apiKey` is omitted); returns the key. */
  addApiKey(organizationId: string, apiKey?: string): string;
  /** Adds a sandbox template to a workspace, replacing the workspace's own template of the same name. */
  addSandboxTemplate(tenantId: string, template: SandboxTemplateInput): SandboxTemplate;
}

/** A running local platform. */
export interface LocalPlatform {
  /**
   * `http://127.0.0.1:<port>` by default: the bound address, or for an address of every interface (`0.0.0.0`, `::`)
   * one of the machine's external addresses (see bind-address.ts).
   */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** A key of the default organization (generated and persisted, or the first of `apiKeys`). */
  readonly devApiKey: string;
  /** The default organization's id. */
  readonly defaultOrganizationId: string;
  /** The default organization's default workspace. */
  readonly defaultTenantId: string;
  /** In-process administration. */
  readonly admin: LocalPlatformAdmin;
  /** How many requests the fast routes answered before the app (the hottest polls; see fast-routes.ts). */
  readonly fastAnswers: number;
  /** Stops the workers, the server and the database. Idempotent. */
  close(): Promise<void>;
}

function resolveTimings(overrides: Partial<PipelineTimings> | undefined): PipelineTimings {
  const timings = { ...DEFAULT_PIPELINE_TIMINGS, ...overrides };
  for (const [name, value] of Object.entries(timings)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`timing ${name} must be a non-negative number of milliseconds`);
    }
  }
  return timings;
}

/**
 * The data dir's dev key: the one kept in `dev-api-key`, else a new one, written whole or not at all. A file that
 * holds no usable key (emptied by a crash or a full disk while it was written) gets a new one.
 */
function devApiKeyOf(dataDir: string): string {
  const kept = keptDevApiKey(dataDir);
  if (kept) return kept;
  const file = path.join(dataDir, DEV_API_KEY_FILE);
  const key = generateApiKey();
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, `${key}\n`, { mode: 0o600 });
  fs.renameSync(partial, file);
  return key;
}

/** Starts the local platform; resolves once it accepts requests. */
export async function startLocalPlatform(options: LocalPlatformOptions): Promise<LocalPlatform> {
  const timings = resolveTimings(options.timings);
  const clock = options.clock ?? systemClock;
  // every line the platform logs, of every module, is escaped here: one entry, one line
  const given = options.log;
  const logLine = given && ((line: string) => given(escapeLogLine(line)));
  const log = logLine ?? (() => undefined);
  const host = options.host ?? '127.0.0.1';
  if (options.dataDir.trim() === '') throw new Error('the data dir must not be empty');
  const dataDir = path.resolve(options.dataDir);
  const unlock = lockDataDir(dataDir);
  let db: PlatformDatabase;
  try {
    if (options.reset) resetDataDir(dataDir);
    const restricted = restrictToOwner(dataDir);
    if (restricted.length > 0) log(`made ${restricted.join(', ')} readable by their owner only`);
    db = openDatabase(dataDir);
  } catch (err) {
    unlock();
    throw err;
  }
  const modules = platformModules(options);
  let mounted: MountedModule[] = [];
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  try {
    const migrations = [AUTH_MIGRATIONS, ...modules.map((m) => m.migrations)];
    // a start refused for its secret key leaves the data dir's schema as it was, for the version it came from
    SecretBox.checkBeforeMigrating(db, dataDir, migrations);
    migrate(db, migrations);
    const secrets = SecretBox.forDataDir(db, dataDir, migrations);
    const templates = new SandboxTemplateStore(db, clock, secrets);
    templates.sealPlaintextHeaders();
    const auth = new AuthStore(db, clock);
    const { organizationId, tenantId } = auth.defaultOrganization();
    const keys = options.apiKeys?.length ? [...options.apiKeys] : [devApiKeyOf(dataDir)];
    auth.setConfiguredKeys(organizationId, keys);

    let baseUrl: string | undefined;
    // the Date header follows a clock of the caller's (the HTTP server's own Date is the system clock already)
    const dateClock = clock === systemClock ? undefined : clock;
    const app = createPlatformApp({ log: logLine, clock: dateClock });
    const fastRoutes = new FastRoutes(logLine, dateClock);
    const ctx: ModuleContext = {
      db,
      clock,
      app,
      fastRoutes,
      auth,
      secrets,
      dataDir,
      timings,
      log,
      baseUrl: () => {
        if (baseUrl === undefined) throw new Error('the platform is not listening yet');
        return baseUrl;
      },
    };
    mounted = modules.map((module) => module.mount(ctx));
    const listening = (server = await listen(app, host, options.port ?? 0, fastRoutes));
    baseUrl = `http://${urlHostOf(host)}:${listening.port}`;
    for (const module of mounted) module.start?.();

    let closing: Promise<void> | undefined;
    return {
      url: baseUrl,
      port: listening.port,
      devApiKey: keys[0],
      defaultOrganizationId: organizationId,
      defaultTenantId: tenantId,
      admin: {
        createOrganization: (name) => auth.createOrganization(name),
        createWorkspace: (orgId, name) => auth.createWorkspace(orgId, name),
        addApiKey: (orgId, apiKey = generateApiKey()) => {
          auth.addApiKey(orgId, apiKey);
          return apiKey;
        },
        addSandboxTemplate: (tenant, template) => templates.add(tenant, SandboxTemplateInput.parse(template), true),
      },
      get fastAnswers() {
        return fastRoutes.answered;
      },
      close: () =>
        (closing ??= (async () => {
          for (const module of mounted) await module.stop?.();
          await listening.close();
          db.close();
          unlock();
        })()),
    };
  } catch (err) {
    // a failure after listen (a module's start) must not leave the port held and the process running
    for (const module of mounted) await module.stop?.();
    await server?.close();
    db.close();
    unlock();
    throw err;
  }
}
