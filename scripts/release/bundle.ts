/**
 * The provider as one CommonJS script for a Node.js single executable application: everything it imports bundled
 * (a SEA's `require()` reaches only Node's built-in modules), and its version fixed at bundle time, since the
 * executable has no package.json to read it from (lib/provider/constants.ts).
 */
import { buildSync } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/** Options of {@link bundleProviderForSea}. */
export interface SeaBundleOptions {
  /** Folder the bundle is written into. */
  readonly outDir: string;
  /** The provider version the executable reports. */
  readonly version: string;
}

/** What a SEA is made of: the main script, and assets the executable reads with `node:sea`'s `getAsset()`. */
export interface SeaBundle {
  /** Path of the main script. */
  readonly main: string;
  /** Asset key to file path (the SEA configuration's `assets`). */
  readonly assets: Readonly<Record<string, string>>;
}

/** Bundles `lib/provider/main.ts` for a single executable; throws on any esbuild error or warning. */
export function bundleProviderForSea(options: SeaBundleOptions): SeaBundle {
  mkdirSync(options.outDir, { recursive: true });
  const main = join(options.outDir, 'provider-sea.js');
  const result = buildSync({
    entryPoints: [join(ROOT, 'lib', 'provider', 'main.ts')],
    outfile: main,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    legalComments: 'inline',
    logLevel: 'silent',
    define: { AGENTPLATFORM_PROVIDER_VERSION: JSON.stringify(options.version) },
  });
  // a warning (a module esbuild could not resolve) would ship an executable that fails at its first call
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) throw new Error(`bundling the provider failed: ${problems.map((problem) => problem.text).join('; ')}`);
  return { main, assets: {} };
}
