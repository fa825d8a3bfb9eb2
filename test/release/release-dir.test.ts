/**
 * The release folder as a registry upload and a provider mirror read it: the file names, the manifest, the
 * checksums, the mirror's documents with hashes recomputed from the zips, and zips that hold exactly the executable.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseDir, releaseVersion } from '../support/release';
import { readZip, type ZipEntry } from './support/zip-reader';

const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64'];
const PREFIX = 'terraform-provider-agentplatform';
const UNIX = 3;
const REGULAR_FILE_0755 = 0o100755;

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();

/** Go's dirhash Hash1 of a zip's entries, computed here from the definition. */
const h1Of = (entries: readonly ZipEntry[]): string =>
  `h1:${sha256(
    [...entries]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((entry) => `${sha256(entry.data).toString('hex')}  ${entry.name}\n`)
      .join(''),
  ).toString('base64')}`;

describe('the release folder', () => {
  let dir: string;
  let version: string;
  const zips = new Map<string, Buffer>();
  beforeAll(() => {
    dir = releaseDir();
    version = releaseVersion();
    for (const platform of PLATFORMS) zips.set(platform, readFileSync(join(dir, `${PREFIX}_${version}_${platform}.zip`)));
  }, 30 * 60_000);

  it('holds the five zips, the checksums, the manifest and the mirror documents, flat', () => {
    expect(readdirSync(dir, { withFileTypes: true }).every((entry) => entry.isFile())).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(
      [...PLATFORMS.map((platform) => `${PREFIX}_${version}_${platform}.zip`), `${PREFIX}_${version}_SHA256SUMS`, `${PREFIX}_${version}_manifest.json`, 'index.json', `${version}.json`].sort(),
    );
  });

  it('has the registry manifest of plugin protocol 6.0', () => {
    expect(JSON.parse(readFileSync(join(dir, `${PREFIX}_${version}_manifest.json`), 'utf8'))).toEqual({ version: 1, metadata: { protocol_versions: ['6.0'] } });
  });

  it('lists every zip and the manifest in SHA256SUMS, as sha256sum writes them, with their hashes', () => {
    const text = readFileSync(join(dir, `${PREFIX}_${version}_SHA256SUMS`), 'utf8');
    expect(text).toMatch(/^([0-9a-f]{64} {2}\S+\n)+$/);
    const lines = text.trimEnd().split('\n').map((line) => ({ hash: line.slice(0, 64), name: line.slice(66) }));
    expect(lines.map((line) => line.name)).toEqual(
      [...PLATFORMS.map((platform) => `${PREFIX}_${version}_${platform}.zip`), `${PREFIX}_${version}_manifest.json`].sort(),
    );
    for (const { hash, name } of lines) expect(`${name} ${sha256(readFileSync(join(dir, name))).toString('hex')}`).toBe(`${name} ${hash}`);
  });

  it('is a network mirror: index.json lists the version, <version>.json each zip with its h1 and zh', () => {
    expect(JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'))).toEqual({ versions: { [version]: {} } });
    const { archives } = JSON.parse(readFileSync(join(dir, `${version}.json`), 'utf8')) as { archives: Record<string, { url: string; hashes: string[] }> };
    expect(Object.keys(archives).sort()).toEqual([...PLATFORMS].sort());
    for (const platform of PLATFORMS) {
      const zip = zips.get(platform)!;
      expect(archives[platform]).toEqual({
        url: `${PREFIX}_${version}_${platform}.zip`,
        hashes: [h1Of(readZip(zip)), `zh:${sha256(zip).toString('hex')}`],
      });
    }
  });

  it.each(PLATFORMS)('zips for %s exactly the executable, mode 0755, with a fixed time', (platform) => {
    const entries = readZip(zips.get(platform)!);
    const name = `${PREFIX}_v${version}${platform.startsWith('windows') ? '.exe' : ''}`;
    expect(entries.map((entry) => ({ name: entry.name, madeBy: entry.madeBy, mode: entry.mode.toString(8) }))).toEqual([
      { name, madeBy: UNIX, mode: REGULAR_FILE_0755.toString(8) },
    ]);
    // 1980-01-01 00:00 and no extra field (no time stamp that would differ between builds)
    expect(entries[0]).toMatchObject({ dosDate: (0 << 9) | (1 << 5) | 1, dosTime: 0, extraLength: 0 });
    expect(entries[0]!.data.length).toBeGreaterThan(50_000_000);
  });
});
