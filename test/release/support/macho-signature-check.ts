/**
 * An independent check of an embedded Mach-O code signature, written from the format (`<mach-o/loader.h>`, xnu's
 * `cs_blobs.h`) and sharing no code with the signer: it walks the load commands, checks that the segments lie in
 * the file without overlapping and that the signature ends `__LINKEDIT` and the file, parses the SuperBlob back and
 * recomputes every page hash and special-slot hash. It returns what it read, for the test's assertions, and throws
 * on the first inconsistency.
 */
import { createHash } from 'node:crypto';

export interface SegmentInfo {
  readonly name: string;
  readonly vmsize: bigint;
  readonly fileoff: number;
  readonly filesize: number;
}

export interface SignatureInfo {
  readonly cputype: number;
  readonly loadCommands: number[];
  readonly segments: SegmentInfo[];
  readonly dataoff: number;
  readonly datasize: number;
  /** Slot type of each SuperBlob index entry, in order, with its blob's magic. */
  readonly blobs: { slot: number; magic: number; length: number }[];
  readonly codeDirectory: {
    readonly version: number;
    readonly flags: number;
    readonly identifier: string;
    readonly nSpecialSlots: number;
    readonly nCodeSlots: number;
    readonly codeLimit: number;
    readonly hashType: number;
    readonly pageShift: number;
    readonly execSegBase: bigint;
    readonly execSegLimit: bigint;
    readonly execSegFlags: bigint;
  };
}

function fail(message: string): never {
  throw new Error(`signature check: ${message}`);
}

export function checkMachOSignature(file: Buffer): SignatureInfo {
  if (file.readUInt32LE(0) !== 0xfeedfacf) fail('not MH_MAGIC_64');
  const cputype = file.readUInt32LE(4);
  const ncmds = file.readUInt32LE(16);
  const sizeofcmds = file.readUInt32LE(20);
  const loadCommands: number[] = [];
  const segments: (SegmentInfo & { sectionOffsets: number[] })[] = [];
  let signatureCommand: { dataoff: number; datasize: number } | undefined;
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = file.readUInt32LE(at);
    const cmdsize = file.readUInt32LE(at + 4);
    loadCommands.push(cmd);
    if (cmd === 0x19) {
      const sectionOffsets: number[] = [];
      for (let s = 0; s < file.readUInt32LE(at + 64); s++) sectionOffsets.push(file.readUInt32LE(at + 72 + s * 80 + 48));
      segments.push({
        name: file.toString('latin1', at + 8, at + 24).replace(/\0+$/, ''),
        vmsize: file.readBigUInt64LE(at + 32),
        fileoff: Number(file.readBigUInt64LE(at + 40)),
        filesize: Number(file.readBigUInt64LE(at + 48)),
        sectionOffsets,
      });
    } else if (cmd === 0x1d) {
      if (signatureCommand) fail('two LC_CODE_SIGNATURE commands');
      if (cmdsize !== 16) fail(`LC_CODE_SIGNATURE cmdsize ${cmdsize}`);
      signatureCommand = { dataoff: file.readUInt32LE(at + 8), datasize: file.readUInt32LE(at + 12) };
    }
    at += cmdsize;
  }
  if (at !== 32 + sizeofcmds) fail(`load commands add up to ${at - 32} bytes, sizeofcmds says ${sizeofcmds}`);
  if (!signatureCommand) fail('no LC_CODE_SIGNATURE');
  const firstSection = Math.min(...segments.flatMap((segment) => segment.sectionOffsets.filter((offset) => offset > 0)));
  if (at > firstSection) fail(`load commands end at ${at}, past the first section at ${firstSection}`);

  const inFile = segments.filter((segment) => segment.filesize > 0).sort((a, b) => a.fileoff - b.fileoff);
  inFile.forEach((segment, index) => {
    if (segment.fileoff + segment.filesize > file.length) fail(`${segment.name} extends past the end of the file`);
    if (BigInt(segment.filesize) > segment.vmsize) fail(`${segment.name} filesize exceeds its vmsize`);
    const next = inFile[index + 1];
    if (next && segment.fileoff + segment.filesize > next.fileoff) fail(`${segment.name} overlaps ${next.name}`);
  });
  const linkedit = segments.find((segment) => segment.name === '__LINKEDIT') ?? fail('no __LINKEDIT');
  const text = segments.find((segment) => segment.name === '__TEXT') ?? fail('no __TEXT');
  const { dataoff, datasize } = signatureCommand;
  if (dataoff % 16 !== 0) fail(`signature offset ${dataoff} is not 16-byte aligned`);
  if (dataoff < linkedit.fileoff) fail('signature starts before __LINKEDIT');
  if (dataoff + datasize !== linkedit.fileoff + linkedit.filesize) fail('signature does not end __LINKEDIT');
  if (dataoff + datasize !== file.length) fail('signature does not end the file');
  const segmentPage = cputype === 0x0100000c ? 0x4000n : 0x1000n;
  if (linkedit.vmsize % segmentPage !== 0n) fail(`__LINKEDIT vmsize ${linkedit.vmsize} is not page-aligned`);

  const blob = file.subarray(dataoff, dataoff + datasize);
  if (blob.readUInt32BE(0) !== 0xfade0cc0) fail('SuperBlob magic');
  const superLength = blob.readUInt32BE(4);
  if (superLength > datasize) fail('SuperBlob longer than LC_CODE_SIGNATURE datasize');
  const blobs: SignatureInfo['blobs'] = [];
  const bySlot = new Map<number, Buffer>();
  for (let i = 0; i < blob.readUInt32BE(8); i++) {
    const slot = blob.readUInt32BE(12 + i * 8);
    const offset = blob.readUInt32BE(16 + i * 8);
    const length = blob.readUInt32BE(offset + 4);
    if (offset + length > superLength) fail(`blob of slot ${slot} extends past the SuperBlob`);
    blobs.push({ slot, magic: blob.readUInt32BE(offset), length });
    bySlot.set(slot, blob.subarray(offset, offset + length));
  }

  const cd = bySlot.get(0) ?? fail('no CodeDirectory in slot 0');
  if (cd.readUInt32BE(0) !== 0xfade0c02) fail('CodeDirectory magic');
  const hashOffset = cd.readUInt32BE(16);
  const identOffset = cd.readUInt32BE(20);
  const nSpecialSlots = cd.readUInt32BE(24);
  const nCodeSlots = cd.readUInt32BE(28);
  const codeLimit = cd.readUInt32BE(32);
  const hashSize = cd[36];
  const hashType = cd[37];
  const pageShift = cd[39];
  if (hashType !== 2 || hashSize !== 32) fail(`hash type ${hashType} size ${hashSize}, not SHA-256`);
  if (codeLimit !== dataoff) fail(`codeLimit ${codeLimit} is not the signature offset ${dataoff}`);
  const pageSize = 2 ** pageShift;
  if (nCodeSlots !== Math.ceil(codeLimit / pageSize)) fail(`${nCodeSlots} code slots for ${codeLimit} bytes`);
  if (hashOffset + nCodeSlots * hashSize > cd.length) fail('code hashes extend past the CodeDirectory');
  for (let page = 0; page < nCodeSlots; page++) {
    const start = page * pageSize;
    const expected = createHash('sha256').update(file.subarray(start, Math.min(start + pageSize, codeLimit))).digest();
    if (!expected.equals(cd.subarray(hashOffset + page * 32, hashOffset + page * 32 + 32))) fail(`page ${page} hash differs`);
  }
  const specialSlot = (n: number): Buffer => cd.subarray(hashOffset - n * 32, hashOffset - (n - 1) * 32);
  for (let n = 1; n <= nSpecialSlots; n++) {
    const slotBlob = bySlot.get(n);
    const expected = slotBlob ? createHash('sha256').update(slotBlob).digest() : Buffer.alloc(32);
    if (!expected.equals(specialSlot(n))) fail(`special slot -${n} hash differs`);
  }
  const version = cd.readUInt32BE(8);
  const execSegBase = cd.readBigUInt64BE(64);
  const execSegLimit = cd.readBigUInt64BE(72);
  if (version < 0x20400) fail(`CodeDirectory version 0x${version.toString(16)} has no executable segment fields`);
  if (execSegBase !== BigInt(text.fileoff) || execSegLimit !== BigInt(text.filesize)) fail('execSeg fields do not describe __TEXT');
  const identEnd = cd.indexOf(0, identOffset);
  return {
    cputype,
    loadCommands,
    segments: segments.map(({ name, vmsize, fileoff, filesize }) => ({ name, vmsize, fileoff, filesize })),
    dataoff,
    datasize,
    blobs,
    codeDirectory: {
      version,
      flags: cd.readUInt32BE(12),
      identifier: cd.toString('utf8', identOffset, identEnd),
      nSpecialSlots,
      nCodeSlots,
      codeLimit,
      hashType,
      pageShift,
      execSegBase,
      execSegLimit,
      execSegFlags: cd.readBigUInt64BE(80),
    },
  };
}
