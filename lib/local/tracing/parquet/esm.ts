/**
 * hyparquet-writer is published only as an ES module. Node 20.19+ can `require()` such a module natively, but
 * jest's module registry cannot, so the module is loaded through Node's own `require` (reached via
 * `process.getBuiltinModule`), which behaves the same under jest and in production.
 */
import type * as HyparquetWriter from 'hyparquet-writer';

type NodeModuleApi = { createRequire(filename: string): NodeJS.Require };
type ProcessWithBuiltins = NodeJS.Process & { getBuiltinModule?(id: string): unknown };

let cached: typeof HyparquetWriter | undefined;

/** The hyparquet-writer module, loaded once. */
export function hyparquetWriter(): typeof HyparquetWriter {
  if (cached) return cached;
  const builtins = (process as ProcessWithBuiltins).getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
  const nativeRequire = builtins ? builtins.createRequire(__filename) : require;
  cached = nativeRequire('hyparquet-writer') as typeof HyparquetWriter;
  return cached;
}
