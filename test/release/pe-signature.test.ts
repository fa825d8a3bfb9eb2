/**
 * Removing the Authenticode signature of the shipped `node.exe`, checked with the tests' own PE reader: the
 * certificate table gone from the file's end and from the security directory, every other byte unchanged.
 */
import { readFileSync } from 'node:fs';
import { removePeSignature } from '../../scripts/release/pe-signature';
import { nodeExecutable } from '../../scripts/release/sea';
import { readPe } from './support/executable-formats';

describe('removePeSignature', () => {
  let shipped: Buffer;
  beforeAll(() => {
    shipped = readFileSync(nodeExecutable('windows_amd64'));
  }, 300_000);

  it('cuts the certificate table that ends the signed node.exe and zeroes its directory entry', () => {
    const signed = readPe(shipped).security;
    expect(signed.size).toBeGreaterThan(0);
    expect(signed.offset + signed.size).toBe(shipped.length);
    const stripped = removePeSignature(shipped);
    expect(stripped.length).toBe(signed.offset);
    expect(readPe(stripped)).toMatchObject({ machine: 0x8664, security: { offset: 0, size: 0 } });
    let changed = 0;
    for (let i = 0; i < stripped.length; i++) if (stripped[i] !== shipped[i]) changed++;
    // the 8 bytes of the directory entry, at most
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThanOrEqual(8);
  });

  it('returns an unsigned file unchanged', () => {
    const stripped = removePeSignature(shipped);
    expect(removePeSignature(stripped).equals(stripped)).toBe(true);
  });

  it('refuses a file in which data follows the certificate table', () => {
    expect(() => removePeSignature(Buffer.concat([shipped, Buffer.alloc(16)]))).toThrow('PE: the certificate table does not end the file');
  });
});
