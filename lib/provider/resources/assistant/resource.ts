/**
 * `agentplatform_assistant`: an assistant on a deployment's agent server. Every argument but `deployment_id` changes
 * in place (`PATCH /assistants/{id}`, a new version); the create converges after a lost answer (see find.ts).
 */
import type { AssistantAnswer as Assistant } from '../../../api/schemas/agent-server';
import { deploymentAgentServer } from '../../agent-server';
import {
  defineResource,
  isKnown,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type PlanRequest,
  type ReadRequest,
  type UpdateRequest,
} from '../../framework';
import { statusOf } from '../shared/bulk-export-client';
import { takeCreateKey } from '../shared/unanswered-create';
import { assistantIdOf, createSettings, toModel, updateBody } from './body';
import { assistantToImport, createAssistant, findAssistant, serverOfExisting } from './find';
import { foundAfterLostAnswer, invalidImportId, noDeploymentToImportFrom, refusal } from './messages';
import { ASSISTANT_ARGUMENTS, assistantSchema, parseImportId, type AssistantModel } from './schema';

const TYPE = 'agentplatform_assistant';

type Schema = typeof assistantSchema;

// ---- plan ----

function plan({ config, prior, planned }: PlanRequest<Schema>): void {
  if (!prior) return;
  // left out of the configuration, they keep what the agent server holds (nothing is sent), also when that is null
  for (const key of ['name', 'description'] as const) if (config[key] === null) planned[key] = prior[key];
  // the same object in other JSON text (keys in another order, other spacing) is no change: the state's text stays
  for (const key of ['config', 'context', 'metadata'] as const) {
    const [was, will] = [prior[key], planned[key]];
    const { sameValue } = assistantSchema.attributes[key];
    if (typeof was === 'string' && typeof will === 'string' && sameValue(was, will)) planned[key] = was;
  }
  const changed = ASSISTANT_ARGUMENTS.some((key) => !isKnown(planned[key]) || planned[key] !== prior[key]);
  // a PATCH makes a new version; nothing to send, nothing new
  if (!changed) planned.version = prior.version;
}

// ---- create ----

async function create({ planned, ctx, signal, diagnostics }: CreateRequest<Schema>): Promise<AssistantModel> {
  const server = await deploymentAgentServer(ctx, planned.deployment_id);
  const settings = createSettings(planned);
  const key = takeCreateKey(TYPE, { deployment_id: planned.deployment_id, ...settings });
  const assistantId = assistantIdOf(key);
  let assistant: Assistant;
  try {
    const created = await createAssistant(server, { ...settings, assistant_id: assistantId, if_exists: 'do_nothing' }, key, signal);
    if (created.unanswered) foundAfterLostAnswer(diagnostics, created.unanswered.outcome, created.unanswered.err, assistantId);
    assistant = created.assistant;
  } catch (err) {
    throw refusal(diagnostics, err, `create an assistant of graph "${planned.graph_id}"`);
  }
  // an assistant of this id that was there already (made by an earlier apply, changed since) is given the settings
  const found = toModel(assistant, { deployment_id: planned.deployment_id });
  const body = updateBody(planned, found);
  if (Object.keys(body).length > 0) {
    try {
      assistant = await server.assistants.update(assistant.assistant_id, body, { signal });
    } catch (err) {
      throw refusal(diagnostics, err, `update assistant ${assistant.assistant_id}`);
    }
  }
  ctx.log.info(`created assistant ${assistant.assistant_id} of graph ${assistant.graph_id} on deployment ${planned.deployment_id}`);
  return toModel(assistant, planned);
}

// ---- read ----

async function read({ state, ctx, signal }: ReadRequest<Schema>): Promise<AssistantModel | null> {
  const server = await serverOfExisting(ctx, state.deployment_id, signal);
  const assistant = server && (await findAssistant(server, state.assistant_id!, signal));
  return assistant ? toModel(assistant, state) : null;
}

// ---- update ----

async function update({ planned, prior, ctx, signal, diagnostics }: UpdateRequest<Schema>): Promise<AssistantModel> {
  const body = updateBody(planned, prior);
  // a JSON argument between null and `{}`: the same object on the agent server
  if (Object.keys(body).length === 0) return { ...prior, config: planned.config, context: planned.context, metadata: planned.metadata };
  const server = await deploymentAgentServer(ctx, prior.deployment_id);
  try {
    const assistant = await server.assistants.update(prior.assistant_id!, body, { signal });
    ctx.log.info(`updated assistant ${assistant.assistant_id} to version ${assistant.version}`);
    return toModel(assistant, planned);
  } catch (err) {
    throw refusal(diagnostics, err, `update assistant ${prior.assistant_id}`);
  }
}

// ---- delete ----

async function remove({ state, ctx, signal }: DeleteRequest<Schema>): Promise<void> {
  const server = await serverOfExisting(ctx, state.deployment_id, signal);
  if (!server) return;
  try {
    await server.assistants.delete(state.assistant_id!, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  ctx.log.info(`deleted assistant ${state.assistant_id}`);
}

// ---- import ----

async function importAssistant({ id, ctx, signal }: ImportRequest): Promise<Partial<AssistantModel>> {
  const parts = parseImportId(id);
  if (!parts) throw invalidImportId(id);
  let server;
  try {
    server = await deploymentAgentServer(ctx, parts.deploymentId);
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    throw noDeploymentToImportFrom(parts.deploymentId);
  }
  const assistant = await assistantToImport(server, parts.deploymentId, parts.assistantId, signal);
  return { id: `${parts.deploymentId}/${assistant.assistant_id}`, deployment_id: parts.deploymentId, assistant_id: assistant.assistant_id };
}

export default defineResource({
  typeName: TYPE,
  schema: assistantSchema,
  plan,
  create,
  read,
  update,
  delete: remove,
  import: importAssistant,
});
