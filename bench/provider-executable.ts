/**
 * The linux_amd64 provider executable for the benches, made as the release makes it (scripts/release): the SEA
 * bundle, a blob of the pinned Node with and without code cache, injected into that Node's official binary.
 */
import { join } from 'node:path';
import { bundleProviderForSea, withRpcCodeCache, type SeaBundle } from '../scripts/release/bundle';
import { injectSeaBlob, makeSeaBlob } from '../scripts/release/sea';
import { RPC_ASSET, SCHEMA_ASSET } from '../scripts/release/sea-rpc';
import { PROVIDER_VERSION } from '../lib/provider/constants';

/** The bundle and the two executables built from it. */
export interface BenchExecutables {
  /** The SEA bundle (its main script also runs under a plain `node`). */
  readonly bundle: SeaBundle;
  /** The executable without any code cache (what the other platforms get). */
  readonly plain: string;
  /** The executable with the code cache of its main script and of its RPC layer (what linux_amd64 gets). */
  readonly cached: string;
}

/** Builds the two linux_amd64 executables into `dir` (about a minute: postject rewrites a 120 MB binary twice). */
export async function buildBenchExecutables(dir: string): Promise<BenchExecutables> {
  const built = benchExecutables(dir);
  const bundle = bundleProviderForSea({ outDir: join(dir, 'bundle'), version: PROVIDER_VERSION });
  await injectSeaBlob('linux_amd64', makeSeaBlob({ ...bundle, output: join(dir, 'plain.blob') }), built.plain);
  const withCache = withRpcCodeCache(bundle);
  await injectSeaBlob('linux_amd64', makeSeaBlob({ ...withCache, useCodeCache: true, output: join(dir, 'cached.blob') }), built.cached);
  return built;
}

/** Where {@link buildBenchExecutables} puts them in `dir` (to pass them to another bench process). */
export function benchExecutables(dir: string): BenchExecutables {
  const bundle = bundleLayout(join(dir, 'bundle'));
  return { bundle, plain: join(dir, 'provider-plain'), cached: join(dir, 'provider-cached') };
}

function bundleLayout(outDir: string): SeaBundle {
  return { main: join(outDir, 'provider-sea.js'), assets: { [RPC_ASSET]: join(outDir, RPC_ASSET), [SCHEMA_ASSET]: join(outDir, SCHEMA_ASSET) } };
}
