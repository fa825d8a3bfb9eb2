/**
 * `npm run new-app -- <folder> [--cdktn]`: a new app in an empty folder, with the construct package, pinned
 * versions of cdktf (or CDK Terrain with --cdktn), its CLI and TypeScript, a type-checked `main.ts` with a deployment,
 * an export destination and a scheduled export, and a `cdktf.json` that compiles and runs it. The construct package
 * (`@agentplatform/cdktf`, or `@agentplatform/cdktn`) is not on the npm registry yet: its tarball is copied into the
 * app (`vendor/`) and installed from there.
 * Run: npm run build && node dist/scripts/new-app.js <folder> [--cdktn]
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { buildPackages, tarballPath, type Flavour } from './build-packages';
import { appFiles, appPackageName, FLAVOURS } from './new-app-files';

/** A refusal to make the app, with what to do instead. */
export class NewAppError extends Error {}

/**
 * The construct package of `flavour`: its tarball in `dist/packages/`, built with both packages when missing
 * (`npm run build:packages` builds them again after a change).
 */
export function constructsTarball(flavour: Flavour): string {
  const tarball = tarballPath(flavour);
  if (!existsSync(tarball)) {
    console.log(`building the construct packages (npm run build:packages), which takes a few minutes`);
    buildPackages();
  }
  return tarball;
}

/** Refuses a folder that holds anything, or a path that is not a folder. */
function checkEmptyFolder(folder: string): void {
  if (!existsSync(folder)) return;
  if (!statSync(folder).isDirectory()) throw new NewAppError(`${folder} is not a folder: name a new or empty folder for the app.`);
  const entries = readdirSync(folder);
  if (entries.length > 0) {
    const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', …' : '');
    throw new NewAppError(`${folder} is not empty (it holds ${shown}): name a new or empty folder for the app, so that nothing of yours is overwritten.`);
  }
}

/** Makes the app in `folder` (created when missing); returns the files written, by path inside the app. */
export function createApp(folder: string, flavour: Flavour): string[] {
  checkEmptyFolder(folder);
  const tarball = constructsTarball(flavour);
  mkdirSync(join(folder, 'vendor'), { recursive: true });
  copyFileSync(tarball, join(folder, 'vendor', basename(tarball)));
  const files = appFiles(flavour, appPackageName(basename(folder)), basename(tarball));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(folder, path), content);
  return [...Object.keys(files), `vendor/${basename(tarball)}`];
}

const USAGE = 'usage: npm run new-app -- <folder> [--cdktn]';

function main(args: readonly string[]): void {
  const flags = args.filter((arg) => arg.startsWith('-'));
  const positional = args.filter((arg) => !arg.startsWith('-'));
  const unknown = flags.filter((flag) => flag !== '--cdktn');
  if (positional.length !== 1 || unknown.length > 0) {
    throw new NewAppError(`${unknown.length > 0 ? `unknown option ${unknown.join(' ')}; ` : ''}${USAGE}`);
  }
  const flavour: Flavour = flags.includes('--cdktn') ? 'cdktn' : 'cdktf';
  // npm runs the script in the repository's root; a relative folder means one relative to where npm was started
  const folder = resolve(process.env.INIT_CWD ?? process.cwd(), positional[0]!);
  const written = createApp(folder, flavour);
  const cli = FLAVOURS[flavour].core;
  console.log(`new ${cli} app in ${folder}: ${written.join(', ')}`);
  console.log('next: npm install, then start the platform and set the variables listed at the top of main.ts,');
  console.log(`then npx ${cli} deploy (the ${cli} CLI installed in the app)`);
}

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof NewAppError)) throw error;
    console.error(`new-app: ${error.message}`);
    process.exitCode = 1;
  }
}
