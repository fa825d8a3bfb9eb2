/**
 * Readers of the three executable formats for the release tests, written from the formats (the ELF gABI, Microsoft's
 * PE/COFF specification, `<mach-o/loader.h>`) and sharing no code with the release: the machine each file is for,
 * and where each holds a single executable's blob (an ELF note, a PE RCDATA resource, a Mach-O section).
 */

const PT_NOTE = 4;

export interface ElfInfo {
  /** `e_machine`: 62 is x86-64, 183 is AArch64. */
  readonly machine: number;
  /** The descriptors of the notes in PT_NOTE segments, by note name. */
  readonly notes: ReadonlyMap<string, Buffer>;
}

/** A 64-bit little-endian ELF file's machine and notes. */
export function readElf(file: Buffer): ElfInfo {
  if (file.readUInt32BE(0) !== 0x7f454c46) throw new Error('ELF: bad magic');
  if (file[4] !== 2 || file[5] !== 1) throw new Error('ELF: not 64-bit little-endian');
  const machine = file.readUInt16LE(0x12);
  const phoff = Number(file.readBigUInt64LE(0x20));
  const phentsize = file.readUInt16LE(0x36);
  const phnum = file.readUInt16LE(0x38);
  const notes = new Map<string, Buffer>();
  for (let i = 0; i < phnum; i++) {
    const header = phoff + i * phentsize;
    if (file.readUInt32LE(header) !== PT_NOTE) continue;
    const offset = Number(file.readBigUInt64LE(header + 8));
    const end = offset + Number(file.readBigUInt64LE(header + 32));
    const align = Math.max(4, Number(file.readBigUInt64LE(header + 48)));
    for (let at = offset; at + 12 <= end; ) {
      const namesz = file.readUInt32LE(at);
      const descsz = file.readUInt32LE(at + 4);
      const name = file.toString('latin1', at + 12, at + 12 + namesz).replace(/\0+$/, '');
      const desc = at + 12 + alignUp(namesz, align === 8 ? 8 : 4);
      notes.set(name, file.subarray(desc, desc + descsz));
      at = desc + alignUp(descsz, align === 8 ? 8 : 4);
    }
  }
  return { machine, notes };
}

export interface PeInfo {
  /** The COFF header's machine: 0x8664 is AMD64. */
  readonly machine: number;
  /** The security data directory entry (file offset and size of the certificate table). */
  readonly security: { readonly offset: number; readonly size: number };
  /** The RCDATA resources, by name (a resource named by a string; numbered ones are left out). */
  readonly rcdata: ReadonlyMap<string, Buffer>;
}

const RT_RCDATA = 10;

/** A PE32+ file's machine, certificate table entry and named RCDATA resources. */
export function readPe(file: Buffer): PeInfo {
  if (file.toString('latin1', 0, 2) !== 'MZ') throw new Error('PE: no MZ header');
  const pe = file.readUInt32LE(0x3c);
  if (file.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('PE: no PE signature');
  const machine = file.readUInt16LE(pe + 4);
  const sectionCount = file.readUInt16LE(pe + 6);
  const optionalSize = file.readUInt16LE(pe + 20);
  const optional = pe + 24;
  if (file.readUInt16LE(optional) !== 0x20b) throw new Error('PE: not PE32+');
  const directory = (index: number) => ({ offset: file.readUInt32LE(optional + 112 + index * 8), size: file.readUInt32LE(optional + 112 + index * 8 + 4) });
  const sections = Array.from({ length: sectionCount }, (_, i) => {
    const at = optional + optionalSize + i * 40;
    return { va: file.readUInt32LE(at + 12), size: file.readUInt32LE(at + 16), raw: file.readUInt32LE(at + 20) };
  });
  const fileOffset = (rva: number): number => {
    const section = sections.find((s) => rva >= s.va && rva < s.va + s.size);
    if (!section) throw new Error(`PE: RVA 0x${rva.toString(16)} in no section`);
    return rva - section.va + section.raw;
  };
  const rcdata = new Map<string, Buffer>();
  const resources = directory(2);
  if (resources.size > 0) {
    const base = fileOffset(resources.offset);
    const entries = (dir: number) => {
      const count = file.readUInt16LE(dir + 12) + file.readUInt16LE(dir + 14);
      return Array.from({ length: count }, (_, i) => ({ name: file.readUInt32LE(dir + 16 + i * 8), target: file.readUInt32LE(dir + 20 + i * 8) }));
    };
    const sub = (target: number): number => {
      if (!(target & 0x80000000)) throw new Error('PE: a resource leaf where a directory belongs');
      return base + (target & 0x7fffffff);
    };
    const type = entries(base).find((entry) => entry.name === RT_RCDATA);
    for (const named of type ? entries(sub(type.target)) : []) {
      if (!(named.name & 0x80000000)) continue;
      const nameAt = base + (named.name & 0x7fffffff);
      const name = file.toString('utf16le', nameAt + 2, nameAt + 2 + file.readUInt16LE(nameAt) * 2);
      const language = entries(sub(named.target))[0];
      if (!language || language.target & 0x80000000) throw new Error(`PE: resource ${name} has no data entry`);
      const data = base + language.target;
      const start = fileOffset(file.readUInt32LE(data));
      rcdata.set(name, file.subarray(start, start + file.readUInt32LE(data + 4)));
    }
  }
  return { machine, security: directory(4), rcdata };
}

const LC_SEGMENT_64 = 0x19;

export interface MachOInfo {
  /** `cputype`: 0x01000007 is x86_64, 0x0100000c is arm64. */
  readonly cputype: number;
  /** The contents of the sections, by `<segment>,<section>`. */
  readonly sections: ReadonlyMap<string, Buffer>;
}

/** A thin 64-bit Mach-O file's CPU type and section contents. */
export function readMachO(file: Buffer): MachOInfo {
  if (file.readUInt32LE(0) !== 0xfeedfacf) throw new Error('Mach-O: not a thin 64-bit little-endian file');
  const cputype = file.readUInt32LE(4);
  const ncmds = file.readUInt32LE(16);
  const sections = new Map<string, Buffer>();
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = file.readUInt32LE(at);
    if (cmd === LC_SEGMENT_64) {
      const nsects = file.readUInt32LE(at + 64);
      for (let s = 0; s < nsects; s++) {
        const section = at + 72 + s * 80;
        const name = `${cstring(file, section + 16, 16)},${cstring(file, section, 16)}`;
        const offset = file.readUInt32LE(section + 48);
        sections.set(name, file.subarray(offset, offset + Number(file.readBigUInt64LE(section + 40))));
      }
    }
    at += file.readUInt32LE(at + 4);
  }
  return { cputype, sections };
}

function cstring(file: Buffer, at: number, length: number): string {
  return file.toString('latin1', at, at + length).replace(/\0.*$/s, '');
}

const alignUp = (value: number, alignment: number): number => Math.ceil(value / alignment) * alignment;
