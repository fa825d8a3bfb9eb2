/** What the measured executables share: one unary method's answer, and the provider's real schema response. */
import type { ProtoMessage } from '../../lib/provider/plugin/protobuf';

/** Request bytes in, response bytes out. */
export type UnaryAnswer = (request: Buffer) => Promise<Buffer>;

/** The RPC the executables answer: the largest message the provider sends, terraform's first call. */
export const SCHEMA_PATH = '/tfplugin6.Provider/GetProviderSchema';

/** The GetProviderSchema response of the real provider (proto field names), as `rpc/server.ts` builds it. */
export function providerSchemaResponse(): ProtoMessage {
  const { registry } = require('../../lib/provider/registry') as typeof import('../../lib/provider/registry');
  const { schemaToProto } = require('../../lib/provider/framework/schema-proto') as typeof import('../../lib/provider/framework/schema-proto');
  const { providerSchema } = require('../../lib/provider/provider-config') as typeof import('../../lib/provider/provider-config');
  const schemas = (loaders: Readonly<Record<string, () => { schema: Parameters<typeof schemaToProto>[0] }>>): ProtoMessage =>
    Object.fromEntries(Object.entries(loaders).map(([type, load]) => [type, schemaToProto(load().schema)]));
  return {
    provider: schemaToProto(providerSchema),
    resource_schemas: schemas(registry.resources),
    data_source_schemas: schemas(registry.dataSources),
    server_capabilities: { plan_destroy: false, get_provider_schema_optional: true, move_resource_state: false },
    diagnostics: [],
  };
}
