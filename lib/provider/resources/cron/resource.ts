/**
 * `agentplatform_cron`: a cron on a deployment's agent server (the LangGraph agent server API's `/runs/crons`, which
 * the platform specification names without payloads). Reached through the deployment's URL (agent-server.ts).
 */
import type { AgentServerClient } from '../../../api/agent-server';
import type { CronAnswer } from '../../../api/schemas/agent-server-crons';
import { deploymentAgentServer } from '../../agent-server';
import {
  defineResource,
  given,
  isKnown,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type PlanRequest,
  type ProviderContext,
  type ReadRequest,
  type UpdateRequest,
  type ValidateRequest,
} from '../../framework';
import { statusOf } from '../shared/bulk-export-client';
import { jsonText, parseJsonObject, sameJson } from '../shared/json-object';
import { createOutcome, takeCreateKey, unansweredSummary } from '../shared/unanswered-create';
import { createBody, createSettings, updateBody, userMetadata } from './body';
import { createdUnanswered, findCreated, findCron } from './find';
import { badImportId, cronNotFound, noSuchCron, scheduleWarning } from './messages';
import { cronSchema, type CronModel } from './schema';

type Schema = typeof cronSchema;

/** How long the look-ups after an unanswered create go on. */
const LOOKUP_TIME_MS = 2 * 60_000;

// ---- plan ----

/** The assistant an id names on the agent server (a graph id names its default one), or null when none. */
async function assistantOf(client: AgentServerClient, assistantId: string, signal: AbortSignal): Promise<string | null> {
  try {
    return (await client.assistants.get(assistantId, { signal })).assistant_id;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

async function plan({ prior, planned, requireReplace, ctx, signal }: PlanRequest<Schema>): Promise<void> {
  if (!prior || planned.deployment_id !== prior.deployment_id) return;
  // the agent server's cron update cannot change its assistant; a graph id and its default assistant's id are one
  if (isKnown(planned.assistant_id) && planned.assistant_id !== prior.assistant_id) {
    const client = await deploymentAgentServer(ctx, prior.deployment_id);
    const [before, after] = await Promise.all([assistantOf(client, prior.assistant_id, signal), assistantOf(client, planned.assistant_id, signal)]);
    if (before === null || before !== after) requireReplace('assistant_id');
  }
  // the update merges metadata: a key it no longer has can only go with a new cron
  if (prior.metadata !== null && isKnown(planned.metadata)) {
    const kept = planned.metadata === null ? {} : (parseJsonObject(planned.metadata) ?? {});
    if (Object.keys(parseJsonObject(prior.metadata) ?? {}).some((key) => !Object.hasOwn(kept, key))) requireReplace('metadata');
  }
}

// ---- create ----

async function create({ planned, ctx, signal, diagnostics }: CreateRequest<Schema>): Promise<CronModel> {
  const client = await deploymentAgentServer(ctx, planned.deployment_id);
  const key = takeCreateKey('agentplatform_cron', createSettings(planned));
  // an earlier apply's create that got no answer may have made it: that one is taken rather than a second one made
  const earlier = await findCreated(client, key, planned.thread_id, { signal });
  // one changed since (an update of a cron later removed from state) is not what this create asks for
  if (earlier && sameSettings(toModel(earlier, planned), planned)) {
    ctx.log.info(`cron ${earlier.cron_id} made by an earlier create of this configuration is taken into state`);
    return toModel(earlier, planned);
  }
  const sentAtMs = Date.now();
  let cron: CronAnswer;
  try {
    cron = await client.crons.create(planned.thread_id, createBody(planned, key), { signal, idempotencyKey: key });
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw err;
    const summary = unansweredSummary(outcome, `the cron on deployment ${planned.deployment_id}`);
    const found = await createdUnanswered(client, key, planned.thread_id, { sentAtMs, err: err as Error, outcome, stop: signal, deadlineMs: Date.now() + LOOKUP_TIME_MS });
    if (!found.found) throw cronNotFound(summary, err as Error, found);
    diagnostics.warning(summary, `${(err as Error).message}. It had created cron ${found.found.cron_id}, found by its create key: it is kept in state.`);
    cron = found.found;
  }
  ctx.log.info(`created cron ${cron.cron_id} on deployment ${planned.deployment_id}`);
  return toModel(cron, planned);
}

// ---- read ----

/** The agent server of a deployment; null when the deployment is gone (its crons with it). */
async function agentServerOf(ctx: ProviderContext, deploymentId: string): Promise<AgentServerClient | null> {
  try {
    return await deploymentAgentServer(ctx, deploymentId);
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

async function read({ state, ctx, signal }: ReadRequest<Schema>): Promise<CronModel | null> {
  const client = await agentServerOf(ctx, state.deployment_id);
  const cron = client && (await findCron(client, state.cron_id!, state.thread_id, { signal }));
  return cron ? toModel(cron, state) : null;
}

// ---- update ----

async function update({ planned, prior, ctx, signal }: UpdateRequest<Schema>): Promise<CronModel> {
  const body = updateBody(prior, planned);
  // another name of the same assistant (see plan) is kept in state alone
  if (Object.keys(body).length === 0) return { ...prior, assistant_id: planned.assistant_id };
  const client = await deploymentAgentServer(ctx, prior.deployment_id);
  const cron = await client.crons.update(prior.cron_id!, body, { signal });
  ctx.log.info(`updated cron ${prior.cron_id} on deployment ${prior.deployment_id}`);
  return toModel(cron, planned);
}

// ---- delete ----

async function remove({ state, ctx, signal }: DeleteRequest<Schema>): Promise<void> {
  const client = await agentServerOf(ctx, state.deployment_id);
  if (!client) return;
  try {
    await client.crons.delete(state.cron_id!, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
}

// ---- import ----

async function importCron({ id, ctx, signal }: ImportRequest): Promise<Partial<CronModel>> {
  const parts = id.split('/');
  if (parts.length !== 2 || parts.some((part) => part.trim() === '')) throw badImportId(id);
  const [deploymentId, cronId] = parts as [string, string];
  const cron = await findCron(await deploymentAgentServer(ctx, deploymentId), cronId, null, { signal });
  if (!cron) throw noSuchCron(deploymentId, cronId);
  return { deployment_id: deploymentId, cron_id: cron.cron_id, assistant_id: cron.assistant_id ?? undefined, thread_id: cron.thread_id ?? null };
}

// ---- API mapping ----

/**
 * A JSON attribute from an answered object: `base`'s when the answer leaves it out, null for an empty object the
 * configuration did not set (the agent server keeps `{}` for a config or metadata not given).
 */
function jsonAttribute(answered: Record<string, unknown> | null | undefined, base: string | null): string | null {
  if (answered === undefined) return base;
  if (answered === null || (base === null && Object.keys(answered).length === 0)) return null;
  return jsonText(answered);
}

/** Whether a cron read into state has the settings the plan asks for. */
function sameSettings(read: CronModel, planned: CronModel): boolean {
  const same = (a: string | null, b: string | null) => (a === null || b === null ? a === b : sameJson(a, b));
  return read.schedule === planned.schedule && same(read.input, planned.input) && same(read.config, planned.config) && same(read.metadata, planned.metadata);
}

/** The state of a cron as the agent server answers it; what the answer leaves out keeps its value in `base`. */
function toModel(cron: CronAnswer, base: CronModel): CronModel {
  const payload = cron.payload ?? undefined;
  const input = payload === undefined ? undefined : (payload.input as Record<string, unknown> | null | undefined) ?? null;
  const config = payload === undefined ? undefined : (payload.config as Record<string, unknown> | null | undefined) ?? null;
  return {
    cron_id: cron.cron_id,
    deployment_id: base.deployment_id,
    // as configured: a graph id stays one (the agent server answers its default assistant's id)
    assistant_id: base.assistant_id ?? cron.assistant_id,
    schedule: given(cron.schedule ?? undefined, base.schedule),
    input: jsonAttribute(input, base.input),
    config: jsonAttribute(config, base.config),
    metadata: jsonAttribute(cron.metadata ? userMetadata(cron.metadata) : cron.metadata, base.metadata),
    thread_id: given(cron.thread_id, base.thread_id),
    next_run_date: given(cron.next_run_date, base.next_run_date) ?? null,
  };
}

// ---- validate ----

function validate({ config, diagnostics }: ValidateRequest<Schema>): void {
  const warning = typeof config.schedule === 'string' ? scheduleWarning(config.schedule) : undefined;
  if (warning) diagnostics.warning('Schedule not checked', warning, 'schedule');
}

export default defineResource({
  typeName: 'agentplatform_cron',
  schema: cronSchema,
  validate,
  plan,
  create,
  read,
  update,
  delete: remove,
  import: importCron,
});
