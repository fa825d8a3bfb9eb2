/**
 * Removing the Authenticode signature of a PE executable, as `signtool remove /s` does: the security data directory
 * entry zeroed and the file cut where the certificate table began. Node's instructions remove the signature before
 * injecting a single executable's blob: postject rebuilds `.rsrc` at the end of the file, over the table's old place,
 * and would leave the directory entry pointing at bytes that are no longer a certificate table.
 */

const PE_SIGNATURE = 0x00004550; // "PE\0\0"
const PE32_MAGIC = 0x10b;
const PE32_PLUS_MAGIC = 0x20b;
const COFF_HEADER_SIZE = 20;
/** Index of IMAGE_DIRECTORY_ENTRY_SECURITY among the optional header's data directories. */
const SECURITY_DIRECTORY = 4;

/** Where the security data directory entry sits in the file, and what it says. */
export interface SecurityDirectory {
  /** File offset of the directory entry (8 bytes: the table's file offset, then its size). */
  readonly entryOffset: number;
  /** File offset of the certificate table (for this directory it is a file offset, not an RVA); 0 when unsigned. */
  readonly tableOffset: number;
  /** Size of the certificate table in bytes; 0 when unsigned. */
  readonly tableSize: number;
}

/** Reads the security data directory entry of a PE32 or PE32+ file. */
export function readSecurityDirectory(binary: Buffer): SecurityDirectory {
  if (binary.length < 0x40 || binary.toString('latin1', 0, 2) !== 'MZ') throw new Error('PE: no MZ header');
  const peOffset = binary.readUInt32LE(0x3c);
  if (peOffset + 4 + COFF_HEADER_SIZE + 2 > binary.length || binary.readUInt32LE(peOffset) !== PE_SIGNATURE) throw new Error('PE: no PE signature');
  const optionalHeader = peOffset + 4 + COFF_HEADER_SIZE;
  const magic = binary.readUInt16LE(optionalHeader);
  if (magic !== PE32_MAGIC && magic !== PE32_PLUS_MAGIC) throw new Error(`PE: unknown optional header magic 0x${magic.toString(16)}`);
  const countOffset = optionalHeader + (magic === PE32_PLUS_MAGIC ? 108 : 92);
  const directories = countOffset + 4;
  if (binary.readUInt32LE(countOffset) <= SECURITY_DIRECTORY) return { entryOffset: -1, tableOffset: 0, tableSize: 0 };
  const entryOffset = directories + SECURITY_DIRECTORY * 8;
  return { entryOffset, tableOffset: binary.readUInt32LE(entryOffset), tableSize: binary.readUInt32LE(entryOffset + 4) };
}

/**
 * Returns a copy of `binary` without its Authenticode signature; an unsigned file is returned unchanged (copied).
 * The PE checksum is left as it is: Windows checks it only for drivers and boot-time files.
 */
export function removePeSignature(binary: Buffer): Buffer {
  const { entryOffset, tableOffset, tableSize } = readSecurityDirectory(binary);
  if (tableSize === 0) return Buffer.from(binary);
  // the table is the file's last part; anything after it would be data the cut would lose
  if (tableOffset + tableSize !== binary.length) throw new Error('PE: the certificate table does not end the file');
  const out = Buffer.from(binary.subarray(0, tableOffset));
  out.fill(0, entryOffset, entryOffset + 8);
  return out;
}
