/**
 * The resource and data source RPCs: decode terraform's values against the schema, run the default plan and the
 * handlers with typed models, and encode the answer. Every failure becomes a diagnostic; where terraform needs a
 * state even on failure, the safest one is returned (the prior state on a failed update or delete, the handler's
 * partial state on a failed create).
 */
import type { ProviderContext } from '../context';
import { fromStateJson, isJsonObject, parseExactJson } from '../cty/json';
import type { CtyValue } from '../cty/value';
import { Diagnostics, errorToDiagnostic, formatPath, pathToProto, toPath, type AttributePath } from '../framework/diagnostics';
import { fromModel, reconcileNumbers, toModel } from '../framework/model';
import { defaultPlan, nullWriteOnly } from '../framework/plan';
import { PrivateState } from '../framework/private-state';
import type { ConfigModel, DataSourceDefinition, JsonState, ResourceDefinition } from '../framework/resource';
import { objectType, type Schema, type SchemaModel } from '../framework/schema';
import { reportNullElements, validateAttributes } from '../framework/validate';
import type { ProtoMessage } from '../plugin/protobuf';
import { completeModel, decodeDynamic, encodeDynamic, modelToState } from './dynamic';

/** What the resource RPCs need from the server. */
export interface RpcState {
  /** The definition of a resource type (throws a diagnostic for an unknown one). */
  resource(typeName: string): ResourceDefinition;
  /** The definition of a data source type (throws a diagnostic for an unknown one). */
  dataSource(typeName: string): DataSourceDefinition;
  /** The configured provider (throws a diagnostic before ConfigureProvider). */
  context(): ProviderContext;
  /** The error to report for one a handler threw (see ProviderRegistry.explainError). */
  explainError(err: unknown, typeName: string): unknown;
}

type Request = ProtoMessage & { type_name?: string };

const typeOf = (schema: Schema) => objectType(schema.attributes);
const model = <S extends Schema>(schema: S, value: CtyValue): SchemaModel<S> => toModel(value, typeOf(schema), 'null') as SchemaModel<S>;
const configModel = <S extends Schema>(schema: S, value: CtyValue): ConfigModel<S> => toModel(value, typeOf(schema), 'keep') as ConfigModel<S>;

function handlerBase(state: RpcState, diagnostics: Diagnostics) {
  const ctx = state.context();
  return { ctx, signal: ctx.signal, diagnostics };
}

/** ValidateResourceConfig and ValidateDataResourceConfig. */
export async function validateConfig(
  state: RpcState,
  request: Request,
  kind: 'resource' | 'data source',
  diagnostics: Diagnostics,
): Promise<ProtoMessage> {
  const def = kind === 'resource' ? state.resource(request.type_name!) : state.dataSource(request.type_name!);
  const config = decodeDynamic(request.config, typeOf(def.schema));
  const capabilities = request.client_capabilities as { write_only_attributes_allowed?: boolean } | undefined;
  if (kind === 'resource' && !capabilities?.write_only_attributes_allowed) refuseWriteOnly(def.schema, config, diagnostics);
  validateAttributes(def.schema.attributes, config, diagnostics);
  await def.validate?.({ config: configModel(def.schema, config), diagnostics });
  return {};
}

/**
 * A terraform older than 1.11 does not know write-only attributes: it would try to keep the value in plan and state.
 * Setting one is then an error, as in terraform-plugin-framework.
 */
function refuseWriteOnly(schema: Schema, config: CtyValue, diagnostics: Diagnostics): void {
  if (config === null || typeof config !== 'object') return;
  for (const [name, a] of Object.entries(schema.attributes)) {
    if (a.kind !== 'block' && a.writeOnly && (config as Record<string, CtyValue>)[name] !== null) {
      diagnostics.error(
        'Write-only attribute needs terraform 1.11',
        `${name} is write-only: it is sent to the API but never stored, which needs terraform 1.11 or later. Upgrade terraform.`,
        [{ attribute: name }],
      );
    }
  }
}

/** UpgradeResourceState: stored JSON (any older schema version) to the current schema, as msgpack. */
export function upgradeResourceState(state: RpcState, request: Request, diagnostics: Diagnostics): ProtoMessage {
  const def = state.resource(request.type_name!);
  const raw = request.raw_state as { json?: Uint8Array } | undefined;
  if (!raw?.json?.length) {
    diagnostics.error('Unsupported state format', `The stored state of ${def.typeName} is not JSON (legacy flatmap state).`);
    return {};
  }
  const parsed = parseExactJson(Buffer.from(raw.json).toString('utf8'));
  if (!isJsonObject(parsed)) throw new Error('stored state is not a JSON object');
  let json: JsonState = parsed;
  const from = Number(request.version ?? 0);
  if (from > def.schema.version) {
    diagnostics.error(
      'State written by a newer provider',
      `The state of ${def.typeName} has schema version ${from}; this provider knows versions up to ${def.schema.version}. Upgrade the provider.`,
    );
    return {};
  }
  for (let v = from; v < def.schema.version; v++) {
    const upgrade = def.upgrades?.[v];
    if (!upgrade) throw new Error(`${def.typeName} has no state upgrade from schema version ${v}`);
    json = upgrade(json);
  }
  const value = nullWriteOnly(def.schema.attributes, fromStateJson(json, typeOf(def.schema)));
  return { upgraded_state: encodeDynamic(value, typeOf(def.schema)) };
}

/** ReadResource: refresh one instance; a null model means the resource is gone. */
export async function readResource(state: RpcState, request: Request, diagnostics: Diagnostics): Promise<ProtoMessage> {
  const def = state.resource(request.type_name!);
  const type = typeOf(def.schema);
  const current = decodeDynamic(request.current_state, type);
  const keep = { new_state: request.current_state, private: request.private };
  if (current === null) return keep;
  try {
    const kept = PrivateState.decode(request.private as Uint8Array | undefined);
    const next = await def.read({ ...handlerBase(state, diagnostics), state: model(def.schema, current), private: kept });
    return { new_state: encodeDynamic(next === null ? null : modelToState(def.schema, next, current), type), private: kept.encode() };
  } catch (err) {
    diagnostics.add(errorToDiagnostic(state.explainError(err, def.typeName), `Failed to read ${def.typeName}`));
    return keep;
  }
}

/** PlanResourceChange: the default plan, refined by the resource's `plan`. */
export async function planResourceChange(state: RpcState, request: Request, diagnostics: Diagnostics): Promise<ProtoMessage> {
  const def = state.resource(request.type_name!);
  const type = typeOf(def.schema);
  const prior = decodeDynamic(request.prior_state, type);
  const proposed = decodeDynamic(request.proposed_new_state, type);
  const config = decodeDynamic(request.config, type);
  const plan = defaultPlan(def.schema.attributes, prior, proposed, config);
  let planned = plan.planned;
  if (planned !== null) {
    reportNullElements(def.schema.attributes, config, diagnostics, prior);
    if (diagnostics.hasErrors()) return {};
  }
  const replace: AttributePath[] = [...plan.requiresReplace];
  if (planned !== null && def.plan) {
    const plannedModel = configModel(def.schema, planned);
    await def.plan({
      ...handlerBase(state, diagnostics),
      config: configModel(def.schema, config),
      prior: prior === null ? null : model(def.schema, prior),
      planned: plannedModel,
      requireReplace: (path) => replace.push(toPath(path)),
    });
    planned = modelToPlan(def.schema, plannedModel, planned);
  }
  const unique = [...new Map(replace.map((p) => [formatPath(p), p])).values()];
  return {
    planned_state: encodeDynamic(planned, type),
    requires_replace: unique.map(pathToProto),
    planned_private: request.prior_private,
  };
}

/** Like {@link modelToState}, but a plan keeps its unknowns. */
function modelToPlan(schema: Schema, plannedModel: unknown, reference: CtyValue): CtyValue {
  const type = typeOf(schema);
  return nullWriteOnly(schema.attributes, reconcileNumbers(fromModel(plannedModel, type), reference, type));
}

/** ApplyResourceChange: create (no prior state), delete (no planned state) or update. */
export async function applyResourceChange(state: RpcState, request: Request, diagnostics: Diagnostics): Promise<ProtoMessage> {
  const def = state.resource(request.type_name!);
  const type = typeOf(def.schema);
  const prior = decodeDynamic(request.prior_state, type);
  const planned = decodeDynamic(request.planned_state, type);
  const config = decodeDynamic(request.config, type);
  const base = handlerBase(state, diagnostics);
  const kept = PrivateState.decode(request.planned_private as Uint8Array | undefined);
  const answer = (value: CtyValue): ProtoMessage => ({ new_state: encodeDynamic(value, type), private: kept.encode() });
  if (planned === null) {
    try {
      await def.delete({ ...base, state: model(def.schema, prior) });
      return answer(diagnostics.hasErrors() ? prior : null);
    } catch (err) {
      diagnostics.add(errorToDiagnostic(state.explainError(err, def.typeName), `Failed to delete ${def.typeName}`));
      return answer(prior);
    }
  }
  const input = { ...base, config: model(def.schema, config), planned: model(def.schema, planned), private: kept };
  if (prior === null) {
    try {
      return answer(modelToState(def.schema, await def.create(input), planned));
    } catch (err) {
      diagnostics.add(errorToDiagnostic(state.explainError(err, def.typeName), `Failed to create ${def.typeName}`));
      return answer(null);
    }
  }
  try {
    return answer(modelToState(def.schema, await def.update({ ...input, prior: model(def.schema, prior) }), planned));
  } catch (err) {
    diagnostics.add(errorToDiagnostic(state.explainError(err, def.typeName), `Failed to update ${def.typeName}`));
    return answer(prior);
  }
}

/** ImportResourceState: the handler's partial state; terraform reads the rest right after. */
export async function importResourceState(state: RpcState, request: Request, diagnostics: Diagnostics): Promise<ProtoMessage> {
  const def = state.resource(request.type_name!);
  if (!def.import) {
    diagnostics.error('Import not supported', `${def.typeName} cannot be imported.`);
    return {};
  }
  const id = String(request.id ?? '');
  const partial = await def.import({ ...handlerBase(state, diagnostics), id });
  if (diagnostics.hasErrors()) return {};
  const value = modelToState(def.schema, completeModel(def.schema, partial), null);
  return { imported_resources: [{ type_name: def.typeName, state: encodeDynamic(value, typeOf(def.schema)) }] };
}

/** ReadDataSource. */
export async function readDataSource(state: RpcState, request: Request, diagnostics: Diagnostics): Promise<ProtoMessage> {
  const def = state.dataSource(request.type_name!);
  const type = typeOf(def.schema);
  const config = decodeDynamic(request.config, type);
  const result = await def.read({ ...handlerBase(state, diagnostics), config: model(def.schema, config) });
  return { state: encodeDynamic(modelToState(def.schema, result, config), type) };
}
