/**
 * The transport under the RPCs: the protobuf tables match the .proto files, the codec round-trips, the certificate
 * is what go-plugin expects, and the gRPC server speaks gRPC over mutual TLS with terraform's pinned certificate.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as http2 from 'node:http2';
import { createLogger } from '../../lib/provider/log';
import { createServerCertificate, type ServerCertificate } from '../../lib/provider/plugin/certificate';
import { GrpcStatus, startGrpcServer, type GrpcServer } from '../../lib/provider/plugin/grpc-server';
import { decodeMessage, encodeMessage } from '../../lib/provider/plugin/protobuf';
import { MESSAGES, METHODS } from '../../lib/provider/proto/descriptor';
import { tablesFromProtoFiles } from './support/proto-files';

describe('protobuf tables', () => {
  it('match the .proto files exactly', () => {
    const fromProto = tablesFromProtoFiles();
    expect(MESSAGES).toEqual(fromProto.messages);
    expect(METHODS).toEqual(fromProto.methods);
  });
});

describe('protobuf codec', () => {
  it('round-trips nested, repeated and map fields', () => {
    const response = {
      provider: { version: 0, block: { attributes: [{ name: 'api_key', type: Buffer.from('"string"'), optional: true, sensitive: true }] } },
      resource_schemas: { agentplatform_x: { version: 3, block: { description: 'x', description_kind: 1 } } },
      diagnostics: [{ severity: 1, summary: 'bad', attribute: { steps: [{ attribute_name: 'a' }, { element_key_int: 0 }, { element_key_string: '' }] } }],
      server_capabilities: { get_provider_schema_optional: true },
    };
    const decoded = decodeMessage('tfplugin6.GetProviderSchema.Response', encodeMessage('tfplugin6.GetProviderSchema.Response', response));
    expect(decoded).toEqual(response);
  });

  it('keeps a oneof member set to its zero value', () => {
    const bytes = encodeMessage('tfplugin6.AttributePath.Step', { element_key_int: 0 });
    expect(bytes.toString('hex')).toBe('1800');
    expect(decodeMessage('tfplugin6.AttributePath.Step', bytes)).toEqual({ element_key_int: 0 });
  });

  it('encodes negative and 64-bit integers as protobuf varints', () => {
    const bytes = encodeMessage('tfplugin6.Schema', { version: -1 });
    expect(bytes.toString('hex')).toBe('08ffffffffffffffffff01');
    expect(decodeMessage('tfplugin6.Schema', bytes)).toEqual({ version: -1 });
    expect(decodeMessage('tfplugin6.Schema', encodeMessage('tfplugin6.Schema', { version: 2 ** 40 }))).toEqual({ version: 2 ** 40 });
  });

  it('skips fields it does not know', () => {
    // Field 15 (a string "zz") precedes field 1 of StopProvider.Response.
    const bytes = Buffer.concat([Buffer.from('7a027a7a', 'hex'), encodeMessage('tfplugin6.StopProvider.Response', { Error: 'e' })]);
    expect(decodeMessage('tfplugin6.StopProvider.Response', bytes)).toEqual({ Error: 'e' });
  });

  it('rejects truncated messages', () => {
    const bytes = encodeMessage('tfplugin6.DynamicValue', { msgpack: Buffer.alloc(10) });
    expect(() => decodeMessage('tfplugin6.DynamicValue', bytes.subarray(0, 5))).toThrow('truncated');
  });
});

describe('provider certificate', () => {
  it('is a self-signed ECDSA P-256 CA for localhost, for server and client auth', () => {
    const certificate = createServerCertificate();
    const x509 = new X509Certificate(certificate.der);
    expect(x509.subject).toContain('CN=localhost');
    expect(x509.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(x509.ca).toBe(true);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    expect(x509.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(certificate.keyPem))).toBe(true);
    expect(new Date(x509.validFrom).getTime()).toBeLessThan(Date.now());
    expect(new X509Certificate(certificate.certPem).raw.equals(certificate.der)).toBe(true);
  });

  it('always has a positive, minimally encoded serial', () => {
    for (let i = 0; i < 300; i++) {
      const der = createServerCertificate().der;
      // TBSCertificate: SEQUENCE { [0] version (5 bytes), INTEGER serial ... }; find the serial after the version.
      const serialTag = der.indexOf(Buffer.from('a003020102', 'hex')) + 5;
      expect(der[serialTag]).toBe(0x02);
      const length = der[serialTag + 1]!;
      const first = der[serialTag + 2]!;
      expect(first & 0x80).toBe(0);
      expect(first === 0 && length > 1 && (der[serialTag + 3]! & 0x80) === 0).toBe(false);
      expect(new X509Certificate(der).serialNumber).toMatch(/^[0-9A-F]+$/);
    }
  });
});

describe('gRPC server', () => {
  let terraformCert: ServerCertificate;
  let providerCert: ServerCertificate;
  let server: GrpcServer;
  let upperCalls = 0;
  const sessions: http2.ClientHttp2Session[] = [];

  beforeAll(async () => {
    terraformCert = createServerCertificate();
    providerCert = createServerCertificate();
    server = await startGrpcServer({
      tls: { certPem: providerCert.certPem, keyPem: providerCert.keyPem, clientCertPem: terraformCert.certPem },
      ports: [0],
      log: createLogger(undefined),
      resolve: (path) => {
        if (path === '/test.Echo/Upper') {
          return { kind: 'unary', call: async (b) => (upperCalls++, Buffer.from(b.toString().toUpperCase())) };
        }
        if (path === '/test.Echo/Fail') return { kind: 'unary', call: async () => Promise.reject(new Error('broken: 100%')) };
        if (path === '/test.Echo/Idle') return { kind: 'idle-stream' };
        return undefined;
      },
    });
  });
  afterAll(() => {
    sessions.forEach((s) => s.destroy());
    server.close();
  });

  function connect(client: ServerCertificate): http2.ClientHttp2Session {
    const session = http2.connect(`https://localhost:${server.port}`, {
      ca: providerCert.certPem,
      cert: client.certPem,
      key: client.keyPem,
    });
    session.on('error', () => undefined);
    sessions.push(session);
    return session;
  }

  function call(session: http2.ClientHttp2Session, path: string, message: Buffer) {
    return new Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
      const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), message]);
      framed.writeUInt32BE(message.length, 1);
      let headers: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (headers = h));
      stream.on('trailers', (t) => (trailers = t));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve({ headers, trailers, body: Buffer.concat(chunks) }));
      stream.on('error', reject);
      stream.end(framed);
    });
  }

  it('answers a unary call with one framed message and grpc-status 0 in the trailers', async () => {
    const { headers, trailers, body } = await call(connect(terraformCert), '/test.Echo/Upper', Buffer.from('hello'));
    expect(headers['content-type']).toBe('application/grpc');
    expect(trailers['grpc-status']).toBe('0');
    expect(body.subarray(0, 5).toString('hex')).toBe('0000000005');
    expect(body.subarray(5).toString()).toBe('HELLO');
  });

  it('answers unknown methods with UNIMPLEMENTED and failures with INTERNAL, message percent-encoded', async () => {
    const session = connect(terraformCert);
    const unknown = await call(session, '/test.Echo/Nope', Buffer.alloc(0));
    expect(unknown.headers['grpc-status']).toBe(String(GrpcStatus.UNIMPLEMENTED));
    const failed = await call(session, '/test.Echo/Fail', Buffer.alloc(0));
    expect(failed.headers['grpc-status']).toBe(String(GrpcStatus.INTERNAL));
    expect(decodeURIComponent(String(failed.headers['grpc-message']))).toBe('broken: 100%');
  });

  it('keeps idle streams open without sending anything', async () => {
    const session = connect(terraformCert);
    const stream = session.request({ ':method': 'POST', ':path': '/test.Echo/Idle', 'content-type': 'application/grpc' });
    const status = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.on('response', resolve));
    expect(status[':status']).toBe(200);
    let received = 0;
    stream.on('data', () => received++);
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toBe(0);
    expect(stream.closed).toBe(false);
    stream.close();
  });

  it('refuses a client without terraform\'s exact certificate', async () => {
    const before = upperCalls;
    const session = connect(createServerCertificate());
    const outcome = await call(session, '/test.Echo/Upper', Buffer.from('x')).catch((err: Error) => err);
    expect(outcome instanceof Error ? undefined : outcome.headers[':status']).toBeUndefined();
    expect(upperCalls).toBe(before);
  });
});
