/**
 * Reading a provider release directory, as `npm run release:provider` writes it: the zips of the executables and the
 * network mirror's documents `index.json` (the versions) and `<version>.json` (each platform's zip and its `h1:` and
 * `zh:` hashes); and installing its zips into a configuration's implied local mirror with their lock file. Used by
 * the mirror command and, at synth, by the constructs: node built-ins and the provider's constants only.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX } from '../provider/constants';
import { mergeLockFile } from './provider';

/** One platform's archive of a release. */
export interface ReleaseArchive {
  /** `<os>_<arch>`, e.g. `linux_amd64`. */
  readonly platform: string;
  /** The zip's file name, as `<version>.json` gives it (its URL, relative to the document). */
  readonly fileName: string;
  /** Absolute path of the zip. */
  readonly path: string;
  /** Hash of the zip's contents (`h1:`), the same for the zip and its unpacked directory. */
  readonly h1: string;
  /** SHA-256 of the zip itself (`zh:`). */
  readonly zh: string;
}

/** One version of a release directory. */
export interface ProviderRelease {
  /** Absolute path of the release directory. */
  readonly dir: string;
  readonly version: string;
  /** Absolute path of `<version>.json`. */
  readonly document: string;
  /** Its text, as read. */
  readonly documentText: string;
  /** Every platform it lists, sorted by platform. */
  readonly archives: readonly ReleaseArchive[];
}

/** A release directory that is not one, or not whole; the message says which file and what to do. */
export class ReleaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseError';
  }
}

const BUILD_HINT = 'give the folder that "npm run release:provider" writes (dist/release/<version>/), copied whole';

/** A version as terraform's provider registry protocol allows it (semantic versioning). */
export const VERSION_PATTERN = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const PLATFORM_PATTERN = /^[a-z0-9]+_[a-z0-9]+$/;

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ReleaseError(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)}): ${BUILD_HINT}.`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ReleaseError(`${path} is not valid JSON (${(err as Error).message}): ${BUILD_HINT}.`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The versions a release directory holds, from its `index.json`. */
export function releaseVersions(dir: string): string[] {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new ReleaseError(`${root} is not a directory: ${BUILD_HINT}.`);
  const index = join(root, 'index.json');
  if (!existsSync(index)) throw new ReleaseError(`${root} is not a provider release: it holds no index.json: ${BUILD_HINT}.`);
  const json = readJson(index);
  const versions = isObject(json) && isObject(json.versions) ? Object.keys(json.versions) : undefined;
  if (!versions || versions.length === 0) throw new ReleaseError(`${index} lists no versions (it must read {"versions": {"<version>": {}}}): ${BUILD_HINT}.`);
  const odd = versions.find((version) => !VERSION_PATTERN.test(version));
  if (odd !== undefined) throw new ReleaseError(`${index} lists ${JSON.stringify(odd)}, which is not a version like 1.2.3: ${BUILD_HINT}.`);
  return versions;
}

/**
 * One version of a release directory: `<version>.json` read, and every zip it names present in the directory.
 * The zips' hashes are checked by {@link verifyArchives}, which reads them whole.
 */
export function readRelease(dir: string, version: string): ProviderRelease {
  const root = resolve(dir);
  const document = join(root, `${version}.json`);
  if (!existsSync(document)) {
    throw new ReleaseError(`${root} holds no ${version}.json, the document of version ${version} (${releaseListing(root)}): ${BUILD_HINT}.`);
  }
  const documentText = readFileSync(document, 'utf8');
  const json = readJson(document);
  const entries = isObject(json) && isObject(json.archives) ? Object.entries(json.archives) : undefined;
  if (!entries || entries.length === 0) throw new ReleaseError(`${document} lists no archives (it must read {"archives": {"<os>_<arch>": {...}}}): ${BUILD_HINT}.`);
  const archives = entries.map(([platform, entry]): ReleaseArchive => {
    const where = `${document}, archive ${JSON.stringify(platform)}`;
    if (!PLATFORM_PATTERN.test(platform)) throw new ReleaseError(`${where}: not a platform like linux_amd64: ${BUILD_HINT}.`);
    const url = isObject(entry) ? entry.url : undefined;
    // the zip must sit beside the document, by the name a filesystem mirror's packed layout gives it
    const expected = `${PROVIDER_EXECUTABLE_PREFIX}_${version}_${platform}.zip`;
    if (url !== expected) throw new ReleaseError(`${where}: its url is ${JSON.stringify(url)}, not ${JSON.stringify(expected)} (the zip beside ${version}.json): ${BUILD_HINT}.`);
    const hashes = isObject(entry) && Array.isArray(entry.hashes) ? entry.hashes.filter((h): h is string => typeof h === 'string') : [];
    const h1 = hashes.find((h) => h.startsWith('h1:'));
    const zh = hashes.find((h) => /^zh:[0-9a-f]{64}$/.test(h));
    if (!h1 || !zh) throw new ReleaseError(`${where}: lists no ${h1 ? 'zh:' : 'h1:'} hash (a release lists both for every zip): ${BUILD_HINT}.`);
    const path = join(root, url);
    if (!existsSync(path)) {
      throw new ReleaseError(`${url}, the zip of ${platform} that ${version}.json names, is missing from ${root}: copy the release folder whole (its zips with its JSON files).`);
    }
    return { platform, fileName: url, path, h1, zh };
  });
  archives.sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
  return { dir: root, version, document, documentText, archives };
}

function releaseListing(root: string): string {
  try {
    return `index.json lists ${releaseVersions(root).join(', ')}`;
  } catch {
    return 'its index.json cannot be read';
  }
}

/** The `zh:` hash of a file: its SHA-256 in hex. */
export function zipHash(path: string): string {
  return `zh:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
}

/** Checks that each archive's zip (of `platforms`, or all) is the file `<version>.json` lists, by its `zh:` hash. */
export function verifyArchives(release: ProviderRelease, platforms?: readonly string[]): void {
  for (const archive of release.archives) {
    if (platforms && !platforms.includes(archive.platform)) continue;
    const actual = zipHash(archive.path);
    if (actual !== archive.zh) {
      throw new ReleaseError(
        `${archive.path} is not the zip that ${release.version}.json lists for ${archive.platform}: its SHA-256 is ${actual}, the release lists ` +
          `${archive.zh}. The file changed after the release was built (an unfinished download or copy?): copy the release folder again, ` +
          'or build it again with "npm run release:provider".',
      );
    }
  }
}

/** Options of {@link installRelease}. */
export interface ReleaseInstallOptions {
  /** The directory terraform runs in: the zips go to `<dir>/terraform.d/plugins`, the lock file to `<dir>`. */
  readonly dir: string;
  /** The release directory. */
  readonly release: string;
  /** The version to install; the release must hold it. */
  readonly version: string;
  /** The platforms whose zips are installed, `<os>_<arch>`; the release must list each. */
  readonly platforms: readonly string[];
}

/** What {@link installRelease} wrote. */
export interface ReleaseInstallResult {
  /** Paths of the zips in the implied local mirror. */
  readonly archives: readonly string[];
  readonly lockFilePath: string;
  /** The hashes recorded in the lock file. */
  readonly hashes: readonly string[];
}

/** The implied local mirror's folder of the provider, where the packed layout keeps its zips. */
export const packedMirrorDir = (dir: string): string => join(resolve(dir), 'terraform.d', 'plugins', ...PROVIDER_ADDRESS.split('/'));

/**
 * Removes the zips of `version` from the implied local mirror under `dir`, except those of `keep`: terraform would
 * find both them and a launcher of the same version and platform.
 */
export function removePackedArchives(dir: string, version: string, keep: readonly string[] = []): void {
  const folder = packedMirrorDir(dir);
  if (!existsSync(folder)) return;
  const prefix = `${PROVIDER_EXECUTABLE_PREFIX}_${version}_`;
  for (const name of readdirSync(folder)) {
    if (name.startsWith(prefix) && name.endsWith('.zip') && !keep.includes(name)) rmSync(join(folder, name), { force: true });
  }
}

/**
 * Installs a release's executables into the implied local mirror under `dir` (the packed layout: the zips
 * themselves) in place of a launcher of the same version, and writes the lock file as a registry install records it:
 * the `h1:` hash of each installed platform and the `zh:` hash of every platform of the release, so that the lock
 * file also holds on the machines of the other platforms. Checks the release first (see {@link ReleaseError}).
 */
export function installRelease(options: ReleaseInstallOptions): ReleaseInstallResult {
  const versions = releaseVersions(options.release);
  if (!versions.includes(options.version)) {
    throw new ReleaseError(`${resolve(options.release)} holds version ${versions.join(', ')}, not ${options.version}: give the release of ${options.version}.`);
  }
  const release = readRelease(options.release, options.version);
  const listed = release.archives.map((a) => a.platform);
  const missing = options.platforms.filter((p) => !listed.includes(p));
  if (missing.length > 0) {
    throw new ReleaseError(`${release.document} lists no zip for ${missing.join(', ')} (it lists ${listed.join(', ')}): choose among those, or build a release with them.`);
  }
  verifyArchives(release, options.platforms);
  const chosen = release.archives.filter((a) => options.platforms.includes(a.platform));
  const folder = packedMirrorDir(options.dir);
  mkdirSync(folder, { recursive: true });
  rmSync(join(folder, options.version), { recursive: true, force: true });
  removePackedArchives(options.dir, options.version, chosen.map((a) => a.fileName));
  const archives = chosen.map((archive) => {
    const target = join(folder, archive.fileName);
    if (!existsSync(target) || zipHash(target) !== archive.zh) {
      copyFileSync(archive.path, `${target}.partial`);
      renameSync(`${target}.partial`, target);
    }
    return target;
  });
  const hashes = [...chosen.map((a) => a.h1), ...release.archives.map((a) => a.zh)];
  const lockFilePath = join(resolve(options.dir), '.terraform.lock.hcl');
  const existing = existsSync(lockFilePath) ? readFileSync(lockFilePath, 'utf8') : '';
  const updated = mergeLockFile(existing, PROVIDER_ADDRESS, options.version, hashes);
  if (updated !== existing) writeFileSync(lockFilePath, updated);
  return { archives, lockFilePath, hashes };
}
