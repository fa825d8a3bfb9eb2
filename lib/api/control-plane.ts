/**
 * Typed client of the deployment control plane (area A): deployments, their revisions, sandbox templates.
 * Arguments the server would refuse for certain (malformed ids, limits out of range) are refused here, before any
 * request, with an {@link InvalidArgumentError}; everything else is the server's to judge.
 */
import { z } from 'zod';
import { InvalidArgumentError } from './errors';
import { HttpTransport, type TransportOptions } from './http';
import {
  Deployment,
  DeploymentsList,
  LIST_LIMIT,
  REVISION_STATUSES,
  Revision,
  RevisionsList,
  SandboxTemplatesList,
  type DeploymentCreate,
  type DeploymentPatch,
  type RevisionStatus,
  type SandboxTemplate,
} from './schemas/control-plane';

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call (and its retries) with an AbortError. @default none */
  readonly signal?: AbortSignal;
  /** Time allowed for each attempt, in milliseconds. @default the transport's timeout */
  readonly timeoutMs?: number;
  /** `false`: one attempt only, so that `timeoutMs` bounds the whole call. @default the transport's retry policy */
  readonly retry?: false;
  /** Sent as `Idempotency-Key` (creates); a server may ignore it (see `RequestOptions`). @default none */
  readonly idempotencyKey?: string;
}

/** A paging window of a list. */
export interface PageQuery {
  /** Items per page, 1–100. @default 20 (server default) */
  readonly limit?: number;
  /** Items to skip, >= 0. @default 0 */
  readonly offset?: number;
}

/** Filters of {@link ControlPlaneClient.listDeployments}. */
export interface DeploymentsQuery extends PageQuery {
  /** Only deployments whose name contains this text. @default no filter */
  readonly nameContains?: string;
}

/** Filters of {@link ControlPlaneClient.listRevisions}. */
export interface RevisionsQuery extends PageQuery {
  /** Only revisions in one of these statuses. @default every status */
  readonly status?: readonly RevisionStatus[];
  /** Only revisions that are (or are not) remote-reconciled. @default no filter */
  readonly remoteReconciled?: boolean;
}

/** Either the settings of a transport the client creates (and closes), or a shared transport (its owner closes it). */
export type ControlPlaneClientOptions = TransportOptions | { readonly transport: HttpTransport };

/** Page size of {@link ControlPlaneClient.iterateRevisions} when the query sets none: the largest allowed. */
const ITERATION_PAGE_SIZE = LIST_LIMIT.max;

const Uuid = z.guid();

/** Client of the deployment control plane. */
export class ControlPlaneClient {
  /** The transport every call goes through (exposed for raw requests and secret registration). */
  readonly transport: HttpTransport;
  private readonly ownsTransport: boolean;

  constructor(opts: ControlPlaneClientOptions) {
    this.ownsTransport = !('transport' in opts);
    this.transport = 'transport' in opts ? opts.transport : new HttpTransport(opts);
  }

  /** `POST /v2/deployments`. Secret values are registered for redaction before they are sent. */
  async createDeployment(body: DeploymentCreate, o: CallOptions = {}): Promise<Deployment> {
    this.registerSecrets(body.secrets);
    return this.transport.request({ method: 'POST', path: '/v2/deployments', body, schema: Deployment, ...o });
  }

  /** `GET /v2/deployments/{id}`. */
  async getDeployment(id: string, o: CallOptions = {}): Promise<Deployment> {
    return this.transport.request({ method: 'GET', path: deploymentPath(id), schema: Deployment, ...o });
  }

  /** `PATCH /v2/deployments/{id}`. Secret values are registered for redaction before they are sent. */
  async updateDeployment(id: string, patch: DeploymentPatch, o: CallOptions = {}): Promise<Deployment> {
    const path = deploymentPath(id);
    this.registerSecrets(patch.secrets);
    return this.transport.request({ method: 'PATCH', path, body: patch, schema: Deployment, ...o });
  }

  /** `DELETE /v2/deployments/{id}` (202 or 204). The deployment disappears asynchronously. */
  async deleteDeployment(id: string, o: CallOptions = {}): Promise<void> {
    return this.transport.request({ method: 'DELETE', path: deploymentPath(id), ...o });
  }

  /** `GET /v2/deployments`: one page, optionally filtered by name. */
  async listDeployments(q: DeploymentsQuery = {}, o: CallOptions = {}): Promise<DeploymentsList> {
    checkPage(q);
    return this.transport.request({
      method: 'GET',
      path: '/v2/deployments',
      query: { name_contains: q.nameContains, limit: q.limit, offset: q.offset },
      schema: DeploymentsList,
      ...o,
    });
  }

  /** `GET /v2/deployments/{id}/revisions`: one page, newest first. */
  async listRevisions(deploymentId: string, q: RevisionsQuery = {}, o: CallOptions = {}): Promise<RevisionsList> {
    const path = `${deploymentPath(deploymentId)}/revisions`;
    checkPage(q);
    // spec: list_revisions, `status` is a comma-separated list of revision statuses (Revision status: its states)
    const unknownStatus = q.status?.find((status) => !(REVISION_STATUSES as readonly string[]).includes(status));
    if (unknownStatus !== undefined) {
      throw new InvalidArgumentError('status', `"${unknownStatus}" is not a revision status (${REVISION_STATUSES.join(', ')})`);
    }
    return this.transport.request({
      method: 'GET',
      path,
      query: {
        limit: q.limit,
        offset: q.offset,
        status: q.status && q.status.length > 0 ? q.status : undefined,
        remote_reconciled: q.remoteReconciled,
      },
      schema: RevisionsList,
      ...o,
    });
  }

  /**
   * Every revision of a deployment from `q.offset` on, page after page (100 per page unless `q.limit` says
   * otherwise). Each page starts where the server's `offset` of the previous one says; iteration stops at a short
   * or empty page. Revisions are listed newest first, so a revision created during the iteration moves the older
   * ones to later pages: each revision is yielded once, however often a page shows it again.
   */
  async *iterateRevisions(deploymentId: string, q: RevisionsQuery = {}, o: CallOptions = {}): AsyncIterable<Revision> {
    const limit = q.limit ?? ITERATION_PAGE_SIZE;
    let offset = q.offset ?? 0;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.listRevisions(deploymentId, { ...q, limit, offset }, o);
      for (const revision of page.resources) {
        if (seen.has(revision.id)) continue;
        seen.add(revision.id);
        yield revision;
      }
      if (page.resources.length < limit) return;
      // A server that does not advance its offset would otherwise make this loop forever.
      offset = page.offset > offset ? page.offset : offset + page.resources.length;
    }
  }

  /** `GET /v2/deployments/{id}/revisions/{revisionId}`. */
  async getRevision(deploymentId: string, revisionId: string, o: CallOptions = {}): Promise<Revision> {
    const path = `${deploymentPath(deploymentId)}/revisions/${checkUuid('revisionId', revisionId)}`;
    return this.transport.request({ method: 'GET', path, schema: Revision, ...o });
  }

  /** `GET /v2/sandboxes/templates`: every sandbox template of the workspace. */
  async listSandboxTemplates(o: CallOptions = {}): Promise<SandboxTemplate[]> {
    const list = await this.transport.request({
      method: 'GET',
      path: '/v2/sandboxes/templates',
      schema: SandboxTemplatesList,
      ...o,
    });
    return list.templates;
  }

  /** Closes the transport when this client created it. */
  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }

  private registerSecrets(secrets: readonly { value: string }[] | undefined): void {
    for (const secret of secrets ?? []) this.transport.registerSecret(secret.value);
  }
}

function deploymentPath(id: string): string {
  return `/v2/deployments/${checkUuid('deploymentId', id)}`;
}

/** spec: Revision `id`, Deployment `id` and list_revisions' `deployment_id` are uuids. */
function checkUuid(argument: string, value: string): string {
  if (!Uuid.safeParse(value).success) throw new InvalidArgumentError(argument, `must be a UUID, got ${JSON.stringify(value)}`);
  return value;
}

/** spec: Limits, revision list `limit` is 1 to 100 and `offset` at least 0. */
function checkPage(q: PageQuery): void {
  const { limit, offset } = q;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= LIST_LIMIT.min && limit <= LIST_LIMIT.max)) {
    throw new InvalidArgumentError('limit', `must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}, got ${limit}`);
  }
  if (offset !== undefined && !(Number.isInteger(offset) && offset >= 0)) {
    throw new InvalidArgumentError('offset', `must be an integer >= 0, got ${offset}`);
  }
}
