/**
 * The provider's RPC layer as an asset of the single executable: the executable's main script holds only the
 * handshake path, and the RPC layer (most of the code: the framework, the resources, the API clients) is compiled
 * after the handshake, by the first call that needs it; GetProviderSchema is answered from another asset, prepared
 * at build time. The bundle also runs outside an executable (`node provider-sea.js`), reading both from beside it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as RpcLayer from '../../lib/provider/rpc-layer';

/** Asset key (and file name beside the main script) of the RPC layer bundle. */
export const RPC_ASSET = 'provider-rpc.js';
/** Asset key of V8's code cache of {@link RPC_ASSET}, present only in the executables built on their own platform. */
export const RPC_CODE_CACHE_ASSET = 'provider-rpc.cache';
/** Asset key (and file name beside the main script) of GetProviderSchema's answer, encoded by the layer at build time. */
export const SCHEMA_ASSET = 'provider-schema.bin';

/** The CommonJS function wrapper compiled around the layer: the code cache is valid only for this exact source. */
export function wrapCommonJs(source: string): string {
  return `(function (exports, require, module) {${source}\n})`;
}

/** Runs the layer's bundle as a CommonJS module (with V8's code cache of it, when given) and returns its exports. */
function runCommonJs(source: string, cachedData: Buffer | undefined): typeof RpcLayer {
  const { Script } = require('node:vm') as typeof import('node:vm');
  const script = new Script(wrapCommonJs(source), { filename: RPC_ASSET, cachedData });
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (exports: unknown, req: NodeJS.Require, mod: { exports: unknown }) => void;
  run(module.exports, require, module);
  return module.exports as typeof RpcLayer;
}

/** GetProviderSchema's answer prepared at build time, from the executable's assets or from beside this script. */
export function preparedSchemaAnswer(): Buffer | undefined {
  const sea = require('node:sea') as typeof import('node:sea');
  try {
    return sea.isSea() ? Buffer.from(sea.getAsset(SCHEMA_ASSET)) : readFileSync(join(__dirname, SCHEMA_ASSET));
  } catch {
    return undefined; // a bundle without it: the RPC layer answers
  }
}

/** Loads the RPC layer: from the executable's assets (with their code cache if any), else from beside this script. */
export function loadRpcLayer(): typeof RpcLayer {
  const sea = require('node:sea') as typeof import('node:sea');
  if (!sea.isSea()) return runCommonJs(readFileSync(join(__dirname, RPC_ASSET), 'utf8'), undefined);
  let cache: Buffer | undefined;
  try {
    cache = Buffer.from(sea.getAsset(RPC_CODE_CACHE_ASSET));
  } catch {
    // no code cache: an executable for a platform other than the build machine's
  }
  return runCommonJs(sea.getAsset(RPC_ASSET, 'utf8'), cache);
}
