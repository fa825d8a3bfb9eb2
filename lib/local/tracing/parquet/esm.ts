/**
 * Loads hyparquet-writer. It is published only as ES modules: about 50 files with the parts of hyparquet it
 * imports, which each encode worker loads again, through Node's loader for ES modules (22–42 ms per worker). So the
 * build bundles them into one CommonJS file next to this one (scripts/bundle-parquet-writer.ts), which a worker
 * loads in about 3 ms; the encoder also ran faster from it. Where there is no bundle (the sources run as they are,
 * as the tests do), the package itself is loaded: Node 20.19+ can `require()` an ES module natively, but jest's
 * module registry cannot, so both are loaded through Node's own `require` (reached via `process.getBuiltinModule`),
 * which behaves the same under jest and in production.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type * as HyparquetWriter from 'hyparquet-writer';

type NodeModuleApi = { createRequire(filename: string): NodeJS.Require };
type ProcessWithBuiltins = NodeJS.Process & { getBuiltinModule?(id: string): unknown };

/** The bundle the build writes next to the compiled loader. */
export const BUNDLED_WRITER_FILE = join(__dirname, 'hyparquet-writer.cjs');

let cached: typeof HyparquetWriter | undefined;

/** The hyparquet-writer module, loaded once: the build's bundle when there is one, else the package. */
export function hyparquetWriter(): typeof HyparquetWriter {
  cached ??= loadHyparquetWriter(BUNDLED_WRITER_FILE);
  return cached;
}

/** Loads the bundle at `bundleFile` when it exists, else the package. */
export function loadHyparquetWriter(bundleFile: string): typeof HyparquetWriter {
  const builtins = (process as ProcessWithBuiltins).getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
  const nativeRequire = builtins ? builtins.createRequire(__filename) : require;
  return nativeRequire(existsSync(bundleFile) ? bundleFile : 'hyparquet-writer') as typeof HyparquetWriter;
}
