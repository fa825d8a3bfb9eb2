/**
 * The provider's own TLS certificate for go-plugin AutoMTLS: a fresh self-signed ECDSA P-256 certificate per launch,
 * written by a small DER encoder over `node:crypto` (Node has no certificate builder, and a library costs start-up
 * time). Terraform pins exactly this certificate, which it reads from the handshake line.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** A generated certificate and its key. */
export interface ServerCertificate {
  /** The certificate, DER-encoded (it goes, base64 without padding, into the handshake line). */
  readonly der: Buffer;
  /** The certificate, PEM-encoded (for the TLS server). */
  readonly certPem: string;
  /** The private key, PKCS#8 PEM (for the TLS server). */
  readonly keyPem: string;
}

// ---- DER encoding (X.690): just the types a certificate needs ----

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);
const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 + n, inner);
const octetString = (content: Buffer): Buffer => tlv(0x04, content);
const bool = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
const bitString = (content: Buffer, unusedBits = 0): Buffer => tlv(0x03, Buffer.from([unusedBits]), content);
const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));

/** A non-negative INTEGER from big-endian magnitude bytes, minimally encoded (X.690 8.3.2). */
function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return tlv(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [bool(true)] : []), octetString(value));
}

/** digitalSignature (bit 0), keyEncipherment (bit 2), keyCertSign (bit 5): 0b10100100, two unused trailing bits. */
const KEY_USAGE_BITS = bitString(Buffer.from([0xa4]), 2);

/** A positive serial: 16 random bytes with the top bit cleared and a non-zero first byte. */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return unsignedInteger(bytes);
}

function toPem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * A self-signed certificate as go-plugin's own AutoMTLS makes one: CA:TRUE, serverAuth and clientAuth, SAN
 * `DNS:localhost` (the name terraform verifies) and `IP:127.0.0.1`, valid from an hour ago for 30 days.
 */
export function createServerCertificate(now: Date = new Date()): ServerCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return buildCertificate(publicKey, privateKey, now);
}

function buildCertificate(publicKey: KeyObject, privateKey: KeyObject, now: Date): ServerCertificate {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const name = sequence(
    set(sequence(oid(OID.organization), utf8String('agentplatform provider'))),
    set(sequence(oid(OID.commonName), utf8String('localhost'))),
  );
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + 30 * 24 * 60 * 60 * 1000);
  const subjectAltName = sequence(tlv(0x82, Buffer.from('localhost')), tlv(0x87, Buffer.from([127, 0, 0, 1])));
  const extensions = sequence(
    extension(OID.keyUsage, true, KEY_USAGE_BITS),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))),
    extension(OID.basicConstraints, true, sequence(bool(true))),
    extension(OID.subjectAltName, false, subjectAltName),
  );
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    serialNumber(),
    algorithm,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, algorithm, bitString(signature));
  return {
    der,
    certPem: toPem('CERTIFICATE', der),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}
