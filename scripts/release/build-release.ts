/**
 * The provider release: one single executable per platform, zipped and listed as real providers are (checksums,
 * registry manifest, optional GPG signature), plus the network mirror's documents, in one flat folder
 * (docs/release.md). Everything is built on the Linux build machine, for all platforms.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { packageHash } from '../../lib/install/provider';
import { zipHash } from '../../lib/install/release';
import { packageRoot } from '../../lib/provider/constants';
import { bundleProviderForSea, withRpcCodeCache } from './bundle';
import { adhocSignFile, removeMachOSignature } from './macho-adhoc-sign';
import { NODE_PACKAGES, type ReleasePlatform } from './node-packages';
import { removePeSignature } from './pe-signature';
import {
  executableName,
  gpgDetachSign,
  manifestName,
  writeManifest,
  writeMirrorDocuments,
  writeSums,
  zipName,
  zipSingleFile,
} from './release-files';
import { injectSeaBlob, makeSeaBlob, nodeExecutable } from './sea';

/** Every platform a release is built for, in the order they are built and listed. */
export const RELEASE_PLATFORMS = Object.keys(NODE_PACKAGES) as ReleasePlatform[];

/** The code signing identifier of the macOS executables' ad hoc signature. */
export const MACOS_IDENTIFIER = 'terraform-provider-agentplatform';

/** Options of {@link buildRelease}. */
export interface ReleaseOptions {
  /** The platforms to build. @default all five ({@link RELEASE_PLATFORMS}) */
  readonly platforms?: readonly string[];
  /** The folder the release is written into; it is replaced. @default `dist/release/<version>` */
  readonly outDir?: string;
  /** The provider version. @default the root package.json's version */
  readonly version?: string;
  /** The GPG key (id, fingerprint or user id) that signs the checksums; without one, no `.sig` is written. */
  readonly gpgKey?: string;
  /** The GnuPG home folder of that key. @default gpg's own (`GNUPGHOME` or `~/.gnupg`) */
  readonly gpgHome?: string;
  /** Where progress lines go (one per artifact with its size). @default nothing */
  readonly log?: (line: string) => void;
}

/** One platform's zip in a built release. */
export interface ReleaseArtifact {
  readonly platform: ReleasePlatform;
  /** Path of the zip. */
  readonly zip: string;
  /** The zip's size in bytes. */
  readonly size: number;
  /** Terraform's `h1:` hash of the package (the executable alone). */
  readonly h1: string;
  /** Terraform's `zh:` hash: `zh:` and the zip's SHA-256 in hex. */
  readonly zh: string;
}

/** What {@link buildRelease} wrote. */
export interface Release {
  readonly version: string;
  /** The release folder. */
  readonly dir: string;
  readonly artifacts: readonly ReleaseArtifact[];
  /** Path of the checksums file. */
  readonly sums: string;
  /** Path of the registry manifest. */
  readonly manifest: string;
  /** Path of the GPG signature of the checksums, when a key was given. */
  readonly signature?: string;
}

/** The version of the root package, the version a release gets by default. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The default release folder of a version: `dist/release/<version>`. */
export const defaultReleaseDir = (version = packageVersion()): string => join(packageRoot(), 'dist', 'release', version);

interface CheckedOptions {
  readonly platforms: readonly ReleasePlatform[];
  readonly outDir: string;
  readonly version: string;
  readonly gpgKey?: string;
  readonly gpgHome?: string;
}

function checkOptions(options: ReleaseOptions): CheckedOptions {
  const version = options.version ?? packageVersion();
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`version ${JSON.stringify(version)} is not a semantic version (1.2.3 or 1.2.3-beta.1)`);
  const requested = options.platforms ?? RELEASE_PLATFORMS;
  if (requested.length === 0) throw new Error(`--platforms names no platform: give some of ${RELEASE_PLATFORMS.join(',')}`);
  const unknown = requested.filter((platform) => !RELEASE_PLATFORMS.includes(platform as ReleasePlatform));
  if (unknown.length > 0) throw new Error(`--platforms: unknown platform ${unknown.join(', ')}; the platforms are ${RELEASE_PLATFORMS.join(',')}`);
  const platforms = RELEASE_PLATFORMS.filter((platform) => requested.includes(platform));
  if (options.gpgHome !== undefined && options.gpgKey === undefined) throw new Error('--gpg-home is only used with --gpg-key: give the key that signs the checksums');
  if (options.gpgKey !== undefined && options.gpgKey.trim() === '') throw new Error('--gpg-key is empty: give a key id, fingerprint or user id');
  if (options.gpgHome !== undefined && !existsSync(options.gpgHome)) throw new Error(`--gpg-home ${options.gpgHome} does not exist: give the GnuPG home folder of the key`);
  if (options.gpgKey !== undefined) {
    try {
      execFileSync('gpg', ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error('--gpg-key needs gpg on the PATH: install GnuPG (Debian: apt-get install gnupg)');
    }
  }
  const outDir = resolve(options.outDir ?? defaultReleaseDir(version));
  // the folder is replaced: refuse one that holds anything but an earlier release of this version
  if (existsSync(outDir) && readdirSync(outDir).length > 0 && !existsSync(join(outDir, manifestName(version)))) {
    throw new Error(`--out ${outDir} holds files that are not a release of ${version}: give a new or empty folder`);
  }
  return { platforms, outDir, version, gpgKey: options.gpgKey, gpgHome: options.gpgHome };
}

/** Builds the release; see {@link ReleaseOptions}. The folder appears complete or not at all. */
export async function buildRelease(options: ReleaseOptions = {}): Promise<Release> {
  const checked = checkOptions(options);
  const { platforms, outDir, version } = checked;
  const log = options.log ?? (() => undefined);
  mkdirSync(dirname(outDir), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'provider-release-'));
  const staging = `${outDir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    const bundle = bundleProviderForSea({ outDir: join(work, 'bundle'), version });
    const blobs = new Map<boolean, string>();
    const blobFor = (useCodeCache: boolean): string => {
      let blob = blobs.get(useCodeCache);
      if (!blob) {
        // the code cache of the main script (useCodeCache) and of the RPC layer, an asset compiled on the first call
        const parts = useCodeCache ? withRpcCodeCache(bundle) : bundle;
        blob = makeSeaBlob({ main: parts.main, assets: parts.assets, useCodeCache, output: join(work, useCodeCache ? 'code-cache.blob' : 'plain.blob') });
        blobs.set(useCodeCache, blob);
      }
      return blob;
    };
    const artifacts: ReleaseArtifact[] = [];
    for (const platform of platforms) {
      // only a blob made on the platform it runs on may carry V8's code cache: the build machine is linux_amd64
      const artifact = await buildPlatform(platform, version, blobFor(platform === 'linux_amd64'), work, staging);
      artifacts.push(artifact);
      log(`${zipName(version, platform).padEnd(56)} ${formatSize(artifact.size)}`);
    }
    const manifest = writeManifest(staging, version);
    const sums = writeSums(staging, version, [...artifacts.map((artifact) => artifact.zip), manifest]);
    writeMirrorDocuments(
      staging,
      version,
      artifacts.map((artifact) => ({ platform: artifact.platform, url: zipName(version, artifact.platform), hashes: [artifact.h1, artifact.zh] })),
    );
    const signature = checked.gpgKey ? gpgDetachSign(sums, checked.gpgKey, checked.gpgHome) : undefined;
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
    const moved = (path: string): string => join(outDir, path.slice(staging.length + 1));
    return {
      version,
      dir: outDir,
      artifacts: artifacts.map((artifact) => ({ ...artifact, zip: moved(artifact.zip) })),
      sums: moved(sums),
      manifest: moved(manifest),
      ...(signature ? { signature: moved(signature) } : {}),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  }
}

async function buildPlatform(platform: ReleasePlatform, version: string, blob: string, work: string, staging: string): Promise<ReleaseArtifact> {
  // the package folder holds the executable alone, so that packageHash() of it is the zip's h1
  const packageDir = join(work, platform);
  mkdirSync(packageDir);
  const executable = join(packageDir, executableName(version, platform));
  writeFileSync(executable, unsigned(platform, readFileSync(nodeExecutable(platform))));
  await injectSeaBlob(platform, blob, executable, executable);
  if (platform.startsWith('darwin_')) adhocSignFile(executable, MACOS_IDENTIFIER);
  const zip = join(staging, zipName(version, platform));
  await zipSingleFile(executable, executableName(version, platform), zip);
  const h1 = packageHash(packageDir);
  rmSync(packageDir, { recursive: true, force: true });
  return { platform, zip, size: statSync(zip).size, h1, zh: zipHash(zip) };
}

/** The official binary without its signature: injection changes the file, and a stale signature would be malformed. */
function unsigned(platform: ReleasePlatform, binary: Buffer): Buffer {
  if (platform.startsWith('darwin_')) return removeMachOSignature(binary);
  if (platform.startsWith('windows_')) return removePeSignature(binary);
  return binary;
}

const formatSize = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
