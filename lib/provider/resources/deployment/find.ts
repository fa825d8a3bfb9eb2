/**
 * A create of a deployment that got no clear answer (see `shared/unanswered-create.ts`) may have created it all the same,
 * and names are unique in a workspace: another apply would fail on the name, with a deployment running that no state
 * holds. Sending the same create again is safe, thanks to that uniqueness: it cannot make a second deployment. So the
 * provider sends it again, with the same `Idempotency-Key`, until an answer tells: a platform that honours the key
 * answers with the deployment the first request made (or makes it, if the first never arrived); one that does not
 * answers that the name is taken, and the named deployment is taken when it was created since the first request went
 * out, from the requested settings. That deployment goes into state with a warning and the create goes on (the wait
 * for DEPLOYED); a deployment of that name that is not this create's is an error that says how to import it.
 */
import type { CallOptions, ControlPlaneClient } from '../../../api/control-plane';
import type { Deployment, DeploymentCreate } from '../../../api/schemas/control-plane';
import { DiagnosticError, type Diagnostics } from '../../framework';
import { importHint } from './messages';
import { LIST_LIMIT, isBeingDeleted } from '../../../api/schemas/control-plane-constants';
import { createOutcome, createdSince, tryUntilAnswered, outcomeMeans, takeCreateKey, unansweredSummary, type UnansweredCreate } from '../shared/unanswered-create';

/** The resource type, part of every create's `Idempotency-Key`. */
const RESOURCE_TYPE = 'agentplatform_deployment';

/** How a create goes: Terraform's stop signal, where warnings go, when `timeouts.create` runs out, and its key. */
export interface CreateContext {
  readonly signal: AbortSignal;
  readonly diagnostics: Diagnostics;
  /** When the create's time limit runs out, by this machine's clock. */
  readonly deadlineMs: number;
  /** The create's `Idempotency-Key` (see {@link deploymentCreateKey}). */
  readonly idempotencyKey: string;
}

/** The `Idempotency-Key` of the create of `body` (once per create): secrets count by name. */
export function deploymentCreateKey(body: DeploymentCreate): string {
  return takeCreateKey(RESOURCE_TYPE, { ...body, secrets: body.secrets?.map((secret) => secret.name) });
}

/** A deployment the create made, and how long finding out took when its answer was lost (0 when it was answered). */
export interface Created {
  readonly deployment: Deployment;
  readonly searchedMs: number;
}

/**
 * Sends the create of `body`. When the platform may have carried it out without saying so, returns the deployment it
 * made (with a warning), or throws a DiagnosticError that says what to do; any other failure is thrown as it is.
 */
export async function createOrAdopt(client: ControlPlaneClient, body: DeploymentCreate, { signal, diagnostics, deadlineMs, idempotencyKey }: CreateContext): Promise<Created> {
  const sentAtMs = Date.now();
  try {
    return { deployment: await client.createDeployment(body, { signal, idempotencyKey }), searchedMs: 0 };
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw err;
    const sent: UnansweredCreate = { sentAtMs, err: err as Error, outcome, stop: signal, deadlineMs };
    const summary = unansweredSummary(outcome, `deployment "${body.name}"`);
    const result = await tryUntilAnswered(sent, (options) => sendAgain(client, body, idempotencyKey, sent, options));
    if (result.found) {
      diagnostics.warning(
        summary,
        `${sent.err.message}. Deployment ${result.found.id} is the one this create made (learnt by sending it again under the same ` +
          '`Idempotency-Key`, or by its name): it is kept in state, and the create goes on.',
      );
      return { deployment: result.found, searchedMs: Date.now() - sentAtMs };
    }
    const tried = result.lastFailure ? ` (last: ${result.lastFailure.message})` : '';
    throw new DiagnosticError(
      summary,
      `${sent.err.message}. ${outcomeMeans(outcome, 'deployment')}; ${result.listed ? `none named "${body.name}" is listed yet` : `the platform did not tell until the create's time limit${tried}`}. ` +
        'Applying again sends the same create, with the same `Idempotency-Key`: a platform that honours the key answers it with the deployment ' +
        'this create made. Otherwise, if the deployment shows up ' +
        `(\`GET /v2/deployments?name_contains=${encodeURIComponent(body.name)}\`), import it ` +
        `(\`terraform import agentplatform_deployment.<name> <id>\`, <name> being this resource's name in the configuration).`,
    );
  }
}

/**
 * One try of the search: the create sent again. The deployment it answers with; on 409 (the name is taken), the named
 * deployment when it is this create's, null when there is none (any more), and a DiagnosticError when it is another.
 */
async function sendAgain(
  client: ControlPlaneClient,
  body: DeploymentCreate,
  idempotencyKey: string,
  sent: UnansweredCreate,
  options: CallOptions,
): Promise<Deployment | null> {
  try {
    return await client.createDeployment(body, { ...options, idempotencyKey });
  } catch (err) {
    if ((err as { status?: number }).status !== 409) throw err;
  }
  const found = await deploymentNamed(client, body.name, options);
  if (found === null || found === 'unlisted') return null;
  if (createdSince(found.created_at, sent.sentAtMs, client.transport) && isRequested(found, body)) return found;
  throw new DiagnosticError(
    unansweredSummary(sent.outcome, `deployment "${body.name}"`),
    `${sent.err.message}. A deployment named "${body.name}" exists (id ${found.id}, created ${found.created_at ?? 'at a time the platform does not show'}), but it is not the one ` +
      'this request would have made: it was created before the request went out, or from other settings. If it is the one ' +
      `this configuration means, import it.\n\n${importHint(found.id)}`,
  );
}

/** Pages of the name look-up at most. */
const LOOKUP_PAGES = 10;

/**
 * The deployment named `name` (unique in the workspace); null when there is none, `unlisted` when other names that
 * contain this one filled every page looked at. The list filters by a part of the name, so the look-up goes through
 * its pages. `options` are those of each request; a failed request is thrown.
 */
export async function deploymentNamed(
  client: ControlPlaneClient,
  name: string,
  options: CallOptions,
): Promise<Deployment | null | 'unlisted'> {
  for (let page = 0, offset = 0; page < LOOKUP_PAGES; page += 1) {
    const listed = await client.listDeployments({ nameContains: name, limit: LIST_LIMIT.max, offset }, options);
    const named = listed.resources.find((d) => d.name === name);
    if (named) return named;
    if (listed.resources.length < LIST_LIMIT.max) return null;
    offset += listed.resources.length;
  }
  return 'unlisted';
}

/**
 * Whether `d` is what `body` asks for: the same source, every setting the request sent (the platform fills in the
 * ones it left out), and the same secret names. A deployment someone else made under the name meanwhile differs in
 * one of them, or was made before the request went out (see `createdSince`).
 */
export function isRequested(d: Deployment, body: DeploymentCreate): boolean {
  const names = (secrets: readonly { readonly name: string }[] | undefined): string =>
    JSON.stringify((secrets ?? []).map((secret) => secret.name).sort());
  return (
    !isBeingDeleted(d.status) &&
    d.source === body.source &&
    holds(body.source_config, d.source_config) &&
    holds(body.source_revision_config, d.source_revision_config) &&
    names(d.secrets) === names(body.secrets)
  );
}

/** Whether `got` has every value `asked` has (objects field by field; what `asked` leaves out is not compared). */
function holds(asked: unknown, got: unknown): boolean {
  if (asked === undefined) return true;
  if (asked === null || typeof asked !== 'object') return asked === got;
  if (got === null || typeof got !== 'object') return false;
  return Object.entries(asked).every(([key, value]) => holds(value, (got as Record<string, unknown>)[key]));
}

/** Whether the deployment holding a name (the create answered 409) is live, being deleted, or gone by now. */
export async function holderState(client: ControlPlaneClient, id: string, signal: AbortSignal): Promise<'live' | 'deleting' | 'gone'> {
  try {
    return isBeingDeleted((await client.getDeployment(id, { signal })).status) ? 'deleting' : 'live';
  } catch (err) {
    return (err as { status?: number }).status === 404 ? 'gone' : 'live';
  }
}

/** The id of the deployment holding `name` (the create answered 409), from the answer or the list; undefined when neither tells. */
export async function existingDeploymentId(client: ControlPlaneClient, name: string, err: unknown, signal: AbortSignal): Promise<string | undefined> {
  const detail = (err as { body?: { detail?: unknown } }).body?.detail;
  const quoted = typeof detail === 'string' ? /\(id ([0-9a-f-]{36})\)/i.exec(detail)?.[1] : undefined;
  if (quoted) return quoted;
  try {
    const named = await deploymentNamed(client, name, { signal });
    return named === 'unlisted' ? undefined : named?.id;
  } catch {
    // the id is a help for the message: without it, the message says to choose another name
    return undefined;
  }
}

/** The status of the latest revision: DEPLOYED when it is the active one, else asked for. */
export async function latestRevisionStatus(client: ControlPlaneClient, deployment: Deployment, signal: AbortSignal): Promise<string | null> {
  const latest = deployment.latest_revision_id;
  if (!latest) return null;
  if (latest === deployment.active_revision_id) return 'DEPLOYED';
  try {
    return (await client.getRevision(deployment.id, latest, { signal })).status;
  } catch (err) {
    // the deployment was just read (or created) through the same client, so its base URL serves the API: the
    // revision is gone
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}
