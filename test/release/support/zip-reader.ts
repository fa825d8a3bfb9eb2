/**
 * A zip reader for the release tests, written from the format (PKWARE's APPNOTE) and sharing no code with the writer:
 * the central directory's entries with their attributes, each entry's content inflated and its CRC-32 checked.
 */
import { crc32, inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export interface ZipEntry {
  readonly name: string;
  /** The upper byte of "version made by": 3 is Unix, whose external attributes carry a mode. */
  readonly madeBy: number;
  /** The Unix mode (file type and permissions): the upper 16 bits of the external attributes. */
  readonly mode: number;
  /** The DOS date and time fields as stored. */
  readonly dosDate: number;
  readonly dosTime: number;
  /** The length of the local header's and the central header's extra fields. */
  readonly extraLength: number;
  /** The uncompressed content. */
  readonly data: Buffer;
}

function fail(message: string): never {
  throw new Error(`zip: ${message}`);
}

/** Every entry of the zip `file`, in central directory order. */
export function readZip(file: Buffer): ZipEntry[] {
  let end = -1;
  for (let i = file.length - 22; i >= Math.max(0, file.length - 22 - 0xffff); i--) {
    if (file.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) fail('no end of central directory record');
  const count = file.readUInt16LE(end + 10);
  let offset = file.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (file.readUInt32LE(offset) !== CENTRAL_FILE_HEADER) fail(`no central file header at ${offset}`);
    const method = file.readUInt16LE(offset + 10);
    const dosTime = file.readUInt16LE(offset + 12);
    const dosDate = file.readUInt16LE(offset + 14);
    const crc = file.readUInt32LE(offset + 16);
    const compressedSize = file.readUInt32LE(offset + 20);
    const size = file.readUInt32LE(offset + 24);
    const nameLength = file.readUInt16LE(offset + 28);
    const extraLength = file.readUInt16LE(offset + 30);
    const commentLength = file.readUInt16LE(offset + 32);
    const name = file.toString('utf8', offset + 46, offset + 46 + nameLength);
    const local = file.readUInt32LE(offset + 42);
    if (file.readUInt32LE(local) !== LOCAL_FILE_HEADER) fail(`no local file header for ${name}`);
    const localExtra = file.readUInt16LE(local + 28);
    const start = local + 30 + file.readUInt16LE(local + 26) + localExtra;
    const raw = file.subarray(start, start + compressedSize);
    const data = method === DEFLATED ? inflateRawSync(raw) : method === STORED ? Buffer.from(raw) : fail(`${name}: compression method ${method}`);
    if (data.length !== size) fail(`${name}: ${data.length} bytes inflated, ${size} declared`);
    if (crc32(data) !== crc) fail(`${name}: CRC-32 mismatch`);
    entries.push({
      name,
      madeBy: file.readUInt8(offset + 5),
      mode: file.readUInt32LE(offset + 38) >>> 16,
      dosDate,
      dosTime,
      extraLength: extraLength + localExtra,
      data,
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
