/**
 * The configured provider as handlers see it: resolved settings, the stop signal, the logger, and API clients that
 * are created (and their modules loaded) only when a handler first asks for one, so commands that never call an API
 * never pay for loading the clients.
 */
import type { ControlPlaneClient } from '../api/control-plane';
import type { TransportOptions } from '../api/http';
import { PROVIDER_VERSION } from './constants';
import { DiagnosticError } from './framework/diagnostics';
import type { Logger } from './log';
import { PROVIDER_ENV, type ProviderConfig } from './provider-config';

/** The platform APIs, each with its own base URL. */
export type ApiName = 'control-plane' | 'tracing';

/** The setting of each API's base URL, its environment variable, and what the messages call the API. */
export const URL_SETTING: Readonly<Record<ApiName, { readonly attribute: string; readonly env: string; readonly what: string }>> = {
  'control-plane': { attribute: 'control_plane_url', env: PROVIDER_ENV.controlPlaneUrl, what: 'control plane' },
  tracing: { attribute: 'tracing_url', env: PROVIDER_ENV.tracingUrl, what: 'tracing API' },
};

/** Everything a handler needs from the configured provider. */
export class ProviderContext {
  private readonly clients = new Map<string, unknown>();
  private readonly closers: (() => Promise<void>)[] = [];

  constructor(
    /** Resolved settings (never log `config.apiKey`). */
    readonly config: ProviderConfig,
    /** Aborted by StopProvider (Ctrl-C): every wait in flight must end. */
    readonly signal: AbortSignal,
    /** Provider logs (terraform shows them with TF_LOG). */
    readonly log: Logger,
    /** Version of the terraform that configured the provider. */
    readonly terraformVersion: string,
  ) {}

  /**
   * Transport settings for one API; throws a diagnostic when its URL or the key is not set or not yet known. Requests
   * go to the provider's workspace, or to `tenantId` (the workspace an object in state is in).
   */
  transportOptions(api: ApiName, tenantId?: string | null): TransportOptions {
    const setting = URL_SETTING[api];
    const baseUrl = api === 'control-plane' ? this.config.controlPlaneUrl : this.config.tracingUrl;
    if (this.config.unknown.length) {
      throw new DiagnosticError(
        'Provider configuration not known yet',
        `The provider block uses values known only after apply (${this.config.unknown.join(', ')}). ` +
          'Apply the resources they come from first (terraform apply -target=...), or set them from variables.',
      );
    }
    if (!baseUrl) {
      throw new DiagnosticError(
        `Missing ${setting.what} URL`,
        `Set \`${setting.attribute}\` in the provider block or the ${setting.env} environment variable.`,
      );
    }
    if (!this.config.apiKey) {
      throw new DiagnosticError('Missing API key', `Set \`api_key\` in the provider block or the ${PROVIDER_ENV.apiKey} environment variable.`);
    }
    const workspace = tenantId ?? this.config.tenantId;
    return {
      baseUrl,
      auth: { kind: 'api-key', apiKey: this.config.apiKey, ...(workspace ? { tenantId: workspace } : {}) },
      timeoutMs: this.config.requestTimeoutMs,
      retry: { maxRetries: this.config.maxRetries },
      userAgent: `terraform-provider-agentplatform/${PROVIDER_VERSION} terraform/${this.terraformVersion || 'unknown'}`,
    };
  }

  /**
   * The control plane client (deployments, revisions, sandbox templates) of the provider's workspace, or of
   * `tenantId` (the workspace a deployment in state is in).
   */
  controlPlane(tenantId?: string | null): ControlPlaneClient {
    return this.client(`control-plane/${this.workspaceKey(tenantId)}`, () => {
      // Loaded on first use: the client pulls in undici and zod, which plain validate/plan runs never need.
      const { ControlPlaneClient: Client } = require('../api/control-plane') as typeof import('../api/control-plane');
      const client = new Client(this.transportOptions('control-plane', tenantId));
      this.closers.push(() => client.transport.close());
      return client;
    });
  }

  /**
   * The workspace a client of `tenantId` (or of the provider's workspace) sends to, as a key of the clients: one
   * client, and one record of the platform's clock, per workspace whichever way it was named.
   */
  workspaceKey(tenantId?: string | null): string {
    return (tenantId ?? this.config.tenantId ?? '').toLowerCase();
  }

  /**
   * Any other client, created once per configured provider and key: `ctx.client('bulk-export/<workspace>', (ctx) =>
   * new BulkExportClient(ctx.transportOptions('tracing', workspace)))`. A client with a `close()` method is closed on shutdown.
   */
  client<T>(key: string, create: (ctx: ProviderContext) => T): T {
    if (!this.clients.has(key)) {
      const created = create(this);
      const closable = created as { close?: () => Promise<void> };
      if (typeof closable.close === 'function') this.closers.push(() => closable.close!());
      this.clients.set(key, created);
    }
    return this.clients.get(key) as T;
  }

  /** Closes every client created so far. */
  async close(): Promise<void> {
    await Promise.allSettled(this.closers.splice(0).map((close) => close()));
  }
}
