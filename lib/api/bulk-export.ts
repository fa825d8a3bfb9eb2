/**
 * Typed client of the trace bulk export API (area B, paths under `/api/v1`): export destinations, exports, export
 * runs, and the trace store calls an exporter needs (projects and run ingestion). Requests carry `X-API-Key` and
 * `X-Tenant-Id`. Destination secrets are registered with the transport so they never appear in an error.
 */
import { InvalidArgumentError } from './errors';
import { isUuid } from './ids';
import { HttpTransport, type TransportOptions } from './http';
import {
  BulkExport,
  BulkExportList,
  BulkExportRunList,
  Destination,
  DestinationList,
  INTERVAL_HOURS_MAX,
  INTERVAL_HOURS_MIN,
  type BulkExportCreate,
  type BulkExportRun,
  type DestinationCreate,
  type DestinationCredentials,
} from './schemas/bulk-export';
import { RunsBatchResult, Session, SessionList, type RunsBatch, type SessionCreate, type SessionUpdate } from './schemas/tracing';

/** Per-call options. */
export interface BulkExportCallOptions {
  /** Cancels the call (and its retries) with an AbortError. @default none */
  readonly signal?: AbortSignal;
  /** Time allowed for each attempt, in milliseconds. @default the transport's timeout */
  readonly timeoutMs?: number;
  /** `false`: one attempt only, so that `timeoutMs` bounds the whole call. @default the transport's retry policy */
  readonly retry?: false;
  /** Sent as `Idempotency-Key` (creates); a server may ignore it (see `RequestOptions`). @default none */
  readonly idempotencyKey?: string;
}

/** Settings of the client's own transport, the API key's header defaulting to `X-API-Key` as the API documents. */
export type BulkExportClientOptions = TransportOptions | { readonly transport: HttpTransport };

const API = '/api/v1';

/** A tracing project id. spec: Bulk export, `session_id` is a string (uuid). */
function checkUuid(name: string, id: string): string {
  if (!isUuid(id)) throw new InvalidArgumentError(name, `must be a uuid, got "${id}"`);
  return encodeURIComponent(id);
}

/**
 * A destination or export id, which the spec types as a plain string: only an empty one is refused, since it would
 * name another path.
 */
function checkId(name: string, id: string): string {
  if (id === '') throw new InvalidArgumentError(name, 'must not be empty');
  return encodeURIComponent(id);
}

/** Client of the bulk export API. */
export class BulkExportClient {
  /** The transport every call goes through (exposed for raw requests and secret registration). */
  readonly transport: HttpTransport;
  private readonly ownsTransport: boolean;

  constructor(opts: BulkExportClientOptions) {
    this.ownsTransport = !('transport' in opts);
    if ('transport' in opts) {
      this.transport = opts.transport;
    } else {
      const auth = opts.auth.kind === 'api-key' ? { header: 'X-API-Key', ...opts.auth } : opts.auth;
      this.transport = new HttpTransport({ ...opts, auth });
    }
  }

  /**
   * `POST /api/v1/bulk-exports/destinations`. The server writes a test object to the bucket first; a failure is a
   * {@link BadRequestError} whose detail is one of `DESTINATION_ERRORS`.
   */
  async createDestination(body: DestinationCreate, o: BulkExportCallOptions = {}): Promise<Destination> {
    this.registerCredentials(body.credentials);
    return this.transport.request({ method: 'POST', path: `${API}/bulk-exports/destinations`, body, schema: Destination, ...o });
  }

  /** `GET /api/v1/bulk-exports/destinations/{id}`. */
  async getDestination(id: string, o: BulkExportCallOptions = {}): Promise<Destination> {
    const path = `${API}/bulk-exports/destinations/${checkId('destination id', id)}`;
    return this.transport.request({ method: 'GET', path, schema: Destination, ...o });
  }

  /** `GET /api/v1/bulk-exports/destinations`. */
  async listDestinations(o: BulkExportCallOptions = {}): Promise<Destination[]> {
    return this.transport.request({ method: 'GET', path: `${API}/bulk-exports/destinations`, schema: DestinationList, ...o });
  }

  /** `PATCH /api/v1/bulk-exports/destinations/{id}` with `{credentials}`: validated like a creation, then stored. */
  async rotateDestinationCredentials(
    id: string,
    credentials: DestinationCredentials,
    o: BulkExportCallOptions = {},
  ): Promise<Destination> {
    this.registerCredentials(credentials);
    const path = `${API}/bulk-exports/destinations/${checkId('destination id', id)}`;
    return this.transport.request({ method: 'PATCH', path, body: { credentials }, schema: Destination, ...o });
  }

  /** `POST /api/v1/bulk-exports`: a one-off export (`end_time`) or a scheduled one (`interval_hours`). */
  async createExport(body: BulkExportCreate, o: BulkExportCallOptions = {}): Promise<BulkExport> {
    checkId('bulk_export_destination_id', body.bulk_export_destination_id);
    checkUuid('session_id', body.session_id);
    const hasEnd = body.end_time != null;
    const hasInterval = body.interval_hours != null;
    // spec: Bulk export, `end_time` is required for non-scheduled exports and must be omitted for scheduled ones
    if (hasEnd === hasInterval) {
      throw new InvalidArgumentError('end_time', 'give exactly one of end_time (one-off export) and interval_hours (scheduled export)');
    }
    if (hasInterval) {
      const hours = body.interval_hours!;
      // spec: Scheduled exports, rule 1: interval_hours is an integer from 1 to 168
      if (!Number.isInteger(hours) || hours < INTERVAL_HOURS_MIN || hours > INTERVAL_HOURS_MAX) {
        throw new InvalidArgumentError('interval_hours', `must be an integer from ${INTERVAL_HOURS_MIN} to ${INTERVAL_HOURS_MAX}, got ${hours}`);
      }
    }
    return this.transport.request({ method: 'POST', path: `${API}/bulk-exports`, body, schema: BulkExport, ...o });
  }

  /** `GET /api/v1/bulk-exports/{id}`. */
  async getExport(id: string, o: BulkExportCallOptions = {}): Promise<BulkExport> {
    const path = `${API}/bulk-exports/${checkId('export id', id)}`;
    return this.transport.request({ method: 'GET', path, schema: BulkExport, ...o });
  }

  /** `GET /api/v1/bulk-exports`: every export of the workspace, oldest first. */
  async listExports(o: BulkExportCallOptions = {}): Promise<BulkExport[]> {
    return this.transport.request({ method: 'GET', path: `${API}/bulk-exports`, schema: BulkExportList, ...o });
  }

  /** `GET /api/v1/bulk-exports/{id}/runs`: the export's runs (one per day of its range), in range order. */
  async listExportRuns(id: string, o: BulkExportCallOptions = {}): Promise<BulkExportRun[]> {
    const path = `${API}/bulk-exports/${checkId('export id', id)}/runs`;
    return this.transport.request({ method: 'GET', path, schema: BulkExportRunList, ...o });
  }

  /**
   * `PATCH /api/v1/bulk-exports/{id}` with `{"status": "Cancelled"}`. A cancelled export cannot be restarted. Retried
   * like an idempotent request: cancelling twice leaves the export as cancelling once does (the second may answer 409).
   */
  async cancelExport(id: string, o: BulkExportCallOptions = {}): Promise<BulkExport> {
    const path = `${API}/bulk-exports/${checkId('export id', id)}`;
    return this.transport.request({ method: 'PATCH', path, body: { status: 'Cancelled' }, schema: BulkExport, retry: true, ...o });
  }

  /** `POST /api/v1/sessions`: creates a tracing project. */
  async createSession(body: SessionCreate, o: BulkExportCallOptions = {}): Promise<Session> {
    return this.transport.request({ method: 'POST', path: `${API}/sessions`, body, schema: Session, ...o });
  }

  /** `GET /api/v1/sessions/{id}`. */
  async getSession(id: string, o: BulkExportCallOptions = {}): Promise<Session> {
    const path = `${API}/sessions/${checkUuid('session id', id)}`;
    return this.transport.request({ method: 'GET', path, schema: Session, ...o });
  }

  /** `GET /api/v1/sessions?name=…`: the project of that name, or undefined. */
  async findSessionByName(name: string, o: BulkExportCallOptions = {}): Promise<Session | undefined> {
    const sessions = await this.transport.request({
      method: 'GET',
      path: `${API}/sessions`,
      query: { name },
      schema: SessionList,
      ...o,
    });
    return sessions[0];
  }

  /** `GET /api/v1/sessions`: the workspace's projects. */
  async listSessions(o: BulkExportCallOptions = {}): Promise<Session[]> {
    return this.transport.request({ method: 'GET', path: `${API}/sessions`, schema: SessionList, ...o });
  }

  /**
   * `PATCH /api/v1/sessions/{id}` (LangSmith's `updateProject`): each field sent replaces the stored one. Retried like
   * an idempotent request: the same change twice leaves the project as once does.
   */
  async updateSession(id: string, body: SessionUpdate, o: BulkExportCallOptions = {}): Promise<Session> {
    const path = `${API}/sessions/${checkUuid('session id', id)}`;
    return this.transport.request({ method: 'PATCH', path, body, schema: Session, retry: true, ...o });
  }

  /** `DELETE /api/v1/sessions/{id}`: deletes the project and its runs; a retry that finds it gone has succeeded. */
  async deleteSession(id: string, o: BulkExportCallOptions = {}): Promise<void> {
    const path = `${API}/sessions/${checkUuid('session id', id)}`;
    return this.transport.request<void>({ method: 'DELETE', path, ...o });
  }

  /** `POST /api/v1/runs/batch`: creates (`post`) and updates (`patch`) runs; a run names its project by id or name. */
  async ingestRuns(batch: RunsBatch, o: BulkExportCallOptions = {}): Promise<RunsBatchResult> {
    return this.transport.request({
      method: 'POST',
      path: `${API}/runs/batch`,
      body: { post: batch.post ?? [], patch: batch.patch ?? [] },
      schema: RunsBatchResult,
      retry: true,
      ...o,
    });
  }

  /** Closes the transport when the client created it. */
  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }

  private registerCredentials(credentials: DestinationCredentials | null | undefined): void {
    if (!credentials) return;
    this.transport.registerSecret(credentials.secret_access_key);
    if (credentials.session_token) this.transport.registerSecret(credentials.session_token);
  }
}
