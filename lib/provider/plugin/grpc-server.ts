/**
 * The gRPC server terraform talks to: gRPC's wire protocol over `node:http2` with mutual TLS. Only what go-plugin and
 * tfplugin6 use: unary calls (length-prefixed messages, status in trailers, no compression) plus two streams that
 * stay open and silent (`GRPCStdio/StreamStdio`, `GRPCBroker/StartStream`). Written on node:http2 rather than
 * grpc-js because it starts in a fraction of the time, and terraform starts the provider several times a command.
 */
import type * as Http2 from 'node:http2';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../log';
import { GrpcError, GrpcStatus, type GrpcMethod } from './grpc-status';

export { GrpcError, GrpcStatus, type GrpcMethod } from './grpc-status';

/** Settings of {@link startGrpcServer}. */
export interface GrpcServerOptions {
  /** TLS material; `undefined` serves plaintext HTTP/2 (only when terraform runs with plugin TLS disabled). */
  readonly tls?: {
    /** Our certificate (PEM). */
    readonly certPem: string;
    /** Our private key (PEM). */
    readonly keyPem: string;
    /** The only client certificate accepted (terraform's, from `PLUGIN_CLIENT_CERT`). */
    readonly clientCertPem: string;
  };
  /** Ports to try on 127.0.0.1, in order (`0` = any free port). */
  readonly ports: readonly number[];
  /** A unix socket to listen on instead of a port (the address go-plugin prefers where there are unix sockets). */
  readonly socketPath?: string;
  /** Finds the method for a gRPC path, or `undefined` (answered UNIMPLEMENTED). */
  readonly resolve: (path: string) => GrpcMethod | undefined;
  /** Where to log. */
  readonly log: Logger;
  /** Largest request message accepted, in bytes. @default 256 MiB */
  readonly maxMessageBytes?: number;
}

/** A listening server. */
export interface GrpcServer {
  /** The bound port on 127.0.0.1; 0 on a unix socket. */
  readonly port: number;
  /** Stops accepting connections; `onClosed` runs once every open connection has ended. */
  close(onClosed?: () => void): void;
}

const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/**
 * Starts listening on `options.socketPath`, or on 127.0.0.1 on the first free port of `options.ports`. The socket
 * listens before `node:http2` and the TLS context are loaded: they are made right after the caller has printed the
 * address (or at the first connection, if it comes sooner), while terraform sets up its side of the connection.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  let server: Http2.Http2Server | Http2.Http2SecureServer | undefined;
  const http2Server = (): Http2.Http2Server | Http2.Http2SecureServer => (server ??= createHttp2Server(options));
  const listener = createServer((socket: Socket) => http2Server().emit('connection', socket));
  const port = options.socketPath ? await listenOnSocket(listener, options.socketPath) : await listen(listener, options.ports);
  setImmediate(http2Server);
  return {
    port,
    close: (onClosed) => {
      // the listener counts the connections it accepted: its callback runs once every one has ended
      server?.close();
      listener.close(() => onClosed?.());
    },
  };
}

function createHttp2Server(options: GrpcServerOptions): Http2.Http2Server | Http2.Http2SecureServer {
  const http2 = require('node:http2') as typeof Http2;
  const settings: Http2.Settings = { initialWindowSize: 4 * 1024 * 1024 };
  // The client certificate is pinned (compared byte for byte) rather than trusted as a CA: passing `ca` makes Node
  // parse its whole bundled root store first, which costs more than everything else before the handshake.
  const server = options.tls
    ? http2.createSecureServer({
        cert: options.tls.certPem,
        key: options.tls.keyPem,
        ca: [],
        requestCert: true,
        rejectUnauthorized: false,
        minVersion: 'TLSv1.2',
        maxSessionMemory: 1024,
        settings,
      })
    : http2.createServer({ maxSessionMemory: 1024, settings });
  if (options.tls) {
    const expected = pemToDer(options.tls.clientCertPem);
    server.prependListener('secureConnection', (socket: TLSSocket) => {
      const peer = socket.getPeerCertificate();
      if (peer?.raw && peer.raw.equals(expected)) return;
      options.log.warn('refused a TLS connection that did not present terraform\'s client certificate');
      socket.destroy();
    });
  }
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  server.on('stream', (stream, headers) => serveStream(stream, headers, options, maxBytes));
  server.on('sessionError', (err) => options.log.warn(`gRPC session error: ${err.message}`));
  server.on('tlsClientError', (err) => options.log.warn(`TLS handshake with terraform failed: ${err.message}`));
  return server;
}

/**
 * A unix socket is bound synchronously: a listen on a host name goes through `dns.lookup` first, even for an IP
 * address, which costs several milliseconds of every launch.
 */
function listenOnSocket(server: Server, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve(0);
    });
  });
}

async function listen(server: Server, ports: readonly number[]): Promise<number> {
  let lastError: Error | undefined;
  for (const port of ports) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      return (server.address() as AddressInfo).port;
    } catch (err) {
      lastError = err as Error;
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw lastError ?? new Error('no port to listen on');
}

function serveStream(
  stream: Http2.ServerHttp2Stream,
  headers: Http2.IncomingHttpHeaders,
  options: GrpcServerOptions,
  maxBytes: number,
): void {
  stream.on('error', (err) => options.log.debug(`gRPC stream error: ${err.message}`));
  const path = headers[':path'] ?? '';
  const method = options.resolve(path);
  if (!method) {
    stream.resume();
    return finishWithStatus(stream, GrpcStatus.UNIMPLEMENTED, `unknown method ${path}`);
  }
  if (method.kind === 'idle-stream') {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    stream.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  stream.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes + 5) {
      stream.removeAllListeners('data');
      stream.resume();
      finishWithStatus(stream, GrpcStatus.RESOURCE_EXHAUSTED, `request larger than ${maxBytes} bytes`);
      return;
    }
    chunks.push(chunk);
  });
  stream.on('end', () => {
    if (received > maxBytes + 5) return;
    let request: Buffer;
    try {
      request = unframe(Buffer.concat(chunks));
    } catch (err) {
      return finishWithStatus(stream, GrpcStatus.INVALID_ARGUMENT, (err as Error).message);
    }
    method.call(request).then(
      (response) => {
        if (method.afterResponse) stream.once('close', method.afterResponse);
        respond(stream, response);
      },
      (err: unknown) => {
        const code = err instanceof GrpcError ? err.code : GrpcStatus.INTERNAL;
        options.log.error(`${path} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        finishWithStatus(stream, code, err instanceof Error ? err.message : String(err));
      },
    );
  });
}

/** The DER bytes of the first certificate in a PEM text. */
function pemToDer(pem: string): Buffer {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem);
  if (!m) throw new Error('PLUGIN_CLIENT_CERT holds no PEM certificate');
  return Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
}

/** One gRPC message: a compression flag byte, a 4-byte big-endian length, the message. */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new Error('gRPC request without a message');
  if (body[0] !== 0) throw new GrpcError(GrpcStatus.UNIMPLEMENTED, 'compressed gRPC messages are not supported');
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new Error('gRPC request is not exactly one message');
  return body.subarray(5);
}

function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

function respond(stream: Http2.ServerHttp2Stream, response: Buffer): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(GrpcStatus.OK) }));
  stream.end(frame(response));
}

/** A "trailers-only" response: the status travels in the only HEADERS frame. */
function finishWithStatus(stream: Http2.ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (stream.headersSent) {
    stream.close((require('node:http2') as typeof Http2).constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc',
      'grpc-status': String(code),
      'grpc-message': encodeURIComponent(message),
    },
    { endStream: true },
  );
}
