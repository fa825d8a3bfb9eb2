/** The Hono environment and the dependencies shared by the agent server routes. */
import type { AuthStore } from '../../auth';
import type { Clock } from '../../clock';
import type { PlatformEnv } from '../../platform-env';
import type { CronScheduler } from '../cron/cron-scheduler';
import type { CronStore } from '../cron/cron-store';
import type { ArrivalLine } from '../runtime/arrival-line';
import type { RunManager } from '../runtime/run-manager';
import type { ServedDeployment } from '../runtime/run-executor';
import type { AssistantStore } from '../store/assistants';
import type { StoreItems } from '../store/items';
import type { ThreadCheckpoints } from '../store/thread-state';
import type { RunStore } from '../store/runs';
import type { ThreadStore } from '../store/threads';
import type { DeploymentDirectory } from './deployment-directory';

/** Variables of an agent server request: the platform's, plus the deployment the URL names. */
export interface AgentServerEnv {
  Variables: PlatformEnv['Variables'] & {
    /** The deployment serving the request (set by the gate). */
    deployment: ServedDeployment;
  };
}

/** Everything the routes use. */
export interface AgentServerDeps {
  readonly auth: AuthStore;
  readonly clock: Clock;
  readonly directory: DeploymentDirectory;
  readonly assistants: AssistantStore;
  readonly threads: ThreadStore;
  /** What the thread calls do to checkpoints beyond what runs write. */
  readonly threadCheckpoints: ThreadCheckpoints;
  readonly runs: RunStore;
  readonly crons: CronStore;
  readonly manager: RunManager;
  /** The order in which each thread's run requests arrived. */
  readonly arrivals: ArrivalLine;
  /** Told when a run request has taken its place in its thread's line (AgentServerModuleOptions.onWaiting). */
  readonly onArrival?: (deploymentId: string, threadId: string) => void;
  readonly scheduler: CronScheduler;
  /** The items of every deployment's Store. */
  readonly storeItems: StoreItems;
}

/** The URL path prefix of a deployment's agent server on the local platform. */
export const deploymentPath = (deploymentId: string): string => `/deployments/${deploymentId}`;

/** The version of the local agent server's API, as `/info` and `/docs` give it. */
export const LOCAL_AGENT_SERVER_VERSION = '0.1.0';
