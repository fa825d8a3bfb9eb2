/**
 * A small protobuf (proto3) codec driven by the tables in `proto/descriptor.ts`. Messages are plain objects keyed by
 * the .proto field names; every field that is not `undefined`/`null` is written (so a oneof member set to 0 or ""
 * is kept); absent fields decode as missing properties. int64 values decode to numbers (they are versions and
 * counts here); unknown fields are skipped.
 */
import { MESSAGES, type FieldSpec } from '../proto/descriptor';

/** A decoded or to-be-encoded message. */
export type ProtoMessage = { [field: string]: unknown };

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

const VARINT_TYPES = new Set(['bool', 'int64', 'int32', 'uint32', 'enum']);

function fieldsOf(type: string): readonly FieldSpec[] {
  const fields = MESSAGES[type];
  if (!fields) throw new Error(`unknown protobuf message ${type}`);
  return fields;
}

// ---- encoding ----

function varint(value: number | bigint): Buffer {
  if (typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER) {
    const bytes: number[] = [];
    let v = value;
    while (v >= 0x80) {
      bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
    return Buffer.from(bytes);
  }
  // Negative int32/int64 are sign-extended to 64 bits: always ten bytes.
  let v = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  while (v >= 0x80n) {
    bytes.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  bytes.push(Number(v));
  return Buffer.from(bytes);
}

const tag = (no: number, wireType: number): Buffer => varint(no * 8 + wireType);

function lengthDelimited(no: number, payload: Buffer): Buffer[] {
  return [tag(no, LENGTH_DELIMITED), varint(payload.length), payload];
}

function encodeValue(no: number, type: string, value: unknown, out: Buffer[]): void {
  if (VARINT_TYPES.has(type)) {
    const n = typeof value === 'boolean' ? Number(value) : (value as number | bigint);
    out.push(tag(no, VARINT), varint(n));
  } else if (type === 'string') {
    out.push(...lengthDelimited(no, Buffer.from(String(value), 'utf8')));
  } else if (type === 'bytes') {
    const bytes = value as Uint8Array;
    out.push(...lengthDelimited(no, Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)));
  } else {
    out.push(...lengthDelimited(no, encodeMessage(type, value as ProtoMessage)));
  }
}

/** Encodes a message of the given full type name (e.g. `tfplugin6.GetProviderSchema.Response`). */
export function encodeMessage(type: string, message: ProtoMessage): Buffer {
  const out: Buffer[] = [];
  for (const [name, no, fieldType, cardinality] of fieldsOf(type)) {
    const value = message[name];
    if (value === undefined || value === null) continue;
    if (cardinality === 'repeated') {
      for (const item of value as unknown[]) encodeValue(no, fieldType, item, out);
    } else if (cardinality === 'map') {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const entry: Buffer[] = [];
        encodeValue(1, 'string', key, entry);
        encodeValue(2, fieldType, item, entry);
        out.push(...lengthDelimited(no, Buffer.concat(entry)));
      }
    } else {
      encodeValue(no, fieldType, value, out);
    }
  }
  return Buffer.concat(out);
}

// ---- decoding ----

class Reader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly end = buf.length,
  ) {}

  varint(): number | bigint {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const byte = this.byte();
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
    // Beyond 49 bits: finish in BigInt so 64-bit values stay exact.
    let big = BigInt(result);
    let shift = 49n;
    for (;;) {
      const byte = this.byte();
      big |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return big;
      shift += 7n;
      if (shift > 70n) throw new Error('malformed protobuf varint');
    }
  }

  length(): number {
    const n = Number(this.varint());
    if (this.pos + n > this.end) throw new Error('truncated protobuf message');
    return n;
  }

  byte(): number {
    if (this.pos >= this.end) throw new Error('truncated protobuf message');
    return this.buf[this.pos++]!;
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === FIXED64) this.pos += 8;
    else if (wireType === LENGTH_DELIMITED) {
      const n = this.length();
      this.pos += n;
    }
    else if (wireType === FIXED32) this.pos += 4;
    else throw new Error(`unsupported protobuf wire type ${wireType}`);
  }
}

function toInt(raw: number | bigint, bits: 32 | 64, signed: boolean): number {
  const big = BigInt(raw);
  const v = signed ? BigInt.asIntN(bits, big) : BigInt.asUintN(bits, big);
  return Number(v);
}

function decodeValue(reader: Reader, type: string, wireType: number): unknown {
  if (VARINT_TYPES.has(type)) {
    if (wireType !== VARINT) throw new Error(`protobuf field of type ${type} has wire type ${wireType}`);
    const raw = reader.varint();
    if (type === 'bool') return raw !== 0;
    if (type === 'uint32') return toInt(raw, 32, false);
    if (type === 'int64') return typeof raw === 'number' ? raw : toInt(raw, 64, true);
    return toInt(raw, 32, true);
  }
  if (wireType !== LENGTH_DELIMITED) throw new Error(`protobuf field of type ${type} has wire type ${wireType}`);
  const n = reader.length();
  const start = reader.pos;
  reader.pos += n;
  if (type === 'string') return reader.buf.toString('utf8', start, start + n);
  if (type === 'bytes') return reader.buf.subarray(start, start + n);
  return decodeRange(type, reader.buf, start, start + n);
}

/** A map entry is a nested message `{ key = 1; value = 2 }`; a missing value is the type's default. */
function decodeMapEntry(reader: Reader, valueType: string, wireType: number): [string, unknown] {
  if (wireType !== LENGTH_DELIMITED) throw new Error(`protobuf map entry has wire type ${wireType}`);
  const n = reader.length();
  const end = reader.pos + n;
  const entryReader = new Reader(reader.buf, end);
  entryReader.pos = reader.pos;
  let key = '';
  let value: unknown = valueType === 'string' ? '' : {};
  while (entryReader.pos < end) {
    const k = Number(entryReader.varint());
    if (k >> 3 === 1) key = decodeValue(entryReader, 'string', k & 7) as string;
    else if (k >> 3 === 2) value = decodeValue(entryReader, valueType, k & 7);
    else entryReader.skip(k & 7);
  }
  reader.pos = end;
  return [key, value];
}

function decodeRange(type: string, buf: Buffer, start: number, end: number): ProtoMessage {
  const byNumber = new Map(fieldsOf(type).map((f) => [f[1], f]));
  const reader = new Reader(buf, end);
  reader.pos = start;
  const message: ProtoMessage = {};
  while (reader.pos < end) {
    const key = Number(reader.varint());
    const wireType = key & 7;
    const field = byNumber.get(Math.floor(key / 8));
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    const [name, , fieldType, cardinality] = field;
    if (cardinality === 'map') {
      const [entryKey, entryValue] = decodeMapEntry(reader, fieldType, wireType);
      ((message[name] ??= {}) as Record<string, unknown>)[entryKey] = entryValue;
    } else {
      const value = decodeValue(reader, fieldType, wireType);
      if (cardinality === 'repeated') ((message[name] ??= []) as unknown[]).push(value);
      else message[name] = value;
    }
  }
  return message;
}

/** Decodes a message of the given full type name. */
export function decodeMessage(type: string, bytes: Uint8Array): ProtoMessage {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return decodeRange(type, buf, 0, buf.length);
}
