/**
 * How a part of the local platform plugs into the one process: it brings its migrations and, given the shared
 * context, mounts its routes on the app (before the server listens) and returns its background work.
 */
import type { AuthStore } from './auth';
import type { Clock } from './clock';
import type { PipelineTimings } from './control-plane/pipeline';
import type { MigrationSet, PlatformDatabase } from './db';
import type { FastRoutes } from './fast-routes';
import type { SecretBox } from './secret-box';
import type { PlatformApp } from './platform-env';

/** What every module receives. */
export interface ModuleContext {
  /** The platform database, migrated. */
  readonly db: PlatformDatabase;
  /** The platform's time source; every delay goes through it. */
  readonly clock: Clock;
  /** The app to mount routes on (guard them with `requireApiKey(auth)`). */
  readonly app: PlatformApp;
  /** Fast paths for the hottest reads, each beside the app route it shortens (see `fast-routes.ts`). */
  readonly fastRoutes: FastRoutes;
  /** Organizations, workspaces and API keys. */
  readonly auth: AuthStore;
  /** Encryption at rest for secrets. */
  readonly secrets: SecretBox;
  /** The data directory, for modules that keep files. */
  readonly dataDir: string;
  /** Revision pipeline step durations and the delete delay. */
  readonly timings: PipelineTimings;
  /** Diagnostic output; never pass it secrets. */
  readonly log: (line: string) => void;
  /** The platform's own address, `http://127.0.0.1:<port>`; available once the server listens (in handlers and `start`). */
  baseUrl(): string;
}

/** The running part of a module. */
export interface MountedModule {
  /** Starts background work once the server listens. */
  start?(): void;
  /** Stops background work; durable state stays in the database. */
  stop?(): void | Promise<void>;
}

/** A part of the local platform. */
export interface PlatformModule {
  /** The module's migrations, applied in order after those of the modules listed before it. */
  readonly migrations: MigrationSet;
  /** Registers routes and creates the module's stores; called once per start, before the server listens. */
  mount(ctx: ModuleContext): MountedModule;
}
