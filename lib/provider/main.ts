/**
 * The provider process's entry point: what the launcher runs and terraform talks to (`serve.ts`), with the RPC layer
 * required from beside it. The single executable has its own entry (scripts/release/sea-main.ts).
 */
import { serve as serveWith, type ServeOptions } from './serve';

export { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, type ServeOptions } from './serve';

/** Runs the provider until terraform shuts it down (see `serve.ts`); the RPC layer is `rpc-layer.ts` by default. */
export function serve(options: Partial<ServeOptions> = {}): Promise<void> {
  return serveWith({ rpcLayer: () => require('./rpc-layer') as typeof import('./rpc-layer'), ...options });
}

if (require.main === module) void serve();
