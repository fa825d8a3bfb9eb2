/**
 * What a resource or data source implements. Each resource is a folder, `lib/provider/resources/<name>/`, one file per
 * role: `schema.ts` (attributes and the model), `checks.ts`, `plan.ts`, `body.ts`, `find.ts`, `wait.ts`, `messages.ts`,
 * `docs.ts`, and `resource.ts`, which default-exports `defineResource({...})` and is the one file `registry.ts`
 * requires; parts import the schema and `resources/shared/`, never `resource.ts`. Data sources live in
 * `lib/provider/data-sources/<name>.ts`.
 *
 * Handlers get typed models (see {@link SchemaModel}) and a {@link Diagnostics} collector. A thrown error becomes an
 * error diagnostic; to fail *and* keep state (a create whose wait failed after the id is known), add the error to
 * `diagnostics` and return the state: terraform saves it.
 */
import type { ProviderContext } from '../context';
import type { ExactJson } from '../cty/json';
import type { Unknown } from '../cty/value';
import type { Diagnostics, PathLike } from './diagnostics';
import type { PrivateState } from './private-state';
import type { Schema, SchemaModel } from './schema';

/** A model where any value may still be unknown ({@link UNKNOWN}), as configurations are at validate and plan time. */
export type Unknownable<T> = T extends readonly (infer E)[]
  ? Unknownable<E>[] | Unknown
  : T extends object
    ? { -readonly [K in keyof T]: Unknownable<T[K]> } | Unknown
    : T | Unknown;

/** The model of a configuration that may hold unknown values. */
export type ConfigModel<S extends Schema> = { -readonly [K in keyof SchemaModel<S>]: Unknownable<SchemaModel<S>[K]> };

/** Stored state as JSON objects, the form state upgraders work on (numbers exact). */
export type JsonState = { [attribute: string]: ExactJson };

/** Fields every handler request has. */
export interface HandlerRequest {
  /** The configured provider: settings, API clients, logger. */
  readonly ctx: ProviderContext;
  /** Aborted when terraform asks the provider to stop (Ctrl-C): every wait must end promptly. */
  readonly signal: AbortSignal;
  /** Where the handler reports problems. */
  readonly diagnostics: Diagnostics;
}

/** Input of `validate`: the configuration alone (no provider configuration is available yet). */
export interface ValidateRequest<S extends Schema> {
  /** The configuration; values may be unknown. */
  readonly config: ConfigModel<S>;
  /** Where to report problems, with the attribute path. */
  readonly diagnostics: Diagnostics;
}

/** Input of `plan`, after the default plan (see `plan.ts`) has been made. */
export interface PlanRequest<S extends Schema> extends HandlerRequest {
  /** The configuration, write-only values included; values may be unknown. */
  readonly config: ConfigModel<S>;
  /** The current state, or null when the resource is about to be created. */
  readonly prior: SchemaModel<S> | null;
  /** The planned state; change it in place (e.g. set revision attributes to `UNKNOWN` when a new revision comes). */
  readonly planned: ConfigModel<S>;
  /** Marks an attribute whose planned change forces replacement. */
  requireReplace(path: PathLike): void;
}

/** Input of `create`. */
export interface CreateRequest<S extends Schema> extends HandlerRequest {
  /** The configuration, with write-only values (secrets). */
  readonly config: SchemaModel<S>;
  /** The planned state; values to be computed are null. */
  readonly planned: SchemaModel<S>;
  /** The provider's private data for this instance (empty on create); what the handler sets is saved with the state. */
  readonly private: PrivateState;
}

/** Input of `read`. */
export interface ReadRequest<S extends Schema> extends HandlerRequest {
  /** The stored state (after an import: only what `import` returned). */
  readonly state: SchemaModel<S>;
  /** The provider's private data for this instance; what the handler sets is saved with the state. */
  readonly private: PrivateState;
}

/** Input of `update`. */
export interface UpdateRequest<S extends Schema> extends HandlerRequest {
  /** The configuration, with write-only values (secrets). */
  readonly config: SchemaModel<S>;
  /** The planned state; values to be computed are null. */
  readonly planned: SchemaModel<S>;
  /** The state before the update. */
  readonly prior: SchemaModel<S>;
  /** The provider's private data for this instance; what the handler sets is saved with the state. */
  readonly private: PrivateState;
}

/** Input of `delete`. */
export interface DeleteRequest<S extends Schema> extends HandlerRequest {
  /** The state of the resource being destroyed. */
  readonly state: SchemaModel<S>;
}

/** Input of `import`. */
export interface ImportRequest extends HandlerRequest {
  /** What the user passed to `terraform import` or an `import {}` block's `id`. */
  readonly id: string;
}

/** A managed resource type. */
export interface ResourceDefinition<S extends Schema = Schema> {
  /** Terraform type name, e.g. `agentplatform_deployment`. */
  readonly typeName: string;
  /** The schema (its `version` drives `upgrades`). */
  readonly schema: S;
  /** Checks beyond the schema's declarative ones, on the configuration alone. */
  validate?(req: ValidateRequest<S>): void | Promise<void>;
  /** Refines the default plan. */
  plan?(req: PlanRequest<S>): void | Promise<void>;
  /** Creates the resource and returns its state. */
  create(req: CreateRequest<S>): Promise<SchemaModel<S>>;
  /** Returns the current state, or null when the resource no longer exists (404). */
  read(req: ReadRequest<S>): Promise<SchemaModel<S> | null>;
  /** Applies an in-place change and returns the new state. */
  update(req: UpdateRequest<S>): Promise<SchemaModel<S>>;
  /** Destroys the resource (already gone counts as success). */
  delete(req: DeleteRequest<S>): Promise<void>;
  /** Turns an import id into a partial state; `read` fills in the rest. Without it, import is refused. */
  import?(req: ImportRequest): Promise<Partial<SchemaModel<S>>>;
  /** State upgraders: `upgrades[n]` turns version-n state JSON into version n+1. */
  readonly upgrades?: Readonly<Record<number, (state: JsonState) => JsonState>>;
}

/** Input of a data source's `read`. */
export interface DataSourceReadRequest<S extends Schema> extends HandlerRequest {
  /** The configuration; computed attributes are null, for `read` to fill in. */
  readonly config: SchemaModel<S>;
}

/** A data source type. */
export interface DataSourceDefinition<S extends Schema = Schema> {
  /** Terraform type name, e.g. `agentplatform_revisions`. */
  readonly typeName: string;
  /** The schema. */
  readonly schema: S;
  /** Checks beyond the schema's declarative ones, on the configuration alone. */
  validate?(req: ValidateRequest<S>): void | Promise<void>;
  /** Reads the data and returns the full model. */
  read(req: DataSourceReadRequest<S>): Promise<SchemaModel<S>>;
}

/** Declares a resource (an identity function that keeps the schema's model type for the handlers). */
export function defineResource<S extends Schema>(definition: ResourceDefinition<S>): ResourceDefinition<S> {
  return definition;
}

/** Declares a data source. */
export function defineDataSource<S extends Schema>(definition: DataSourceDefinition<S>): DataSourceDefinition<S> {
  return definition;
}
