/**
 * Loads hyparquet-writer. It is published only as ES modules: about 50 files with the parts of hyparquet it
 * imports, which each encode worker loads again, through Node's loader for ES modules (22–42 ms per worker). So the
 * build bundles them into one CommonJS file next to this one (scripts/bundle-parquet-writer.ts), which a worker
 * loads in about 3 ms; with it, the first export after start took about 3% less time (docs/export-benchmark.md).
 * The bundle is used only when it holds the installed version: a bundle left from a build before an upgrade is passed
 * over. Where there is none (the sources run as they are, as the tests do), the package itself is loaded: Node 20.19+
 * can `require()` an ES module natively, but jest's module registry cannot, so both are loaded through Node's own
 * `require` (reached via `process.getBuiltinModule`), which behaves the same under jest and in production.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as HyparquetWriter from 'hyparquet-writer';

type NodeModuleApi = { createRequire(filename: string): NodeJS.Require };
type ProcessWithBuiltins = NodeJS.Process & { getBuiltinModule?(id: string): unknown };

/** The bundle the build writes next to the compiled loader. */
export const BUNDLED_WRITER_FILE = join(__dirname, 'hyparquet-writer.cjs');

/** The package the bundle is made of. */
export const WRITER_PACKAGE = 'hyparquet-writer';

/** What an installed package's package.json says. */
export interface PackageManifest {
  /** Its directory. */
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  readonly license: string;
}

/**
 * The manifest of the package `name` as Node resolves it from `fromDir`: the first package.json of that name above
 * its entry file (its exports may hide the package.json itself).
 */
export function packageManifest(name: string, fromDir: string): PackageManifest {
  let dir = dirname(require.resolve(name, { paths: [fromDir] }));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; license?: string };
      if (manifest.name === name) return { dir, name, version: String(manifest.version), license: String(manifest.license) };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of ${name}`);
    dir = parent;
  }
}

/** The first line of a bundle names what it holds: `/*! hyparquet-writer <version> (...` (see the build script). */
export const bundleBanner = (notices: readonly string[]): string => `/*! ${notices.join(', ')}: bundled by scripts/bundle-parquet-writer.ts; see their LICENSE files */`;

/** The hyparquet-writer version a bundle holds, from its first line; undefined when it names none. */
function bundledVersion(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(256);
    const read = readSync(fd, head, 0, head.length, 0);
    return new RegExp(`^/\\*! ${WRITER_PACKAGE} (\\S+) `).exec(head.subarray(0, read).toString('utf8'))?.[1];
  } finally {
    closeSync(fd);
  }
}

let cached: typeof HyparquetWriter | undefined;

/** The hyparquet-writer module, loaded once: the build's bundle when it holds the installed version, else the package. */
export function hyparquetWriter(): typeof HyparquetWriter {
  cached ??= loadHyparquetWriter(BUNDLED_WRITER_FILE);
  return cached;
}

/** Loads the bundle at `bundleFile` when it exists and holds the installed version, else the package. */
export function loadHyparquetWriter(bundleFile: string): typeof HyparquetWriter {
  const builtins = (process as ProcessWithBuiltins).getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
  const nativeRequire = builtins ? builtins.createRequire(__filename) : require;
  const current = existsSync(bundleFile) && bundledVersion(bundleFile) === packageManifest(WRITER_PACKAGE, __dirname).version;
  return nativeRequire(current ? bundleFile : WRITER_PACKAGE) as typeof HyparquetWriter;
}
