/**
 * The provider for a Node.js single executable application, in two CommonJS bundles: the main script (the handshake
 * path, `sea-main.ts`) and the RPC layer as an asset compiled when a call needs it (`sea-rpc.ts`), plus the layer's
 * answer to GetProviderSchema, encoded at build time so that terraform's schema launch needs no layer. Everything is
 * bundled (a SEA's `require()` reaches only Node's built-in modules), and the version is fixed at bundle time, since
 * the executable has no package.json to read it from (lib/provider/constants.ts).
 */
import { buildSync, type BuildOptions } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../lib/provider/constants';
import { nodeExecutable } from './sea';
import { RPC_ASSET, RPC_CODE_CACHE_ASSET, SCHEMA_ASSET, wrapCommonJs } from './sea-rpc';

// the same from scripts/release (TypeScript) and from dist/scripts/release (compiled)
const ROOT = packageRoot();

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

/** How a script for a single executable is bundled: one CommonJS file for the Node version of the release. */
export const SEA_ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  legalComments: 'inline',
  logLevel: 'silent',
} as const satisfies BuildOptions;

/** Bundles the provider for a single executable; throws on any esbuild error or warning. */
export function bundleProviderForSea(options: SeaBundleOptions): SeaBundle {
  mkdirSync(options.outDir, { recursive: true });
  const main = join(options.outDir, 'provider-sea.js');
  const rpc = join(options.outDir, RPC_ASSET);
  bundle(join(ROOT, 'scripts', 'release', 'sea-main.ts'), main, options.version);
  const undici = join(ROOT, 'scripts', 'release', 'undici-agent.ts');
  bundle(join(ROOT, 'lib', 'provider', 'rpc-layer.ts'), rpc, options.version, { undici });
  const schema = join(options.outDir, SCHEMA_ASSET);
  execFileSync(process.execPath, ['-e', MAKE_SCHEMA_ANSWER, rpc, schema], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { main, assets: { [RPC_ASSET]: rpc, [SCHEMA_ASSET]: schema } };
}

/** The bundled RPC layer's own answer to GetProviderSchema, as it goes on the wire (the same on every platform). */
const MAKE_SCHEMA_ANSWER = `
const { writeFileSync } = require('node:fs');
const [layer, output] = process.argv.slice(1);
const { registry, ProviderServer, grpcMethods } = require(layer);
const quiet = () => undefined;
const log = { enabled: () => false, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
const method = grpcMethods(new ProviderServer({ registry, log }), quiet)('/tfplugin6.Provider/GetProviderSchema');
method.call(Buffer.alloc(0)).then((answer) => writeFileSync(output, answer));
`;

function bundle(entry: string, outfile: string, version: string, alias: Record<string, string> = {}): void {
  const result = buildSync({
    ...SEA_ESBUILD_OPTIONS,
    entryPoints: [entry],
    outfile,
    define: { AGENTPLATFORM_PROVIDER_VERSION: JSON.stringify(version) },
    alias,
  });
  // a warning (a module esbuild could not resolve) would ship an executable that fails at its first call
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) {
    throw new Error(`bundling the provider failed: ${problems.map((problem) => problem.text).join('; ')}`);
  }
}

/**
 * Compiles the RPC layer, loads every resource and data source and builds the provider schema (what terraform's
 * first calls compile), and stores the code compiled so far. V8 accepts the cache only in the same Node version on
 * the same platform, so it is made by the Linux x64 node of the pinned version, for linux_amd64 only.
 */
const MAKE_CODE_CACHE = `
const { Script } = require('node:vm');
const { readFileSync, writeFileSync } = require('node:fs');
const [source, output, filename] = process.argv.slice(1);
const script = new Script(readFileSync(source, 'utf8'), { filename });
const layer = { exports: {} };
script.runInThisContext()(layer.exports, require, layer);
const { registry, ProviderServer } = layer.exports;
for (const load of [...Object.values(registry.resources), ...Object.values(registry.dataSources)]) load();
const quiet = () => undefined;
const log = { enabled: () => false, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
const server = new ProviderServer({ registry, log });
server.call('GetProviderSchema', {}).then(() => writeFileSync(output, script.createCachedData()));
`;

/** The bundle plus a V8 code cache of its RPC layer: only for an executable that runs on linux_amd64. */
export function withRpcCodeCache(bundle: SeaBundle): SeaBundle {
  const rpc = bundle.assets[RPC_ASSET];
  if (!rpc) throw new Error(`the bundle has no ${RPC_ASSET} asset`);
  const wrapped = join(dirname(rpc), `${RPC_ASSET}.wrapped`);
  const cache = join(dirname(rpc), RPC_CODE_CACHE_ASSET);
  writeFileSync(wrapped, wrapCommonJs(readFileSync(rpc, 'utf8')));
  const args = ['-e', MAKE_CODE_CACHE, wrapped, cache, RPC_ASSET];
  execFileSync(nodeExecutable('linux_amd64'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return { main: bundle.main, assets: { ...bundle.assets, [RPC_CODE_CACHE_ASSET]: cache } };
}
