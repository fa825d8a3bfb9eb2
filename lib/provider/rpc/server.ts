/**
 * The tfplugin6 `Provider` service: provider-level RPCs here, resource RPCs in `resources.ts`, and the gRPC method
 * table that puts them (plus go-plugin's controller, stdio and broker services) behind the server in `plugin/`.
 * Failures become diagnostics: a gRPC error would reach the user as a bare "Plugin error".
 */
import { ProviderContext } from '../context';
import { Diagnostics, DiagnosticError, diagnosticsToProto, errorToDiagnostic } from '../framework/diagnostics';
import type { DataSourceDefinition, ResourceDefinition } from '../framework/resource';
import { objectType } from '../framework/schema';
import { schemaToProto } from '../framework/schema-proto';
import { validateAttributes } from '../framework/validate';
import type { Logger } from '../log';
import { GrpcError, GrpcStatus, type GrpcMethod } from '../plugin/grpc-status';
import { decodeMessage, encodeMessage, type ProtoMessage } from '../plugin/protobuf';
import { METHODS } from '../proto/descriptor';
import { providerSchema, resolveProviderConfig } from '../provider-config';
import type { ProviderRegistry } from '../registry';
import { decodeDynamic } from './dynamic';
import * as rpc from './resources';

/** Settings of a {@link ProviderServer}. */
export interface ProviderServerOptions {
  /** The resources and data sources served. */
  readonly registry: ProviderRegistry;
  /** Provider logs. */
  readonly log: Logger;
  /** Environment for the provider block's fallbacks. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

type Handler = (request: ProtoMessage) => Promise<ProtoMessage>;

const SERVER_CAPABILITIES = { plan_destroy: false, get_provider_schema_optional: true, move_resource_state: false };

/** Serves the tfplugin6 Provider service. */
export class ProviderServer implements rpc.RpcState {
  readonly log: Logger;
  private ctx: ProviderContext | undefined;
  private stop = new AbortController();
  private schemaResponse: ProtoMessage | undefined;
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly dataSources = new Map<string, DataSourceDefinition>();
  private readonly handlers: Readonly<Record<string, Handler>>;

  constructor(private readonly options: ProviderServerOptions) {
    this.log = options.log;
    const withDiagnostics = (summary: string, fn: (request: ProtoMessage, d: Diagnostics) => ProtoMessage | Promise<ProtoMessage>): Handler => {
      return async (request) => {
        const diagnostics = new Diagnostics();
        let response: ProtoMessage = {};
        try {
          response = await fn(request, diagnostics);
        } catch (err) {
          const typeName = typeof request.type_name === 'string' ? request.type_name : undefined;
          diagnostics.add(errorToDiagnostic(this.explainError(err, typeName), `${summary}${typeName ? ` ${typeName}` : ''}`));
        }
        return { ...response, diagnostics: diagnosticsToProto(diagnostics.items) };
      };
    };
    const unsupported = (what: string): Handler => withDiagnostics(what, (_r, d) => (d.error(what, 'The agentplatform provider does not offer this.'), {}));
    this.handlers = {
      GetMetadata: withDiagnostics('Failed to list provider contents', () => this.metadata()),
      GetProviderSchema: withDiagnostics('Failed to build the provider schema', () => this.providerSchema()),
      ValidateProviderConfig: withDiagnostics('Failed to validate the provider configuration', (r, d) => {
        validateAttributes(providerSchema.attributes, decodeDynamic(r.config, objectType(providerSchema.attributes)), d);
        return {};
      }),
      ConfigureProvider: withDiagnostics('Failed to configure the provider', (r, d) => this.configure(r, d)),
      ValidateResourceConfig: withDiagnostics('Failed to validate', (r, d) => rpc.validateConfig(this, r, 'resource', d)),
      ValidateDataResourceConfig: withDiagnostics('Failed to validate', (r, d) => rpc.validateConfig(this, r, 'data source', d)),
      UpgradeResourceState: withDiagnostics('Failed to upgrade the stored state of', (r, d) => rpc.upgradeResourceState(this, r, d)),
      ReadResource: withDiagnostics('Failed to read', (r, d) => rpc.readResource(this, r, d)),
      PlanResourceChange: withDiagnostics('Failed to plan', (r, d) => rpc.planResourceChange(this, r, d)),
      ApplyResourceChange: withDiagnostics('Failed to apply', (r, d) => rpc.applyResourceChange(this, r, d)),
      ImportResourceState: withDiagnostics('Failed to import', (r, d) => rpc.importResourceState(this, r, d)),
      ReadDataSource: withDiagnostics('Failed to read data source', (r, d) => rpc.readDataSource(this, r, d)),
      StopProvider: async () => {
        this.log.info('terraform asked the provider to stop: cancelling every wait in flight');
        this.stop.abort(new Error('the operation was cancelled (terraform is stopping)'));
        return { Error: '' };
      },
      GetFunctions: async () => ({ functions: {}, diagnostics: [] }),
      CallFunction: async (r) => ({ error: { text: `The agentplatform provider has no function ${String(r.name)}.` } }),
      MoveResourceState: unsupported('Moving resources into agentplatform resources is not supported'),
      ValidateEphemeralResourceConfig: unsupported('The agentplatform provider has no ephemeral resources'),
      OpenEphemeralResource: unsupported('The agentplatform provider has no ephemeral resources'),
      RenewEphemeralResource: unsupported('The agentplatform provider has no ephemeral resources'),
      CloseEphemeralResource: unsupported('The agentplatform provider has no ephemeral resources'),
    };
  }

  /** Handles one Provider RPC by method name, e.g. `PlanResourceChange`. */
  async call(method: string, request: ProtoMessage): Promise<ProtoMessage> {
    const handler = this.handlers[method];
    if (!handler) throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `method ${method} is not implemented`);
    const started = Date.now();
    const response = await handler(request);
    if (this.log.enabled('DEBUG')) {
      const subject = typeof request.type_name === 'string' ? ` ${request.type_name}` : '';
      this.log.debug(`${method}${subject} answered in ${Date.now() - started} ms`);
    }
    return response;
  }

  resource(typeName: string): ResourceDefinition {
    return this.load(this.resources, this.options.registry.resources, typeName, 'resource');
  }

  dataSource(typeName: string): DataSourceDefinition {
    return this.load(this.dataSources, this.options.registry.dataSources, typeName, 'data source');
  }

  explainError(err: unknown, typeName: string | undefined): unknown {
    return this.options.registry.explainError ? this.options.registry.explainError(err, typeName) : err;
  }

  context(): ProviderContext {
    if (!this.ctx) throw new DiagnosticError('Provider not configured', 'terraform called the provider before configuring it.');
    return this.ctx;
  }

  private load<T>(cache: Map<string, T>, loaders: Readonly<Record<string, () => T>>, typeName: string, kind: string): T {
    let def = cache.get(typeName);
    if (!def) {
      const loader = Object.hasOwn(loaders, typeName) ? loaders[typeName] : undefined;
      if (!loader) throw new DiagnosticError(`Unknown ${kind} type`, `The agentplatform provider has no ${kind} type ${typeName}.`);
      def = loader();
      cache.set(typeName, def);
    }
    return def;
  }

  private metadata(): ProtoMessage {
    return {
      server_capabilities: SERVER_CAPABILITIES,
      resources: Object.keys(this.options.registry.resources).map((type_name) => ({ type_name })),
      data_sources: Object.keys(this.options.registry.dataSources).map((type_name) => ({ type_name })),
    };
  }

  private providerSchema(): ProtoMessage {
    const { resources, dataSources } = this.options.registry;
    this.schemaResponse ??= {
      provider: schemaToProto(providerSchema),
      resource_schemas: Object.fromEntries(Object.keys(resources).map((t) => [t, schemaToProto(this.resource(t).schema)])),
      data_source_schemas: Object.fromEntries(Object.keys(dataSources).map((t) => [t, schemaToProto(this.dataSource(t).schema)])),
      server_capabilities: SERVER_CAPABILITIES,
    };
    return this.schemaResponse;
  }

  private async configure(request: ProtoMessage, diagnostics: Diagnostics): Promise<ProtoMessage> {
    const config = decodeDynamic(request.config, objectType(providerSchema.attributes));
    const resolved = resolveProviderConfig(config, this.options.env ?? process.env, diagnostics);
    if (this.stop.signal.aborted) this.stop = new AbortController();
    await this.ctx?.close();
    this.ctx = new ProviderContext(resolved, this.stop.signal, this.log, String(request.terraform_version ?? ''));
    return {};
  }

  /** Closes the API clients of the configured provider. */
  async close(): Promise<void> {
    await this.ctx?.close();
  }
}

/** What happens on go-plugin's `GRPCController/Shutdown`. */
export type ShutdownHook = () => void;

/** Maps gRPC paths to methods: the Provider service, go-plugin's controller, and the silent stdio/broker streams. */
export function grpcMethods(server: ProviderServer, onShutdown: ShutdownHook): (path: string) => GrpcMethod | undefined {
  return (path) => {
    const spec = METHODS[path];
    if (!spec) return undefined;
    const [requestType, responseType, stream] = spec;
    if (stream) return { kind: 'idle-stream' };
    if (path === '/plugin.GRPCController/Shutdown') {
      return { kind: 'unary', call: async () => Buffer.alloc(0), afterResponse: onShutdown };
    }
    const method = path.slice(path.lastIndexOf('/') + 1);
    return {
      kind: 'unary',
      call: async (bytes) => {
        let request: ProtoMessage;
        try {
          request = decodeMessage(requestType, bytes);
        } catch (err) {
          throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `malformed ${method} request: ${(err as Error).message}`);
        }
        return encodeMessage(responseType, await server.call(method, request));
      },
    };
  };
}
