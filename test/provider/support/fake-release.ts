/**
 * A small release directory made by the test itself: well formed (index.json, <version>.json, one zip per platform
 * holding one file, with the zip's real h1: and zh: hashes) but its "executable" is a text file, so only the paths
 * that never run it can use it: the checks of a release and their errors. The real release is releaseDir().
 */
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { PROVIDER_EXECUTABLE_PREFIX } from '../../../lib/provider/constants';
import { packageHash } from '../../../lib/install/provider';

/** What {@link fakeRelease} wrote. */
export interface FakeRelease {
  readonly dir: string;
  readonly version: string;
  /** Per platform: the zip's path and its two hashes. */
  readonly archives: Record<string, { readonly path: string; readonly h1: string; readonly zh: string }>;
}

/** Writes a release of `version` for `platforms` into a new temporary directory; `build` tells two builds apart. */
export async function fakeRelease(version: string, platforms: readonly string[] = ['linux_amd64', 'darwin_arm64'], build = 'first'): Promise<FakeRelease> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-release-'));
  const archives: Record<string, { path: string; h1: string; zh: string }> = {};
  for (const platform of platforms) {
    const staging = mkdtempSync(join(tmpdir(), 'fake-release-package-'));
    const name = `${PROVIDER_EXECUTABLE_PREFIX}_v${version}${platform.startsWith('windows') ? '.exe' : ''}`;
    writeFileSync(join(staging, name), `not really the provider ${version} for ${platform}, ${build} build\n`);
    const path = join(dir, `${PROVIDER_EXECUTABLE_PREFIX}_${version}_${platform}.zip`);
    const zip = new ZipFile();
    zip.addFile(join(staging, name), name, { mode: 0o100755 });
    zip.end();
    await new Promise<void>((resolve, reject) => zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject));
    archives[platform] = { path, h1: packageHash(staging), zh: `zh:${createHash('sha256').update(readFileSync(path)).digest('hex')}` };
  }
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify({ versions: { [version]: {} } }, null, 2)}\n`);
  const document = Object.fromEntries(
    Object.entries(archives).map(([platform, a]) => [platform, { url: `${PROVIDER_EXECUTABLE_PREFIX}_${version}_${platform}.zip`, hashes: [a.h1, a.zh] }]),
  );
  writeFileSync(join(dir, `${version}.json`), `${JSON.stringify({ archives: document }, null, 2)}\n`);
  return { dir, version, archives };
}
