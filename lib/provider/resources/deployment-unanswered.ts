/**
 * A create of a deployment that got no clear answer (see `unanswered-create.ts`) may have created it all the same,
 * and names are unique in a workspace: another apply would fail on the name, with a deployment running that no state
 * holds. So the provider looks the name up: the deployment of that name created since the request went out, from
 * the requested source, is taken into state with a warning and the create goes on (the wait for DEPLOYED); anything
 * else is an error that says whether a deployment of that name exists, and how to import it.
 */
import type { CallOptions, ControlPlaneClient } from '../../api/control-plane';
import type { Deployment, DeploymentCreate } from '../../api/schemas/control-plane';
import { DiagnosticError, type Diagnostics } from '../framework';
import { importHint } from './deployment-messages';
import { LIST_LIMIT, isBeingDeleted } from '../../api/schemas/control-plane-constants';
import { createOutcome, createdSince, outcomeMeans, unansweredSummary, withLookup } from './unanswered-create';

/**
 * Sends the create of `body`. When the platform may have carried it out without saying so, returns the deployment it
 * made (with a warning), or throws a DiagnosticError that says what to do; any other failure is thrown as it is.
 */
export async function createOrAdopt(
  client: ControlPlaneClient,
  body: DeploymentCreate,
  signal: AbortSignal,
  diagnostics: Diagnostics,
): Promise<Deployment> {
  const sentAtMs = Date.now();
  try {
    return await client.createDeployment(body, { signal });
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw err;
    const message = (err as Error).message;
    const summary = unansweredSummary(outcome, `deployment "${body.name}"`);
    const listed = await withLookup(signal, (options) => deploymentNamed(client, body.name, options));
    const found = listed === 'unlisted' ? undefined : listed;
    if (found && found.created_at !== undefined && createdSince(found.created_at, sentAtMs, client.transport) && isRequested(found, body)) {
      diagnostics.warning(summary, `${message}. It had created deployment ${found.id} as requested: it is kept in state, and the create goes on.`);
      return found;
    }
    if (found) {
      throw new DiagnosticError(
        summary,
        `${message}. A deployment named "${body.name}" exists (id ${found.id}, created ${found.created_at ?? 'at a time the platform does not show'}), but it is not the one ` +
          'this request would have made: it was created before the request went out, or from another source. If it is the one ' +
          `this configuration means, import it.\n\n${importHint(found.id)}`,
      );
    }
    throw new DiagnosticError(
      summary,
      `${message}. ${outcomeMeans(outcome, 'deployment')}; ${found === null ? `none named "${body.name}" is listed yet` : 'the list of deployments did not tell'}. ` +
        `Before applying again, look for it (\`GET /v2/deployments?name_contains=${encodeURIComponent(body.name)}\`), and if it shows up, import it ` +
        `(\`terraform import agentplatform_deployment.<name> <id>\`, <name> being this resource's name in the configuration): ` +
        'applying again would fail on its name.',
    );
  }
}

/** Pages of the name lookup at most. */
const LOOKUP_PAGES = 10;

/**
 * The deployment named `name` (unique in the workspace); null when there is none, `unlisted` when the list did not
 * tell (it failed, or other names that contain this one filled every page looked at). The list filters by a part of
 * the name, so the lookup goes through its pages. `options` are those of each request.
 */
export async function deploymentNamed(
  client: ControlPlaneClient,
  name: string,
  options: CallOptions,
): Promise<Deployment | null | 'unlisted'> {
  try {
    for (let page = 0, offset = 0; page < LOOKUP_PAGES; page += 1) {
      const listed = await client.listDeployments({ nameContains: name, limit: LIST_LIMIT.max, offset }, options);
      const named = listed.resources.find((d) => d.name === name);
      if (named) return named;
      if (listed.resources.length < LIST_LIMIT.max) return null;
      offset += listed.resources.length;
    }
  } catch {
    // the lookup is a help: without it, the error says what to look for
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
