/**
 * A provider-shaped executable for bench/provider-wire.ts: after go-plugin's checks it makes the AutoMTLS
 * certificate, starts a gRPC server with mutual TLS, prints the handshake line and answers GetProviderSchema. Which
 * library does each piece is fixed at bundle time (esbuild `define`), so each executable holds only its own.
 */
import { writeSync } from 'node:fs';
import type { ServerCertificate } from '../../lib/provider/plugin/certificate';
import { SCHEMA_PATH, type UnaryAnswer } from './wire';

declare const WIRE_CERTIFICATE: 'ours' | 'x509';
declare const WIRE_SERVER: 'ours' | 'grpc-js';
declare const WIRE_CODEC: 'ours' | 'es';

// The value of MAGIC_COOKIE_VALUE in lib/provider/main.ts, not imported from there: main.ts loads our certificate
// writer and gRPC server at the top, which would put them into every variant.
const MAGIC_COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

async function certificate(): Promise<ServerCertificate> {
  if (WIRE_CERTIFICATE === 'x509') return (require('./certificate-x509') as typeof import('./certificate-x509')).createCertificateWithX509();
  return (require('../../lib/provider/plugin/certificate') as typeof import('../../lib/provider/plugin/certificate')).createServerCertificate();
}

// Loaded on the first call, as the provider loads its RPC layer.
const answer: UnaryAnswer = (request) =>
  WIRE_CODEC === 'es'
    ? (require('./codec-es') as typeof import('./codec-es')).answerWithEsCodec(request)
    : (require('./codec-ours') as typeof import('./codec-ours')).answerWithOurCodec(request);

async function listen(tls: { certPem: string; keyPem: string; clientCertPem: string }): Promise<number> {
  if (WIRE_SERVER === 'grpc-js') return (require('./server-grpc-js') as typeof import('./server-grpc-js')).startGrpcJsServer(tls, SCHEMA_PATH, answer);
  const { startGrpcServer } = require('../../lib/provider/plugin/grpc-server') as typeof import('../../lib/provider/plugin/grpc-server');
  const log = { enabled: () => false, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const server = await startGrpcServer({
    tls,
    ports: [0],
    log: log as never,
    resolve: (path) => (path === SCHEMA_PATH ? { kind: 'unary', call: answer } : undefined),
  });
  return server.port;
}

async function main(): Promise<void> {
  const clientCertPem = process.env.PLUGIN_CLIENT_CERT;
  if (process.env.TF_PLUGIN_MAGIC_COOKIE !== MAGIC_COOKIE || !clientCertPem) {
    writeSync(2, 'not launched by terraform\n');
    process.exit(1);
  }
  const cert = await certificate();
  const port = await listen({ certPem: cert.certPem, keyPem: cert.keyPem, clientCertPem });
  writeSync(1, `1|6|tcp|127.0.0.1:${port}|grpc|${cert.der.toString('base64').replace(/=+$/, '')}\n`);
}

void main();
