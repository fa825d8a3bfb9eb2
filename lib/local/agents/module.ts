/**
 * The agent servers of the local platform: every deployment with a DEPLOYED revision serves the agent server API
 * under `/deployments/<id>` on the platform's port, with the built-in graphs its `graph_config_path` selects. Runs
 * are traced into the tracing project named after the deployment.
 */
import { Hono } from 'hono';
import type { MountedModule, PlatformModule } from '../module';
import type { PlatformApp } from '../platform-env';
import { RunStore as TraceRunStore } from '../tracing/store/runs';
import { SessionStore } from '../tracing/store/sessions';
import { CronScheduler } from './cron/cron-scheduler';
import { CronStore, type StoredCron } from './cron/cron-store';
import { DeploymentDirectory } from './http/deployment-directory';
import type { AgentServerDeps, AgentServerEnv } from './http/env';
import { deploymentGate } from './http/gate';
import { registerAssistantRoutes } from './http/assistant-routes';
import { registerCronRoutes } from './http/cron-routes';
import { registerRunBatchRoutes } from './http/run-batch-routes';
import { registerRunRoutes } from './http/run-routes';
import { registerStoreRoutes } from './http/store-routes';
import { registerSystemRoutes } from './http/system-routes';
import { registerThreadRoutes } from './http/thread-routes';
import { ArrivalLine } from './runtime/arrival-line';
import { RunManager } from './runtime/run-manager';
import type { RunTraceSink } from './runtime/run-trace';
import { AssistantStore } from './store/assistants';
import { StoreItems } from './store/items';
import { AGENT_SERVER_MIGRATIONS } from './store/migrations';
import { RunStore } from './store/runs';
import { ThreadCheckpoints } from './store/thread-state';
import { ThreadStore } from './store/threads';

/** Options of the agent server module. */
export interface AgentServerModuleOptions {
  /** A run still going after this many milliseconds (on the platform clock) ends as `timeout`. @default 3_600_000 */
  readonly runTimeoutMs?: number;
  /**
   * Where run traces go. @default the platform's trace store (the tracing module's tables in the same database)
   */
  readonly traceSink?: RunTraceSink;
  /**
   * How long a run request on a thread whose body is still arriving keeps the thread's later run requests waiting,
   * in milliseconds of the system clock; after that they go ahead of it (see ArrivalLine). @default 10_000
   */
  readonly arrivalHoldMs?: number;
  /**
   * Told each time a request starts to wait inside the agent server: a run request on a thread has taken its place in
   * the thread's line (`arrival`; before its body is read, see ArrivalLine), or a join, a wait or a cancel with `wait`
   * has started to wait for a run's end (`run-end`; not told when the run has already ended). For tests and diagnostics
   * that must act once a request has arrived, rather than after a pause long enough to be likely. Called
   * synchronously: it must not throw.
   * @default nobody is told
   */
  readonly onWaiting?: (event: AgentServerWaiting) => void;
}

/** A request that starts to wait inside the agent server (see {@link AgentServerModuleOptions.onWaiting}). */
export type AgentServerWaiting =
  | { readonly kind: 'arrival'; readonly deploymentId: string; readonly threadId: string }
  | { readonly kind: 'run-end'; readonly runId: string };

/** The default run timeout: one hour. */
export const DEFAULT_RUN_TIMEOUT_MS = 3_600_000;

/** How long a run request whose body is still arriving holds back the later ones of its thread, by default. */
export const DEFAULT_ARRIVAL_HOLD_MS = 10_000;

/** The module; mount it after the control plane and tracing modules (it reads their tables). */
export function createAgentServerModule(options: AgentServerModuleOptions = {}): PlatformModule {
  return {
    migrations: AGENT_SERVER_MIGRATIONS,
    mount(ctx): MountedModule {
      const { db, clock, log } = ctx;
      const { onWaiting } = options;
      const assistants = new AssistantStore(db, clock);
      const threads = new ThreadStore(db, clock);
      const runs = new RunStore(db, clock);
      const crons = new CronStore(db, clock);
      const directory = new DeploymentDirectory(db);
      const manager = new RunManager({
        db,
        clock,
        assistants,
        threads,
        runs,
        deploymentById: (id) => directory.served(id),
        traceSink: options.traceSink ?? new TraceRunStore(db, new SessionStore(db, clock)),
        runTimeoutMs: options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS,
        log,
        onWaitForEnd: onWaiting && ((runId) => onWaiting({ kind: 'run-end', runId })),
      });
      const arrivals = new ArrivalLine(options.arrivalHoldMs ?? DEFAULT_ARRIVAL_HOLD_MS);
      const fireCron = ({ cron, deploymentId }: StoredCron) => {
        const deployment = directory.served(deploymentId);
        if (!deployment) throw new Error(`deployment ${deploymentId} does not serve`);
        const assistant = assistants.get(deploymentId, cron.assistant_id);
        const body = {
          assistant_id: cron.assistant_id,
          ...cron.payload,
          metadata: { ...cron.metadata, cron_id: cron.cron_id },
        };
        if (!cron.thread_id) {
          manager.startStatelessRun(deployment, assistant, body);
          return;
        }
        const threadId = cron.thread_id;
        // a firing takes its turn among the thread's run requests, as one that arrives now
        const place = arrivals.arrive(`${deploymentId}/${threadId}`);
        void place
          .turn()
          .then(() => manager.createThreadRun(deployment, threadId, assistant, body))
          .catch((problem: Error) =>
            log(`agent server: cron ${cron.cron_id} could not start its run: ${problem.message}`),
          )
          .finally(() => place.leave());
      };
      const scheduler = new CronScheduler({ clock, crons, fire: fireCron, log });
      const deps: AgentServerDeps = {
        auth: ctx.auth,
        clock,
        directory,
        assistants,
        threads,
        threadCheckpoints: new ThreadCheckpoints(db, clock, threads),
        runs,
        crons,
        manager,
        arrivals,
        onArrival: onWaiting && ((deploymentId, threadId) => onWaiting({ kind: 'arrival', deploymentId, threadId })),
        scheduler,
        storeItems: new StoreItems(db, clock),
      };

      const app = new Hono<AgentServerEnv>().basePath('/deployments/:deploymentId');
      app.use('*', deploymentGate(deps));
      registerSystemRoutes(app);
      registerAssistantRoutes(app, deps);
      registerThreadRoutes(app, deps);
      registerStoreRoutes(app, deps);
      registerRunRoutes(app, deps);
      registerRunBatchRoutes(app, deps);
      registerCronRoutes(app, deps);
      ctx.app.route('/', app as unknown as PlatformApp);

      return {
        start() {
          manager.start();
          scheduler.start();
        },
        async stop() {
          scheduler.stop();
          await manager.stop();
        },
      };
    },
  };
}

/** The module with its defaults, as the platform lists it. */
export const agentServerModule: PlatformModule = createAgentServerModule();
