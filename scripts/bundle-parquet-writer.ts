/**
 * The last step of `npm run build`: bundles hyparquet-writer (published only as ES modules, about 50 files with the
 * parts of hyparquet it imports) into one CommonJS file next to its compiled loader,
 * `dist/lib/local/tracing/parquet/hyparquet-writer.cjs` (see lib/local/tracing/parquet/esm.ts, which prefers it).
 *
 * The bundle is the installed version's own code, unchanged but for the module wrapping, and strict as ES modules
 * are: esbuild's CommonJS output of ES modules carries no `"use strict"`, and the encoder ran measurably slower in
 * sloppy mode, so the banner adds it.
 *
 * Usage: node dist/scripts/bundle-parquet-writer.js
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/** Where the bundle goes: next to the compiled esm.js, which looks for it there. */
export const BUNDLE_FILE = resolve(__dirname, '..', 'lib', 'local', 'tracing', 'parquet', 'hyparquet-writer.cjs');

/** The name, version and license of an installed package, from its package.json. */
function packageNotice(name: string, from: string): string {
  const manifest = JSON.parse(readFileSync(join(packageDirectory(name, from), 'package.json'), 'utf8')) as { version: string; license: string };
  return `${name} ${manifest.version} (${manifest.license} License)`;
}

/** The directory of an installed package (its entry may sit deeper, and its exports may hide package.json). */
function packageDirectory(name: string, from: string): string {
  let dir = dirname(require.resolve(name, { paths: [from] }));
  while (!dir.endsWith(join('node_modules', name))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the directory of ${name}`);
    dir = parent;
  }
  return dir;
}

/** Bundles the installed hyparquet-writer into `outfile` (one CommonJS file, strict mode). */
export function bundleParquetWriter(outfile: string): void {
  const writerDir = packageDirectory('hyparquet-writer', __dirname);
  const notices = [packageNotice('hyparquet-writer', __dirname), packageNotice('hyparquet', writerDir)];
  const result = buildSync({
    entryPoints: [require.resolve('hyparquet-writer')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: `/*! ${notices.join(', ')}: bundled by scripts/bundle-parquet-writer.ts; see their LICENSE files */\n"use strict";` },
    legalComments: 'inline',
    logLevel: 'warning',
  });
  if (result.errors.length > 0) throw new Error(`bundling hyparquet-writer failed: ${result.errors.map((e) => e.text).join('; ')}`);
}

if (require.main === module) bundleParquetWriter(BUNDLE_FILE);
