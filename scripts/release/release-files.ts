/**
 * The files of a provider release around the executables: the zips, the checksums, the registry manifest, the GPG
 * signature and the network mirror's documents. Names follow what the registry protocol and terraform expect.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ZipFile } from 'yazl';
import { PROVIDER_EXECUTABLE_PREFIX } from '../../lib/provider/constants';
import type { ReleasePlatform } from './node-packages';

/** The plugin protocol versions the provider speaks, as the registry manifest lists them. */
export const PROTOCOL_VERSIONS: readonly string[] = ['6.0'];

/**
 * The zip entries' modification time: fixed, so that a rebuild of the same inputs gives the same zip bytes. Built
 * from local date parts because the zip's DOS timestamp is local time: the stored fields are then the same in any
 * time zone.
 */
const ZIP_MTIME = (): Date => new Date(1980, 0, 1, 0, 0, 0);

/** `terraform-provider-agentplatform_v<version>`, `.exe` on Windows: the name terraform looks for in a package. */
export function executableName(version: string, platform: ReleasePlatform): string {
  return `${PROVIDER_EXECUTABLE_PREFIX}_v${version}${platform.startsWith('windows_') ? '.exe' : ''}`;
}

/** The zip of one platform: `terraform-provider-agentplatform_<version>_<os>_<arch>.zip`. */
export const zipName = (version: string, platform: ReleasePlatform): string => `${PROVIDER_EXECUTABLE_PREFIX}_${version}_${platform}.zip`;
/** The checksums of the zips and the manifest, one `sha256sum` line each. */
export const sumsName = (version: string): string => `${PROVIDER_EXECUTABLE_PREFIX}_${version}_SHA256SUMS`;
/** The detached binary GPG signature of the checksums. */
export const signatureName = (version: string): string => `${sumsName(version)}.sig`;
/** The registry manifest (protocol versions). */
export const manifestName = (version: string): string => `${PROVIDER_EXECUTABLE_PREFIX}_${version}_manifest.json`;

export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Zips the single file `file` as the entry `entryName`, mode 0755, with the fixed modification time. */
export function zipSingleFile(file: string, entryName: string, output: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new ZipFile();
    zip.addFile(file, entryName, { mtime: ZIP_MTIME(), mode: 0o100755, forceDosTimestamp: true });
    const out = createWriteStream(output);
    out.on('error', reject);
    out.on('close', () => resolve());
    zip.outputStream.on('error', reject).pipe(out);
    zip.end();
  });
}

/** Writes the manifest and returns its path. */
export function writeManifest(dir: string, version: string): string {
  const path = join(dir, manifestName(version));
  writeFileSync(path, `${JSON.stringify({ version: 1, metadata: { protocol_versions: PROTOCOL_VERSIONS } }, null, 2)}\n`);
  return path;
}

/** Writes `<hex>  <name>` lines (as `sha256sum` does) for `files`, sorted by name, and returns the path. */
export function writeSums(dir: string, version: string, files: readonly string[]): string {
  const lines = files
    .map((file) => `${sha256Hex(readFileSync(file))}  ${basename(file)}\n`)
    .sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1))
    .join('');
  const path = join(dir, sumsName(version));
  writeFileSync(path, lines);
  return path;
}

/** One platform's entry of the network mirror's `<version>.json`. */
export interface MirrorArchive {
  readonly platform: ReleasePlatform;
  /** The zip's file name: the URL relative to the JSON document. */
  readonly url: string;
  /** `h1:` of the package's contents and `zh:` of the zip. */
  readonly hashes: readonly string[];
}

/**
 * Writes the network mirror protocol's `index.json` (the one version) and `<version>.json` (each platform's zip and
 * hashes), so that the release directory, served over HTTPS, is a provider network mirror.
 */
export function writeMirrorDocuments(dir: string, version: string, archives: readonly MirrorArchive[]): void {
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify({ versions: { [version]: {} } }, null, 2)}\n`);
  const entries = Object.fromEntries(archives.map((archive) => [archive.platform, { url: archive.url, hashes: archive.hashes }]));
  writeFileSync(join(dir, `${version}.json`), `${JSON.stringify({ archives: entries }, null, 2)}\n`);
}

/** Signs `file` with a detached binary signature at `<file>.sig`, as a registry expects of `SHA256SUMS`. */
export function gpgDetachSign(file: string, key: string, gpgHome?: string): string {
  const output = `${file}.sig`;
  const home = gpgHome ? ['--homedir', gpgHome] : [];
  try {
    execFileSync('gpg', [...home, '--batch', '--yes', '--local-user', key, '--output', output, '--detach-sign', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`gpg could not sign with --gpg-key ${key}${stderr ? `: ${stderr}` : ''}`);
  }
  return output;
}
