/**
 * The ad hoc signer on Node's real macOS binaries, the ones a release is built from (downloaded from the npm
 * registry into this run's temporary directory): each signed result is parsed back and every page hash recomputed
 * by an independent check written from the format, which first has to accept Apple's own signature of the same
 * binaries. The injection itself is done by postject, the injector Node's documentation names, installed from the
 * npm registry into this run's temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adhocSignFile, adhocSignMachO, removeMachOSignature } from '../../scripts/release/macho-adhoc-sign';
import {
  NODE_PACKAGES,
  RELEASE_NODE_VERSION,
  SEA_MACHO_SEGMENT,
  SEA_RESOURCE_NAME,
  SEA_SENTINEL_FUSE,
  type ReleasePlatform,
} from '../../scripts/release/node-packages';
import { checkMachOSignature } from './support/macho-signature-check';

const LC_CODE_SIGNATURE = 0x1d;
const CS_ADHOC = 0x2;
const CS_RUNTIME = 0x10000;

function downloadExecutable(platform: ReleasePlatform, dir: string): Buffer {
  const { name, executable } = NODE_PACKAGES[platform];
  const tarball = execFileSync('npm', ['pack', `${name}@${RELEASE_NODE_VERSION}`, '--pack-destination', dir, '--silent'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir, executable]);
  return readFileSync(join(dir, executable));
}

const POSTJECT_VERSION = '1.0.0-alpha.6';
let postjectCli: string | undefined;

/** Installs postject once per test file; returns its command-line script. */
function postject(): string {
  if (!postjectCli) {
    const dir = mkdtempSync(join(tmpdir(), 'postject-'));
    execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--no-update-notifier', `postject@${POSTJECT_VERSION}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    postjectCli = join(dir, 'node_modules', 'postject', 'dist', 'cli.js');
  }
  return postjectCli;
}

describe.each([
  ['darwin_arm64' as const, 0x0100000c],
  ['darwin_amd64' as const, 0x01000007],
])('ad hoc signature of the %s Node binary', (platform, cputype) => {
  let shipped: Buffer;
  let shippedInfo: ReturnType<typeof checkMachOSignature>;
  let signed: Buffer;

  beforeAll(() => {
    shipped = downloadExecutable(platform, mkdtempSync(join(tmpdir(), `node-${platform}-`)));
    shippedInfo = checkMachOSignature(shipped);
    signed = adhocSignMachO(shipped, { identifier: 'terraform-provider-agentplatform' });
  }, 300_000);

  it('is checked by a check that accepts Apple\'s Developer ID signature of the shipped binary', () => {
    expect(shippedInfo.cputype).toBe(cputype);
    expect(shippedInfo.codeDirectory.flags & CS_RUNTIME).toBe(CS_RUNTIME);
    expect(shippedInfo.codeDirectory.pageShift).toBe(12);
    expect(shippedInfo.codeDirectory.identifier).toBe('node');
  });

  it('replaces the shipped signature with one that verifies, as codesign --sign - writes it', () => {
    const info = checkMachOSignature(signed);
    expect(info.codeDirectory).toMatchObject({
      version: 0x20400,
      flags: CS_ADHOC,
      identifier: 'terraform-provider-agentplatform',
      nSpecialSlots: 2,
      hashType: 2,
      pageShift: 12,
      execSegBase: 0n,
      execSegFlags: 1n,
    });
    expect(info.blobs.map(({ slot, magic, length }) => [slot, magic, length])).toEqual([
      [0, 0xfade0c02, expect.any(Number)],
      [2, 0xfade0c01, 12],
      [0x10000, 0xfade0b01, 8],
    ]);
    expect(info.dataoff).toBe(shippedInfo.dataoff);
    expect(info.loadCommands).toEqual(shippedInfo.loadCommands);
    // nothing but the signature's size fields changes before the old signature's place
    const commandsEnd = 32 + shipped.readUInt32LE(20);
    expect(signed.subarray(commandsEnd, shippedInfo.dataoff).equals(shipped.subarray(commandsEnd, shippedInfo.dataoff))).toBe(true);
    expect(signed.subarray(0, 32).equals(shipped.subarray(0, 32))).toBe(true);
  });

  it('is stable: signing the signed binary again gives the same bytes', () => {
    expect(adhocSignMachO(signed, { identifier: 'terraform-provider-agentplatform' }).equals(signed)).toBe(true);
  });

  it('adds LC_CODE_SIGNATURE to a binary whose signature was removed, as before and after a blob injection', () => {
    const unsigned = removeMachOSignature(shipped);
    expect(unsigned.length).toBe(shippedInfo.dataoff);
    expect(unsigned.readUInt32LE(16)).toBe(shippedInfo.loadCommands.length - 1);
    expect(() => checkMachOSignature(unsigned)).toThrow('no LC_CODE_SIGNATURE');
    const linkedit = shippedInfo.segments.find((segment) => segment.name === '__LINKEDIT')!;
    const resigned = adhocSignMachO(unsigned, { identifier: 'node' });
    const info = checkMachOSignature(resigned);
    expect(info.loadCommands).toEqual([...shippedInfo.loadCommands.filter((cmd) => cmd !== LC_CODE_SIGNATURE), LC_CODE_SIGNATURE]);
    expect(info.segments.find((segment) => segment.name === '__LINKEDIT')).toMatchObject({ fileoff: linkedit.fileoff, filesize: resigned.length - linkedit.fileoff });
    expect(info.codeDirectory.nCodeSlots).toBe(Math.ceil(unsigned.length / 4096));
  });

  it('signs the binary that postject injected a blob into after its signature was removed, as Node documents it', () => {
    const dir = mkdtempSync(join(tmpdir(), `sea-${platform}-`));
    const executable = join(dir, 'terraform-provider-agentplatform');
    const blob = Buffer.from(`a prepared blob for ${platform}\n`.repeat(100));
    writeFileSync(executable, removeMachOSignature(shipped));
    writeFileSync(join(dir, 'sea-prep.blob'), blob);
    execFileSync(process.execPath, [postject(), executable, SEA_RESOURCE_NAME, join(dir, 'sea-prep.blob'), '--sentinel-fuse', SEA_SENTINEL_FUSE, '--macho-segment-name', SEA_MACHO_SEGMENT], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const injected = readFileSync(executable);
    expect(injected.includes(`${SEA_SENTINEL_FUSE}:1`)).toBe(true);

    adhocSignFile(executable);
    const resigned = readFileSync(executable);
    const info = checkMachOSignature(resigned);
    expect(info.codeDirectory.identifier).toBe('terraform-provider-agentplatform');
    const segment = info.segments.find((candidate) => candidate.name === SEA_MACHO_SEGMENT);
    expect(segment).toMatchObject({ filesize: blob.length });
    expect(resigned.subarray(segment!.fileoff, segment!.fileoff + blob.length).equals(blob)).toBe(true);
    expect(info.loadCommands.at(-1)).toBe(LC_CODE_SIGNATURE);
    expect(info.codeDirectory).toMatchObject({ flags: CS_ADHOC, codeLimit: info.dataoff, nCodeSlots: Math.ceil(info.dataoff / 4096) });
  }, 120_000);

  it('is caught by the check when one byte of code changes after signing', () => {
    const tampered = Buffer.from(signed);
    tampered[0x8000] ^= 0xff;
    expect(() => checkMachOSignature(tampered)).toThrow('page 8 hash differs');
  });
});

/**
 * A minimal executable: the header, __TEXT with one section whose contents start at `textSectionOffset`, and
 * __LINKEDIT; `trailing` bytes follow __LINKEDIT.
 */
function syntheticMachO(textSectionOffset: number, trailing = 0): Buffer {
  const linkeditOffset = 0x4000;
  const linkeditSize = 100;
  const file = Buffer.alloc(linkeditOffset + linkeditSize + trailing, 0);
  file.writeUInt32LE(0xfeedfacf, 0);
  file.writeUInt32LE(0x0100000c, 4);
  file.writeUInt32LE(2, 12);
  file.writeUInt32LE(2, 16);
  file.writeUInt32LE(152 + 72, 20);
  const segment = (at: number, name: string, fileoff: number, filesize: number, nsects: number): void => {
    file.writeUInt32LE(0x19, at);
    file.writeUInt32LE(72 + nsects * 80, at + 4);
    file.write(name, at + 8, 'latin1');
    file.writeBigUInt64LE(BigInt(alignTo(filesize, 0x4000)), at + 32);
    file.writeBigUInt64LE(BigInt(fileoff), at + 40);
    file.writeBigUInt64LE(BigInt(filesize), at + 48);
    file.writeUInt32LE(nsects, at + 64);
  };
  segment(32, '__TEXT', 0, linkeditOffset, 1);
  file.write('__text', 32 + 72, 'latin1');
  file.write('__TEXT', 32 + 72 + 16, 'latin1');
  file.writeUInt32LE(textSectionOffset, 32 + 72 + 48);
  segment(32 + 152, '__LINKEDIT', linkeditOffset, linkeditSize, 0);
  file.fill(0xc3, textSectionOffset, linkeditOffset);
  return file;
}

function alignTo(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}

describe('adhocSignMachO on a minimal executable', () => {
  it('adds the signature after __LINKEDIT\'s contents when the header has room for the command', () => {
    const signed = adhocSignMachO(syntheticMachO(0x400), { identifier: 'minimal' });
    const info = checkMachOSignature(signed);
    expect(info.dataoff).toBe(0x4000 + 112);
    expect(info.codeDirectory).toMatchObject({ identifier: 'minimal', nCodeSlots: 5, execSegLimit: 0x4000n });
    const unsigned = removeMachOSignature(signed);
    expect(unsigned.length).toBe(0x4000 + 112);
    expect(adhocSignMachO(unsigned, { identifier: 'minimal' }).equals(signed)).toBe(true);
  });

  it('refuses a header with no room left for LC_CODE_SIGNATURE', () => {
    expect(() => adhocSignMachO(syntheticMachO(32 + 224 + 8), { identifier: 'minimal' })).toThrow('no room after the load commands');
  });

  it('refuses bytes after __LINKEDIT, which the signature would not cover', () => {
    expect(() => adhocSignMachO(syntheticMachO(0x400, 5), { identifier: 'minimal' })).toThrow('__LINKEDIT ends at 16484, the file at 16489');
  });
});

describe('adhocSignMachO refusals', () => {
  it('refuses what is not a thin 64-bit Mach-O', () => {
    expect(() => adhocSignMachO(readFileSync(process.execPath), { identifier: 'node' })).toThrow('not a 64-bit little-endian Mach-O file');
    const fat = Buffer.alloc(64);
    fat.writeUInt32BE(0xcafebabe, 0);
    expect(() => adhocSignMachO(fat, { identifier: 'node' })).toThrow('universal (fat) binaries are not supported');
    expect(() => adhocSignMachO(syntheticMachO(0x400), { identifier: 'a\0b' })).toThrow('without NUL');
  });
});
