/**
 * A provider mirror from a release directory (`agentplatform-provider mirror`): the release's zips and `<version>.json`
 * copied into `<mirror>/registry.terraform.io/agentplatform/agentplatform/`, and `index.json` there listing every
 * version the folder holds. The folder is then both a filesystem mirror (terraform's packed layout) and, served by
 * any static HTTPS server, a network mirror: terraform reads the same documents and zips from either.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROVIDER_ADDRESS } from '../provider/constants';
import { VERSION_PATTERN, readRelease, releaseVersions, verifyArchives } from './release';

/** Options of {@link mirrorRelease}. */
export interface MirrorOptions {
  /** The release directory (`dist/release/<version>/`). */
  readonly release: string;
  /** The mirror directory: the one that holds `registry.terraform.io/`. */
  readonly dir: string;
}

/** One version {@link mirrorRelease} copied. */
export interface MirroredVersion {
  readonly version: string;
  /** Its platforms, `<os>_<arch>`. */
  readonly platforms: readonly string[];
  /** Whether the mirror held this version before with other hashes (lock files that recorded those refuse it now). */
  readonly replaced: boolean;
}

/** What {@link mirrorRelease} did. */
export interface MirrorResult {
  /** The mirror directory, absolute. */
  readonly dir: string;
  /** The provider's folder in it, holding the zips and the documents. */
  readonly providerDir: string;
  /** The versions copied from the release. */
  readonly copied: readonly MirroredVersion[];
  /** Every version the folder holds now, as `index.json` lists them. */
  readonly versions: readonly string[];
}

/** Copies a file through a temporary name, so a mirror being served never shows half a file. */
function copyWhole(from: string, to: string): void {
  const partial = `${to}.partial`;
  copyFileSync(from, partial);
  renameSync(partial, to);
}

function writeWhole(to: string, text: string): void {
  writeFileSync(`${to}.partial`, text);
  renameSync(`${to}.partial`, to);
}

/** Orders versions by their numbers, a pre-release before its release. */
function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number[], string] => {
    const [core, pre = ''] = v.split('+')[0]!.split(/-(.*)/s);
    return [core!.split('.').map(Number), pre];
  };
  const [coreA, preA] = parse(a);
  const [coreB, preB] = parse(b);
  for (let i = 0; i < 3; i++) if (coreA[i] !== coreB[i]) return coreA[i]! - coreB[i]!;
  if (preA === preB) return a < b ? -1 : a > b ? 1 : 0;
  if (!preA || !preB) return preA ? -1 : 1;
  return preA < preB ? -1 : 1;
}

/** The versions a mirror folder holds: its `<version>.json` documents. */
export function mirroredVersions(providerDir: string): string[] {
  return readdirSync(providerDir)
    .filter((name) => name.endsWith('.json') && VERSION_PATTERN.test(name.slice(0, -'.json'.length)))
    .map((name) => name.slice(0, -'.json'.length))
    .sort(compareVersions);
}

/**
 * Checks the release (its documents, every zip present and matching its `zh:` hash), then copies it into the mirror.
 * The zips go first and `index.json` last, so that a mirror in use never lists a version whose files are not there.
 */
export function mirrorRelease(options: MirrorOptions): MirrorResult {
  const releases = releaseVersions(options.release).map((version) => readRelease(options.release, version));
  for (const release of releases) verifyArchives(release);
  const dir = resolve(options.dir);
  const providerDir = join(dir, ...PROVIDER_ADDRESS.split('/'));
  mkdirSync(providerDir, { recursive: true });
  const inPlace = realpathSync(providerDir) === realpathSync(releases[0]!.dir);
  const copied = releases.map((release): MirroredVersion => {
    const document = join(providerDir, `${release.version}.json`);
    const replaced = !inPlace && existsSync(document) && readFileSync(document, 'utf8') !== release.documentText;
    if (!inPlace) {
      for (const archive of release.archives) copyWhole(archive.path, join(providerDir, archive.fileName));
      writeWhole(document, release.documentText);
    }
    return { version: release.version, platforms: release.archives.map((a) => a.platform), replaced };
  });
  const versions = mirroredVersions(providerDir);
  const index = `${JSON.stringify({ versions: Object.fromEntries(versions.map((v) => [v, {}])) }, null, 2)}\n`;
  writeWhole(join(providerDir, 'index.json'), index);
  return { dir, providerDir, copied, versions };
}

/** A string in HCL: JSON's escapes, plus the template sequences HCL would expand. */
const hclString = (value: string): string => JSON.stringify(value).replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');

/** Where the network mirror's URL goes when none is given. */
export const EXAMPLE_MIRROR_URL = 'https://mirror.example.com/terraform-providers/';

/**
 * The `provider_installation` blocks of terraform's CLI configuration for the mirror at `dir`: as a filesystem mirror,
 * and as a network mirror at `url` (the URL that serves `dir`; it must be https and end with "/"). Other providers
 * still come from their registries.
 */
export function mirrorConfiguration(dir: string, url: string = EXAMPLE_MIRROR_URL): string {
  const only = `include = [${hclString(PROVIDER_ADDRESS)}]`;
  const direct = `  direct {\n    exclude = [${hclString(PROVIDER_ADDRESS)}]\n  }\n`;
  return (
    `# as a filesystem mirror, on the machine terraform runs on:\n` +
    `provider_installation {\n  filesystem_mirror {\n    path    = ${hclString(resolve(dir))}\n    ${only}\n  }\n${direct}}\n\n` +
    `# or as a network mirror, the folder served by any static HTTPS server\n` +
    `# (${url}${PROVIDER_ADDRESS}/index.json is ${join(resolve(dir), ...PROVIDER_ADDRESS.split('/'), 'index.json')}):\n` +
    `provider_installation {\n  network_mirror {\n    url     = ${hclString(url)}\n    ${only}\n  }\n${direct}}\n`
  );
}
