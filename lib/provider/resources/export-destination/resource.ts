/**
 * `agentplatform_export_destination`: an S3 (or S3-compatible) bucket that bulk exports write Parquet files to. The
 * platform validates it on creation by writing a test object with the given credentials; its settings cannot change
 * (a change replaces it), its credentials can be rotated in place, and the platform cannot delete it.
 */
import type { Destination } from '../../../api/schemas/bulk-export';
import {
  DiagnosticError,
  defineResource,
  timeoutMs,
  type CreateRequest,
  type DeleteRequest,
  type ImportRequest,
  type ReadRequest,
  type UpdateRequest,
} from '../../framework';
import { workspaceOf } from '../shared/workspace';
import { bulkExportClient, statusOf } from '../shared/bulk-export-client';
import { whileKeysPropagate } from '../shared/key-propagation';
import { createOutcome, takeCreateKey, unansweredSummary } from '../shared/unanswered-create';
import { confirmGone } from '../../api-errors';
import { createBody, credentialsBody, toModel } from './body';
import { destinationCreatedUnanswered } from './find';
import { destinationKept, refusal } from './messages';
import { plan, validate } from './plan';
import { DESTINATION_TIMEOUTS, exportDestinationSchema, type ExportDestinationModel, type ExportDestinationSchema } from './schema';

type Schema = ExportDestinationSchema;
const timeouts = DESTINATION_TIMEOUTS;

// ---- create ----

async function create({ config, planned, ctx, signal, diagnostics }: CreateRequest<Schema>): Promise<ExportDestinationModel> {
  const client = bulkExportClient(ctx);
  let destination: Destination;
  const body = createBody(planned, config.credentials);
  const idempotencyKey = takeCreateKey('agentplatform_export_destination', { ...body, credentials: body.credentials ? Object.keys(body.credentials).sort() : undefined });
  const timeLimitMs = timeoutMs(planned.timeouts, 'create', timeouts);
  const deadlineMs = Date.now() + timeLimitMs;
  // when the last attempt went out (those before it were refused)
  let sentAtMs = Date.now();
  const send = (left: number): Promise<Destination> => {
    sentAtMs = Date.now();
    return client.createDestination(body, { signal, timeoutMs: left, idempotencyKey });
  };
  try {
    destination = config.credentials === null ? await send(timeLimitMs) : await whileKeysPropagate(send, { timeLimitMs, signal, log: (line) => ctx.log.info(line) });
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw refusal(diagnostics, err, planned, config.credentials, 'create');
    const found = await destinationCreatedUnanswered(client, planned, { sentAtMs, err: err as Error, outcome, stop: signal, deadlineMs });
    if (found instanceof DiagnosticError) throw found;
    diagnostics.warning(
      unansweredSummary(outcome, `export destination "${planned.display_name}"`),
      `${(err as Error).message}. It had created destination ${found.id} with this name, bucket and prefix: it is kept in state.`,
    );
    destination = found;
  }
  ctx.log.info(`created export destination ${destination.id} (${destination.display_name})`);
  return toModel(destination, planned);
}

// ---- read ----

async function read({ state, ctx, signal }: ReadRequest<Schema>): Promise<ExportDestinationModel | null> {
  const client = bulkExportClient(ctx, workspaceOf(state));
  try {
    return toModel(await client.getDestination(state.id!, { signal }), state);
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    await confirmGone(err, 'tracing', () => client.listDestinations({ signal }));
    return null;
  }
}

// ---- update ----

async function update({ config, planned, prior, ctx, signal, diagnostics }: UpdateRequest<Schema>): Promise<ExportDestinationModel> {
  const namesKept = JSON.stringify(planned.credentials_keys) === JSON.stringify(prior.credentials_keys);
  if ((planned.credentials_version === prior.credentials_version && namesKept) || config.credentials === null) {
    return { ...prior, credentials_version: planned.credentials_version, timeouts: planned.timeouts };
  }
  let destination: Destination;
  const keys = credentialsBody(config.credentials);
  try {
    destination = await whileKeysPropagate((left) => bulkExportClient(ctx, workspaceOf(prior)).rotateDestinationCredentials(prior.id!, keys, { signal, timeoutMs: left }), {
      timeLimitMs: timeoutMs(planned.timeouts, 'update', timeouts),
      signal,
      log: (line) => ctx.log.info(line),
    });
  } catch (err) {
    throw refusal(diagnostics, err, prior, config.credentials, 'rotate');
  }
  ctx.log.info(`rotated the credentials of export destination ${destination.id}`);
  return toModel(destination, planned);
}

// ---- delete ----

async function remove({ state, diagnostics }: DeleteRequest<Schema>): Promise<void> {
  destinationKept(diagnostics, state.id!, state.display_name);
}

// ---- import ----

async function importDestination({ id, ctx, signal }: ImportRequest): Promise<Partial<ExportDestinationModel>> {
  // spec: Bulk export destination, `id` is a plain string
  if (id.trim() === '') throw new DiagnosticError('Invalid import id', 'Import an export destination by its id, as the platform shows it.');
  try {
    await bulkExportClient(ctx).getDestination(id, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    throw new DiagnosticError('Cannot import export destination', `There is no export destination ${id} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`);
  }
  return { id };
}

export default defineResource({
  typeName: 'agentplatform_export_destination',
  schema: exportDestinationSchema,
  validate,
  plan,
  create,
  read,
  update,
  delete: remove,
  import: importDestination,
});
