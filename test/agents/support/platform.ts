/**
 * A local platform with the agent server module, started in-process on port 0 for the agent server tests: the
 * control plane (deployments reach DEPLOYED in milliseconds), the trace store's tables and the agent servers,
 * assembled the way `startLocalPlatform` assembles its modules, with the agent server options a test needs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentServerClient } from '../../../lib/api/agent-server';
import { ControlPlaneClient } from '../../../lib/api/control-plane';
import type { Deployment } from '../../../lib/api/schemas/control-plane';
import { createAgentServerModule, type AgentServerModuleOptions } from '../../../lib/local/agents/module';
import { AUTH_MIGRATIONS, AuthStore, generateApiKey, type CreatedOrganization } from '../../../lib/local/auth';
import { ManualClock, systemClock, type Clock } from '../../../lib/local/clock';
import { uniformStepTimings } from '../../../lib/local/control-plane/pipeline';
import { controlPlaneModule } from '../../../lib/local/control-plane/routes';
import { migrate, openDatabase, type PlatformDatabase } from '../../../lib/local/db';
import type { ModuleContext, MountedModule } from '../../../lib/local/module';
import { SecretBox } from '../../../lib/local/secret-box';
import { createPlatformApp, listen } from '../../../lib/local/server';
import { TRACING_MIGRATIONS } from '../../../lib/local/tracing/store/migrations';

/** A running test platform. */
export interface AgentTestPlatform {
  readonly url: string;
  /** Key of the default organization. */
  readonly apiKey: string;
  /** The database, for assertions on what was stored. */
  readonly db: PlatformDatabase;
  /** Creates another organization with its own key. */
  createOrganization(name: string): CreatedOrganization;
  /** Creates a deployment through the control plane and waits until it is DEPLOYED. */
  deploy(name: string, graphConfigPath?: string, apiKey?: string): Promise<Deployment>;
  /** A control plane client (closed with the platform). */
  controlPlane(apiKey?: string): ControlPlaneClient;
  /** A client of a deployment's agent server. */
  client(deployment: Deployment, apiKey?: string): AgentServerClient;
  /** Stops everything and removes the data dir. */
  close(): Promise<void>;
}

/** Options of a test platform: the agent server module's, plus the clock and an existing data dir. */
export interface AgentTestPlatformOptions extends AgentServerModuleOptions {
  /** @default the system clock */
  readonly clock?: Clock;
  /** A data dir to (re)open and keep on close. @default a new temporary one, removed on close */
  readonly dataDir?: string;
}

/** Starts a test platform. */
export async function startAgentTestPlatform(options: AgentTestPlatformOptions = {}): Promise<AgentTestPlatform> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-test-'));
  const clock = options.clock ?? systemClock;
  const db = openDatabase(dataDir);
  const agentModule = createAgentServerModule(options);
  const modules = [controlPlaneModule, agentModule];
  migrate(db, [AUTH_MIGRATIONS, controlPlaneModule.migrations, TRACING_MIGRATIONS, agentModule.migrations]);
  const auth = new AuthStore(db, clock);
  const { organizationId } = auth.defaultOrganization();
  const keyFile = path.join(dataDir, 'test-api-key');
  const apiKey = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8') : generateApiKey();
  fs.writeFileSync(keyFile, apiKey);
  auth.addApiKey(organizationId, apiKey);
  const app = createPlatformApp();
  let baseUrl = '';
  const ctx: ModuleContext = {
    db,
    clock,
    app,
    auth,
    secrets: SecretBox.forDataDir(dataDir),
    dataDir,
    timings: { ...uniformStepTimings(1), deleteDelayMs: 10 },
    log: () => undefined,
    baseUrl: () => baseUrl,
  };
  const mounted: MountedModule[] = modules.map((module) => module.mount(ctx));
  const server = await listen(app, '127.0.0.1', 0);
  baseUrl = `http://127.0.0.1:${server.port}`;
  for (const module of mounted) module.start?.();
  const clients: { close(): Promise<void> }[] = [];

  const controlPlane = (key: string) => {
    const client = new ControlPlaneClient({ baseUrl, auth: { kind: 'api-key', apiKey: key } });
    clients.push(client);
    return client;
  };

  return {
    url: baseUrl,
    apiKey,
    db,
    createOrganization: (name) => auth.createOrganization(name),
    controlPlane: (key = apiKey) => controlPlane(key),
    async deploy(name, graphConfigPath, key = apiKey) {
      const cp = controlPlane(key);
      const created = await cp.createDeployment({
        name,
        source: 'github',
        source_config: { repo_url: 'https://github.com/example/agents', build_on_push: false },
        source_revision_config: { repo_ref: 'main', graph_config_path: graphConfigPath ?? null },
      });
      for (;;) {
        const revision = await cp.getRevision(created.id, created.latest_revision_id as string);
        if (revision.status === 'DEPLOYED') return cp.getDeployment(created.id);
        if (revision.status.endsWith('FAILED')) throw new Error(`deployment ${name} ended in ${revision.status}`);
        // A manual clock only moves when told: the pipeline's step timers need it to.
        if (clock instanceof ManualClock) clock.advance(1);
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    client(deployment, key = apiKey) {
      const client = new AgentServerClient({
        baseUrl: deployment.url as string,
        auth: { kind: 'api-key', apiKey: key },
        retry: { maxRetries: 0 },
      });
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      for (const module of mounted) await module.stop?.();
      await server.close();
      db.close();
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
