/** Entry point of the provider's single executable: the handshake path, with the RPC layer loaded from an asset. */
import { serve } from '../../lib/provider/serve';
import { loadRpcLayer } from './sea-rpc';

void serve({ rpcLayer: loadRpcLayer });
