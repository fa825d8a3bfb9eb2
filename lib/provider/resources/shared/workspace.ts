/**
 * The workspace of each object in state. Deployments, export destinations and bulk exports each live in one
 * workspace, and a request about one finds it only there: a provider whose `tenant_id` (or `AGENTPLATFORM_TENANT_ID`)
 * changed would read it as deleted, create it again in the new workspace, and leave the first one running, known to no
 * state. So each resource keeps its object's workspace in `tenant_id`, sends every request about the object there,
 * and, when the provider is set to another workspace, plans a replacement: the new object made in the provider's
 * workspace, the old one destroyed in its own.
 */
import { attr } from '../../framework';
import { UNKNOWN } from '../../cty/value';
import type { Diagnostics, PathLike } from '../../framework/diagnostics';
import type { ProviderContext } from '../../context';

/**
 * The `tenant_id` attribute of a resource whose objects are `what` (`deployment`, ...); `old` says what becomes of
 * the object a move replaces.
 */
export function tenantIdAttribute(what: string, old = 'the old one destroyed in its own') {
  return attr.string({
    computed: true,
    useStateForUnknown: true,
    description:
      `The workspace the ${what} is in. Requests about it go there; a provider \`tenant_id\` naming another workspace ` +
      `replaces it: a new ${what} there, ${old}. See [Workspaces](../provider.md#workspaces).`,
  });
}

/** The workspace requests about an object in state go to: its own, else (state from before `tenant_id`) the provider's. */
export function workspaceOf(state: { readonly tenant_id: string | null }): string | undefined {
  return state.tenant_id ?? undefined;
}

/** A workspace id as state keeps it (the platform's ids are lower case). */
export const workspaceId = (tenantId: string): string => tenantId.toLowerCase();

/** What {@link planWorkspace} reads and sets. */
interface WorkspacePlan {
  readonly ctx: ProviderContext;
  readonly prior: { readonly tenant_id: string | null } | null;
  readonly planned: { tenant_id: unknown };
  readonly diagnostics: Diagnostics;
  requireReplace(path: PathLike): void;
}

/**
 * Plans `tenant_id`: on create, the provider's workspace (unknown when the key's default workspace is meant); on
 * update, the object's own, or, when the provider names another one, that one, replacing the object. Returns
 * whether the object moves (is replaced for its workspace).
 */
export function planWorkspace({ ctx, prior, planned, diagnostics, requireReplace }: WorkspacePlan, what: string): boolean {
  if (ctx.config.unknown.includes('tenant_id')) {
    if (!prior) {
      planned.tenant_id = UNKNOWN;
      return false;
    }
    // whether the object moves is known only once the workspace is: a plan that guessed would be contradicted at apply
    diagnostics.error(
      'Provider tenant_id not known yet',
      `The provider's \`tenant_id\` is known only after apply, so the plan cannot tell whether this ${what} stays in its ` +
        `workspace (${prior.tenant_id ?? "the provider's"}) or moves to another one. Apply what the workspace comes from first ` +
        '(terraform apply -target=...), or set `tenant_id` from a variable.',
      'tenant_id',
    );
    return false;
  }
  const configured = ctx.config.tenantId === undefined ? undefined : workspaceId(ctx.config.tenantId);
  if (!prior) {
    planned.tenant_id = configured ?? UNKNOWN;
    return false;
  }
  if (configured === undefined || prior.tenant_id === null || prior.tenant_id === configured) return false;
  planned.tenant_id = configured;
  requireReplace('tenant_id');
  diagnostics.warning(
    `The ${what} moves to another workspace`,
    `It is in workspace ${prior.tenant_id}, and the provider is set to workspace ${configured}: it is replaced by a new ` +
      `${what} there. To keep it where it is, set the provider's \`tenant_id\` back to ${prior.tenant_id}.`,
    'tenant_id',
  );
  return true;
}
