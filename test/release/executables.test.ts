/**
 * The executables of the five platforms, read as their formats (the build machine runs only linux_amd64's): each is
 * for its machine, holds the blob where Node looks for it with the sentinel fuse flipped, carries no stale signature
 * (Windows) or a valid ad hoc one (macOS), and the blob holds the provider bundle of the release version (its handshake
 * path as the main script, the RPC layer as an asset), with V8 code caches only in linux_amd64's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseDir, releaseVersion } from '../support/release';
import { readElf, readMachO, readPe } from './support/executable-formats';
import { checkMachOSignature } from './support/macho-signature-check';
import { readZip } from './support/zip-reader';
import { RPC_ASSET } from '../../scripts/release/sea-rpc';

const PREFIX = 'terraform-provider-agentplatform';
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const BLOB_NAME = 'NODE_SEA_BLOB';
/** Node's SEA blob header: its magic, then flags (src/node_sea.h). */
const SEA_MAGIC = 0x143da20;
const FLAG_DISABLE_WARNING = 1 << 0;
const FLAG_USE_SNAPSHOT = 1 << 1;
const FLAG_USE_CODE_CACHE = 1 << 2;
const FLAG_INCLUDE_ASSETS = 1 << 3;
const CS_ADHOC = 0x2;

const ELF_MACHINE = { x86_64: 62, aarch64: 183 };
const MACHO_CPU = { x86_64: 0x01000007, arm64: 0x0100000c };
const PE_AMD64 = 0x8664;

let dir: string;
let version: string;
beforeAll(() => {
  dir = releaseDir();
  version = releaseVersion();
}, 30 * 60_000);

function executable(platform: string): Buffer {
  const entries = readZip(readFileSync(join(dir, `${PREFIX}_${version}_${platform}.zip`)));
  expect(entries).toHaveLength(1);
  return entries[0]!.data;
}

/** The fuse flipped once, and never left unflipped: Node reads the first occurrence. */
function expectFuseFlipped(binary: Buffer): void {
  expect(binary.includes(`${FUSE}:1`)).toBe(true);
  expect(binary.includes(`${FUSE}:0`)).toBe(false);
}

/** The blob's flags, after checking that it holds the provider bundle of this version. */
function blobFlags(blob: Buffer | undefined): number {
  expect(blob).toBeDefined();
  expect(blob!.readUInt32LE(0)).toBe(SEA_MAGIC);
  const text = blob!.toString('latin1');
  expect(text).toContain('This binary is a plugin for terraform: the agentplatform provider.');
  expect(text).toContain(JSON.stringify(version));
  expect(text).toContain(RPC_ASSET);
  return blob!.readUInt32LE(4);
}

describe('the release executables', () => {
  const blobs = new Map<string, Buffer>();

  it.each([
    ['linux_amd64', ELF_MACHINE.x86_64],
    ['linux_arm64', ELF_MACHINE.aarch64],
  ])('%s is an ELF executable for its machine with the blob in a NODE_SEA_BLOB note', (platform, machine) => {
    const binary = executable(platform);
    const elf = readElf(binary);
    expect(elf.machine).toBe(machine);
    expectFuseFlipped(binary);
    const blob = elf.notes.get(BLOB_NAME);
    const flags = blobFlags(blob);
    // only a blob made on the platform it runs on (the linux_amd64 build machine) may carry a code cache
    expect(flags).toBe(FLAG_DISABLE_WARNING | FLAG_INCLUDE_ASSETS | (platform === 'linux_amd64' ? FLAG_USE_CODE_CACHE : 0));
    expect(flags & FLAG_USE_SNAPSHOT).toBe(0);
    blobs.set(platform, Buffer.from(blob!));
  });

  it('windows_amd64 is an AMD64 PE with the blob as the NODE_SEA_BLOB RCDATA resource and no certificate table', () => {
    const binary = executable('windows_amd64');
    const pe = readPe(binary);
    expect(pe.machine).toBe(PE_AMD64);
    expect(pe.security).toEqual({ offset: 0, size: 0 });
    expectFuseFlipped(binary);
    const blob = pe.rcdata.get(BLOB_NAME);
    expect(blobFlags(blob)).toBe(FLAG_DISABLE_WARNING | FLAG_INCLUDE_ASSETS);
    blobs.set('windows_amd64', Buffer.from(blob!));
  });

  it.each([
    ['darwin_amd64', MACHO_CPU.x86_64],
    ['darwin_arm64', MACHO_CPU.arm64],
  ])('%s is a Mach-O for its CPU with the blob in NODE_SEA,__NODE_SEA_BLOB and a valid ad hoc signature', (platform, cputype) => {
    const binary = executable(platform);
    const macho = readMachO(binary);
    expect(macho.cputype).toBe(cputype);
    expectFuseFlipped(binary);
    const blob = macho.sections.get(`NODE_SEA,__${BLOB_NAME}`);
    expect(blobFlags(blob)).toBe(FLAG_DISABLE_WARNING | FLAG_INCLUDE_ASSETS);
    blobs.set(platform, Buffer.from(blob!));
    const signature = checkMachOSignature(binary);
    expect(signature.cputype).toBe(cputype);
    expect(signature.codeDirectory).toMatchObject({ flags: CS_ADHOC, identifier: PREFIX, hashType: 2, pageShift: 12 });
  });

  it('gives the four platforms that cannot carry a code cache the same blob, and linux_amd64 a larger one', () => {
    const crossBuilt = ['linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64'].map((platform) => blobs.get(platform));
    expect(crossBuilt.every((blob) => blob !== undefined)).toBe(true);
    for (const blob of crossBuilt.slice(1)) expect(blob!.equals(crossBuilt[0]!)).toBe(true);
    expect(blobs.get('linux_amd64')!.length).toBeGreaterThan(crossBuilt[0]!.length);
  });
});
