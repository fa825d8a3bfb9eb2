/**
 * The last step of `npm run build`: bundles hyparquet-writer (published only as ES modules, about 50 files with the
 * parts of hyparquet it imports) into one CommonJS file next to its compiled loader,
 * `dist/lib/local/tracing/parquet/hyparquet-writer.cjs` (lib/local/tracing/parquet/esm.ts, which prefers it while
 * it holds the installed version).
 *
 * The bundle is the installed version's own code, unchanged but for the module wrapping, and strict as ES modules
 * are: esbuild's CommonJS output of ES modules carries no `"use strict"`, and the encoder ran measurably slower in
 * sloppy mode, so the banner adds it. Its first line names the packages, their versions and licenses.
 *
 * Usage: node dist/scripts/bundle-parquet-writer.js
 */
import { buildSync } from 'esbuild';
import { BUNDLED_WRITER_FILE, WRITER_PACKAGE, bundleBanner, packageManifest } from '../lib/local/tracing/parquet/esm';

/** Bundles the installed hyparquet-writer into `outfile` (one CommonJS file, strict mode). */
export function bundleParquetWriter(outfile: string): void {
  const writer = packageManifest(WRITER_PACKAGE, __dirname);
  const reader = packageManifest('hyparquet', writer.dir);
  const notices = [writer, reader].map((manifest) => `${manifest.name} ${manifest.version} (${manifest.license} License)`);
  const result = buildSync({
    entryPoints: [require.resolve(WRITER_PACKAGE)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: `${bundleBanner(notices)}\n"use strict";` },
    legalComments: 'inline',
    logLevel: 'silent',
  });
  // a warning (an ES module feature esbuild cannot carry over, for example) would make a bundle that behaves otherwise
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) throw new Error(`bundling ${WRITER_PACKAGE} failed: ${problems.map((problem) => problem.text).join('; ')}`);
}

if (require.main === module) bundleParquetWriter(BUNDLED_WRITER_FILE);
