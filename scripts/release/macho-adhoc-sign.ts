/**
 * An ad hoc code signature for a thin 64-bit Mach-O executable (arm64 or x86_64), written as `codesign --sign -`
 * writes one: after a single executable application's blob is injected into Node's macOS binary, the binary's
 * Developer ID signature no longer matches its pages, and Apple silicon refuses to run an arm64 executable whose
 * signature is missing or wrong. No certificate is involved: the signature is a CodeDirectory of SHA-256 hashes of
 * the file's 4096-byte pages (the code-signing page size on both architectures, although arm64 kernels map 16 KiB
 * pages), an empty requirement set and an empty CMS wrapper, in one SuperBlob at the end of `__LINKEDIT`.
 *
 * Format: Apple's `cs_blobs.h` (xnu) and `<mach-o/loader.h>`. All signature structures are big-endian; the Mach-O
 * header and load commands are little-endian on both architectures.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const MH_MAGIC_64 = 0xfeedfacf;
const FAT_MAGIC = 0xcafebabe;
const MH_EXECUTE = 2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const MACH_HEADER_64_SIZE = 32;
const LINKEDIT_DATA_COMMAND_SIZE = 16;

const CPU_TYPE_X86_64 = 0x01000007;
const CPU_TYPE_ARM64 = 0x0100000c;
/** The segment alignment the linker uses per architecture: `__LINKEDIT`'s vmsize is rounded up to it. */
const SEGMENT_PAGE_SIZE: Record<number, number> = { [CPU_TYPE_X86_64]: 0x1000, [CPU_TYPE_ARM64]: 0x4000 };

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSMAGIC_REQUIREMENTS = 0xfade0c01;
const CSMAGIC_BLOBWRAPPER = 0xfade0b01;
const CSSLOT_CODEDIRECTORY = 0;
const CSSLOT_REQUIREMENTS = 2;
const CSSLOT_SIGNATURESLOT = 0x10000;
/** The version that carries the executable segment fields (`execSegBase`, `execSegLimit`, `execSegFlags`). */
const CS_SUPPORTSEXECSEG = 0x20400;
const CS_ADHOC = 0x2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CS_HASHTYPE_SHA256 = 2;
const CODE_PAGE_SHIFT = 12;

const HASH_SIZE = 32;
const CODE_PAGE_SIZE = 1 << CODE_PAGE_SHIFT;
/** The CodeDirectory header up to and including `execSegFlags`, as version 0x20400 lays it out. */
const CODE_DIRECTORY_HEADER_SIZE = 88;
/** Slots -1 (Info.plist, absent: zero hash) and -2 (the requirement set), the ones codesign writes for a bare tool. */
const SPECIAL_SLOTS = 2;
/** The signature's offset in the file: codesign and the linker both align it to 16 bytes. */
const SIGNATURE_ALIGNMENT = 16;

export interface AdhocSignOptions {
  /**
   * The code signing identifier written into the CodeDirectory; codesign takes the file's name.
   */
  readonly identifier: string;
}

interface Segment {
  /** Offset of the `segment_command_64` in the file. */
  readonly commandOffset: number;
  readonly name: string;
  readonly fileoff: number;
  readonly filesize: number;
}

interface MachOLayout {
  readonly cputype: number;
  readonly filetype: number;
  readonly ncmds: number;
  readonly sizeofcmds: number;
  readonly segments: Segment[];
  /** Offset of the existing LC_CODE_SIGNATURE command, if any, and where its data starts. */
  readonly codeSignature?: { readonly commandOffset: number; readonly dataoff: number; readonly datasize: number };
  /** The lowest file offset of any section's contents: load commands may grow up to it. */
  readonly firstSectionOffset: number;
}

/**
 * Returns a copy of `binary` with its code signature (if any) replaced by an ad hoc one, the load commands and
 * `__LINKEDIT`'s sizes adjusted to it. Throws for anything but a thin 64-bit arm64 or x86_64 Mach-O.
 */
export function adhocSignMachO(binary: Buffer, options: AdhocSignOptions): Buffer {
  if (options.identifier === '' || options.identifier.includes('\0')) throw new Error('code signing identifier must be a non-empty string without NUL');
  const layout = readLayout(binary);
  const text = layout.segments.find((segment) => segment.name === '__TEXT');
  const linkedit = layout.segments.find((segment) => segment.name === '__LINKEDIT');
  if (!text || !linkedit) throw new Error('Mach-O: no __TEXT or no __LINKEDIT segment; not a linked executable');
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  for (const segment of layout.segments) {
    if (segment !== linkedit && segment.filesize > 0 && segment.fileoff + segment.filesize > linkedit.fileoff) {
      throw new Error(`Mach-O: segment ${segment.name} lies after __LINKEDIT; the signature must end the file`);
    }
  }

  if (binary.length !== linkeditEnd) {
    throw new Error(`Mach-O: __LINKEDIT ends at ${linkeditEnd}, the file at ${binary.length}; the signature must end both`);
  }
  // The old signature, if any, is the tail of __LINKEDIT: everything before it stays and is hashed.
  const contentEnd = layout.codeSignature ? layout.codeSignature.dataoff : linkeditEnd;
  if (layout.codeSignature && (contentEnd < linkedit.fileoff || contentEnd + layout.codeSignature.datasize !== linkeditEnd)) {
    throw new Error('Mach-O: the code signature is not the tail of __LINKEDIT');
  }
  const signatureOffset = alignUp(contentEnd, SIGNATURE_ALIGNMENT);

  const identifier = Buffer.from(`${options.identifier}\0`, 'utf8');
  const codeSlots = Math.ceil(signatureOffset / CODE_PAGE_SIZE);
  const codeDirectoryLength = CODE_DIRECTORY_HEADER_SIZE + identifier.length + (SPECIAL_SLOTS + codeSlots) * HASH_SIZE;
  const requirements = emptyRequirementSet();
  const cmsWrapper = emptyBlobWrapper();
  const blobs = [
    { slot: CSSLOT_CODEDIRECTORY, length: codeDirectoryLength },
    { slot: CSSLOT_REQUIREMENTS, length: requirements.length },
    { slot: CSSLOT_SIGNATURESLOT, length: cmsWrapper.length },
  ];
  const superBlobLength = 12 + blobs.length * 8 + blobs.reduce((sum, blob) => sum + blob.length, 0);
  const signatureSize = alignUp(superBlobLength, SIGNATURE_ALIGNMENT);

  const out = Buffer.alloc(signatureOffset + signatureSize);
  binary.copy(out, 0, 0, contentEnd);

  let commandOffset = layout.codeSignature?.commandOffset;
  if (commandOffset === undefined) {
    commandOffset = MACH_HEADER_64_SIZE + layout.sizeofcmds;
    if (commandOffset + LINKEDIT_DATA_COMMAND_SIZE > layout.firstSectionOffset) {
      throw new Error('Mach-O: no room after the load commands for LC_CODE_SIGNATURE');
    }
    if (!out.subarray(commandOffset, commandOffset + LINKEDIT_DATA_COMMAND_SIZE).every((byte) => byte === 0)) {
      throw new Error('Mach-O: the space after the load commands is not free padding');
    }
    out.writeUInt32LE(layout.ncmds + 1, 16);
    out.writeUInt32LE(layout.sizeofcmds + LINKEDIT_DATA_COMMAND_SIZE, 20);
    out.writeUInt32LE(LC_CODE_SIGNATURE, commandOffset);
    out.writeUInt32LE(LINKEDIT_DATA_COMMAND_SIZE, commandOffset + 4);
  }
  out.writeUInt32LE(signatureOffset, commandOffset + 8);
  out.writeUInt32LE(signatureSize, commandOffset + 12);

  const pageSize = SEGMENT_PAGE_SIZE[layout.cputype];
  const linkeditFilesize = signatureOffset + signatureSize - linkedit.fileoff;
  out.writeBigUInt64LE(BigInt(alignUp(linkeditFilesize, pageSize)), linkedit.commandOffset + 32);
  out.writeBigUInt64LE(BigInt(linkeditFilesize), linkedit.commandOffset + 48);

  // The header and load commands are final now: the page hashes cover them.
  const codeDirectory = Buffer.alloc(codeDirectoryLength);
  const hashOffset = CODE_DIRECTORY_HEADER_SIZE + identifier.length + SPECIAL_SLOTS * HASH_SIZE;
  codeDirectory.writeUInt32BE(CSMAGIC_CODEDIRECTORY, 0);
  codeDirectory.writeUInt32BE(codeDirectoryLength, 4);
  codeDirectory.writeUInt32BE(CS_SUPPORTSEXECSEG, 8);
  codeDirectory.writeUInt32BE(CS_ADHOC, 12);
  codeDirectory.writeUInt32BE(hashOffset, 16);
  codeDirectory.writeUInt32BE(CODE_DIRECTORY_HEADER_SIZE, 20);
  codeDirectory.writeUInt32BE(SPECIAL_SLOTS, 24);
  codeDirectory.writeUInt32BE(codeSlots, 28);
  codeDirectory.writeUInt32BE(signatureOffset, 32);
  codeDirectory.writeUInt8(HASH_SIZE, 36);
  codeDirectory.writeUInt8(CS_HASHTYPE_SHA256, 37);
  codeDirectory.writeUInt8(0, 38);
  codeDirectory.writeUInt8(CODE_PAGE_SHIFT, 39);
  // spare2, scatterOffset, teamOffset, spare3 and codeLimit64 (used only past 4 GiB) stay zero
  codeDirectory.writeBigUInt64BE(BigInt(text.fileoff), 64);
  codeDirectory.writeBigUInt64BE(BigInt(text.filesize), 72);
  codeDirectory.writeBigUInt64BE(BigInt(layout.filetype === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0), 80);
  identifier.copy(codeDirectory, CODE_DIRECTORY_HEADER_SIZE);
  // special slot -n sits n hashes before hashOffset; slot -1 (Info.plist) stays zero
  sha256(requirements).copy(codeDirectory, hashOffset - CSSLOT_REQUIREMENTS * HASH_SIZE);
  for (let page = 0; page < codeSlots; page++) {
    const start = page * CODE_PAGE_SIZE;
    sha256(out.subarray(start, Math.min(start + CODE_PAGE_SIZE, signatureOffset))).copy(codeDirectory, hashOffset + page * HASH_SIZE);
  }

  const superBlob = out.subarray(signatureOffset);
  superBlob.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  superBlob.writeUInt32BE(superBlobLength, 4);
  superBlob.writeUInt32BE(blobs.length, 8);
  let blobOffset = 12 + blobs.length * 8;
  [codeDirectory, requirements, cmsWrapper].forEach((blob, index) => {
    superBlob.writeUInt32BE(blobs[index].slot, 12 + index * 8);
    superBlob.writeUInt32BE(blobOffset, 16 + index * 8);
    blob.copy(superBlob, blobOffset);
    blobOffset += blob.length;
  });
  return out;
}

/** Signs the executable at `path` in place; the identifier defaults to the file's name, as codesign's does. */
export function adhocSignFile(path: string, identifier = basename(path)): void {
  writeFileSync(path, adhocSignMachO(readFileSync(path), { identifier }));
}

/**
 * Returns a copy of `binary` without its code signature, as `codesign --remove-signature` leaves it: the
 * LC_CODE_SIGNATURE command and the signature's bytes gone, `__LINKEDIT` ending where the signature began. Node's
 * instructions for a single executable application remove the signature before injecting the blob, because the
 * injector must move `__LINKEDIT` and would otherwise carry a stale signature along. A binary without a signature
 * is returned unchanged (copied).
 */
export function removeMachOSignature(binary: Buffer): Buffer {
  const layout = readLayout(binary);
  if (!layout.codeSignature) return Buffer.from(binary);
  const { commandOffset, dataoff, datasize } = layout.codeSignature;
  const linkedit = layout.segments.find((segment) => segment.name === '__LINKEDIT');
  if (!linkedit || dataoff < linkedit.fileoff || dataoff + datasize !== linkedit.fileoff + linkedit.filesize || dataoff + datasize !== binary.length) {
    throw new Error('Mach-O: the code signature is not the tail of __LINKEDIT and of the file');
  }
  const out = Buffer.from(binary.subarray(0, dataoff));
  const commandsEnd = MACH_HEADER_64_SIZE + layout.sizeofcmds;
  out.copy(out, commandOffset, commandOffset + LINKEDIT_DATA_COMMAND_SIZE, commandsEnd);
  out.fill(0, commandsEnd - LINKEDIT_DATA_COMMAND_SIZE, commandsEnd);
  out.writeUInt32LE(layout.ncmds - 1, 16);
  out.writeUInt32LE(layout.sizeofcmds - LINKEDIT_DATA_COMMAND_SIZE, 20);
  // the segment commands after the removed one moved up with it
  const linkeditCommand = linkedit.commandOffset > commandOffset ? linkedit.commandOffset - LINKEDIT_DATA_COMMAND_SIZE : linkedit.commandOffset;
  const filesize = dataoff - linkedit.fileoff;
  out.writeBigUInt64LE(BigInt(alignUp(filesize, SEGMENT_PAGE_SIZE[layout.cputype])), linkeditCommand + 32);
  out.writeBigUInt64LE(BigInt(filesize), linkeditCommand + 48);
  return out;
}

function readLayout(binary: Buffer): MachOLayout {
  if (binary.length < MACH_HEADER_64_SIZE) throw new Error('Mach-O: file too short for a header');
  if (binary.readUInt32BE(0) === FAT_MAGIC) throw new Error('Mach-O: universal (fat) binaries are not supported; sign each thin slice');
  if (binary.readUInt32LE(0) !== MH_MAGIC_64) throw new Error('Mach-O: not a 64-bit little-endian Mach-O file');
  const cputype = binary.readUInt32LE(4);
  if (!(cputype in SEGMENT_PAGE_SIZE)) throw new Error(`Mach-O: CPU type 0x${cputype.toString(16)} is neither x86_64 nor arm64`);
  const filetype = binary.readUInt32LE(12);
  const ncmds = binary.readUInt32LE(16);
  const sizeofcmds = binary.readUInt32LE(20);
  const commandsEnd = MACH_HEADER_64_SIZE + sizeofcmds;
  if (commandsEnd > binary.length) throw new Error('Mach-O: load commands extend past the end of the file');

  const segments: Segment[] = [];
  let codeSignature: MachOLayout['codeSignature'];
  let firstSectionOffset = binary.length;
  let offset = MACH_HEADER_64_SIZE;
  for (let index = 0; index < ncmds; index++) {
    if (offset + 8 > commandsEnd) throw new Error(`Mach-O: load command ${index} starts past sizeofcmds`);
    const cmd = binary.readUInt32LE(offset);
    const cmdsize = binary.readUInt32LE(offset + 4);
    if (cmdsize < 8 || offset + cmdsize > commandsEnd) throw new Error(`Mach-O: load command ${index} has a bad size ${cmdsize}`);
    if (cmd === LC_SEGMENT_64) {
      const segment = {
        commandOffset: offset,
        name: cString(binary.subarray(offset + 8, offset + 24)),
        fileoff: Number(binary.readBigUInt64LE(offset + 40)),
        filesize: Number(binary.readBigUInt64LE(offset + 48)),
      };
      segments.push(segment);
      const nsects = binary.readUInt32LE(offset + 64);
      for (let section = 0; section < nsects; section++) {
        const sectionOffset = binary.readUInt32LE(offset + 72 + section * 80 + 48);
        if (sectionOffset > 0) firstSectionOffset = Math.min(firstSectionOffset, sectionOffset);
      }
    } else if (cmd === LC_CODE_SIGNATURE) {
      if (cmdsize !== LINKEDIT_DATA_COMMAND_SIZE) throw new Error(`Mach-O: LC_CODE_SIGNATURE has a bad size ${cmdsize}`);
      codeSignature = { commandOffset: offset, dataoff: binary.readUInt32LE(offset + 8), datasize: binary.readUInt32LE(offset + 12) };
    }
    offset += cmdsize;
  }
  return { cputype, filetype, ncmds, sizeofcmds, segments, codeSignature, firstSectionOffset };
}

function emptyRequirementSet(): Buffer {
  const blob = Buffer.alloc(12);
  blob.writeUInt32BE(CSMAGIC_REQUIREMENTS, 0);
  blob.writeUInt32BE(blob.length, 4);
  return blob;
}

/** codesign writes this empty CMS slot for ad hoc signatures; the kernel ignores it. */
function emptyBlobWrapper(): Buffer {
  const blob = Buffer.alloc(8);
  blob.writeUInt32BE(CSMAGIC_BLOBWRAPPER, 0);
  blob.writeUInt32BE(blob.length, 4);
  return blob;
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('latin1');
}

function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
