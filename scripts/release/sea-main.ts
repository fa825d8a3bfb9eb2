/**
 * Entry point of the provider's single executable: the handshake path, with the RPC layer loaded from an asset and
 * GetProviderSchema's answer read from another.
 */
import { serve } from '../../lib/provider/serve';
import { loadRpcLayer, preparedSchemaAnswer } from './sea-rpc';

void serve({ rpcLayer: loadRpcLayer, schemaAnswer: preparedSchemaAnswer });
