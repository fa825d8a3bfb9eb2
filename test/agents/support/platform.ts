/**
 * The local platform started in-process on port 0 for the agent server tests, with revision steps of a millisecond
 * (deployments reach DEPLOYED at once) and the agent server options a test needs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentServerClient } from '../../../lib/api/agent-server';
import { ControlPlaneClient } from '../../../lib/api/control-plane';
import { localControlPlane, type LocalControlPlaneClient } from '../../support/complete-answers';
import type { DeploymentRecord as Deployment } from '../../../lib/api/schemas/control-plane';
import type { AgentServerModuleOptions, AgentServerWaiting } from '../../../lib/local/agents/module';
import { generateApiKey, type CreatedOrganization } from '../../../lib/local/auth';
import { ManualClock, systemClock, type Clock } from '../../../lib/local/clock';
import { uniformStepTimings } from '../../../lib/local/control-plane/pipeline';
import { openDatabase, type PlatformDatabase } from '../../../lib/local/db';
import { startLocalPlatform } from '../../../lib/local/platform';
import { waitFor } from './wait';

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
  controlPlane(apiKey?: string): LocalControlPlaneClient;
  /** A client of a deployment's agent server. */
  client(deployment: Deployment, apiKey?: string): AgentServerClient;
  /**
   * Resolves once `count` requests in all have started to wait inside the agent server, since the platform started,
   * for this: run requests that took their place in the thread's line (`arrival`), or joins and waits that wait for
   * the run's end (`run-end`). A test acts on it rather than after a pause long enough for the request to arrive.
   */
  waiting(kind: AgentServerWaiting['kind'], id: string, count?: number): Promise<void>;
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

/** Starts a test platform: the real `startLocalPlatform`, with a second connection to its database for assertions. */
export async function startAgentTestPlatform(options: AgentTestPlatformOptions = {}): Promise<AgentTestPlatform> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-test-'));
  const clock = options.clock ?? systemClock;
  const keyFile = path.join(dataDir, 'test-api-key');
  const apiKey = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8') : generateApiKey();
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(keyFile, apiKey);
  const { clock: _clock, dataDir: _dataDir, ...agents } = options;
  const waited = new Map<string, number>();
  const onWaiting = (event: AgentServerWaiting): void => {
    const key = `${event.kind}:${event.kind === 'arrival' ? event.threadId : event.runId}`;
    waited.set(key, (waited.get(key) ?? 0) + 1);
    options.onWaiting?.(event);
  };
  const platform = await startLocalPlatform({
    dataDir,
    clock,
    apiKeys: [apiKey],
    timings: { ...uniformStepTimings(1), deleteDelayMs: 10 },
    agents: { ...agents, onWaiting },
  });
  const db = openDatabase(dataDir);
  const baseUrl = platform.url;
  const clients: { close(): Promise<void> }[] = [];

  const controlPlane = (key: string) => {
    const client = new ControlPlaneClient({ baseUrl, auth: { kind: 'api-key', apiKey: key } });
    clients.push(client);
    return localControlPlane(client);
  };

  return {
    url: baseUrl,
    apiKey,
    db,
    createOrganization: (name) => platform.admin.createOrganization(name),
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
    async waiting(kind, id, count = 1) {
      await waitFor(() => (waited.get(`${kind}:${id}`) ?? 0) >= count);
    },
    async close() {
      for (const client of clients) await client.close();
      db.close();
      await platform.close();
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
