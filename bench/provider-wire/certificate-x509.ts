/**
 * The provider's AutoMTLS certificate written by @peculiar/x509 over WebCrypto: the same certificate as
 * lib/provider/plugin/certificate.ts (ECDSA P-256, self-signed, CA:TRUE, serverAuth and clientAuth, SAN localhost
 * and 127.0.0.1, valid from an hour ago for 30 days).
 */
import './reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { ServerCertificate } from '../../lib/provider/plugin/certificate';

export async function createCertificateWithX509(now: Date = new Date()): Promise<ServerCertificate> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)));
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial.toString('hex'),
      name: 'O=agentplatform provider, CN=localhost',
      notBefore: new Date(now.getTime() - 60 * 60 * 1000),
      notAfter: new Date(now.getTime() + 30 * 24 * 60 * 60 * 1000),
      signingAlgorithm: algorithm,
      keys,
      extensions: [
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.SubjectAlternativeNameExtension([
          { type: 'dns', value: 'localhost' },
          { type: 'ip', value: '127.0.0.1' },
        ]),
      ],
    },
    webcrypto as never,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    der: Buffer.from(cert.rawData),
    certPem: cert.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}
