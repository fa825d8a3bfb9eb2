/**
 * `agentplatform_tracing_project`: a tracing project, created, renamed and changed in place, and deleted on destroy.
 */
import type { Session } from '../../../api/schemas/tracing';
import {
  DiagnosticError,
  defineResource,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type PlanRequest,
  type ReadRequest,
  type UpdateRequest,
} from '../../framework';
import { confirmGone } from '../../api-errors';
import { bulkExportClient, isUuid, statusOf } from '../shared/bulk-export-client';
import { createOutcome, takeCreateKey, unansweredSummary } from '../shared/unanswered-create';
import { planWorkspace, workspaceOf } from '../shared/workspace';
import { createBody, toModel, updateBody } from './body';
import { projectCreatedUnanswered } from './find';
import { BAD_IMPORT_ID, noProjectWithId, projectFailure } from './messages';
import { tracingProjectSchema, type TracingProjectModel } from './schema';

type Schema = typeof tracingProjectSchema;

/**
 * How long the look-ups after a create that got no clear answer go on: a project is made at once (nothing is validated
 * before the answer), so a minute covers a request held on its way.
 */
const LOOKUP_TIME_MS = 60_000;

function plan({ ctx, prior, planned, diagnostics, requireReplace }: PlanRequest<Schema>): void {
  planWorkspace({ ctx, prior, planned, diagnostics, requireReplace }, 'tracing project');
}

async function create({ planned, ctx, signal, diagnostics }: CreateRequest<Schema>): Promise<TracingProjectModel> {
  const client = bulkExportClient(ctx);
  const body = createBody(planned);
  const idempotencyKey = takeCreateKey('agentplatform_tracing_project', body);
  const sentAtMs = Date.now();
  let session: Session;
  try {
    session = await client.createSession(body, { signal, idempotencyKey });
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) {
      const holder = statusOf(err) === 409 ? await client.findSessionByName(planned.name, { signal }).catch(() => undefined) : undefined;
      throw projectFailure(diagnostics, err, `create tracing project "${planned.name}"`, planned.name, holder?.id);
    }
    const found = await projectCreatedUnanswered(client, planned.name, { sentAtMs, err: err as Error, outcome, stop: signal, deadlineMs: sentAtMs + LOOKUP_TIME_MS });
    if (found instanceof DiagnosticError) throw found;
    diagnostics.warning(
      unansweredSummary(outcome, `tracing project "${planned.name}"`),
      `${(err as Error).message}. It had created project ${found.id} with this name: it is kept in state.`,
    );
    session = found;
  }
  ctx.log.info(`created tracing project ${session.id}`);
  return toModel(session, planned);
}

async function read({ state, ctx, signal }: ReadRequest<Schema>): Promise<TracingProjectModel | null> {
  const client = bulkExportClient(ctx, workspaceOf(state));
  try {
    return toModel(await client.getSession(state.id!, { signal }), state);
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    await confirmGone(err, 'tracing', () => client.listSessions({ signal }));
    return null;
  }
}

async function update({ planned, prior, ctx, signal, diagnostics }: UpdateRequest<Schema>): Promise<TracingProjectModel> {
  const client = bulkExportClient(ctx, workspaceOf(prior));
  try {
    const current = await client.getSession(prior.id!, { signal });
    const body = updateBody(planned, prior, current);
    const session = Object.keys(body).length ? await client.updateSession(prior.id!, body, { signal }) : current;
    ctx.log.info(`updated tracing project ${prior.id}`);
    return toModel(session, planned);
  } catch (err) {
    const holder = statusOf(err) === 409 ? await client.findSessionByName(planned.name, { signal }).catch(() => undefined) : undefined;
    throw projectFailure(diagnostics, err, `update tracing project "${prior.name}"`, planned.name, holder?.id);
  }
}

async function remove({ state, ctx, signal }: DeleteRequest<Schema>): Promise<void> {
  const client = bulkExportClient(ctx, workspaceOf(state));
  try {
    await client.deleteSession(state.id!, { signal });
  } catch (err) {
    // already gone is what the destroy asked for, once a list shows that the URL serves the API
    if (statusOf(err) !== 404) throw err;
    await confirmGone(err, 'tracing', () => client.listSessions({ signal }));
  }
  ctx.log.info(`deleted tracing project ${state.id}`);
}

async function importProject({ id, ctx, signal }: ImportRequest): Promise<Partial<TracingProjectModel>> {
  // spec: Bulk export, `session_id` (a tracing project id) is a string (uuid)
  if (!isUuid(id)) throw BAD_IMPORT_ID;
  try {
    await bulkExportClient(ctx).getSession(id, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    throw noProjectWithId(id);
  }
  return { id: id.toLowerCase() };
}

export default defineResource({
  typeName: 'agentplatform_tracing_project',
  schema: tracingProjectSchema,
  plan,
  create,
  read,
  update,
  delete: remove,
  import: importProject,
});
