/**
 * The provider's gRPC server on @grpc/grpc-js with mutual TLS: terraform's certificate as the only trusted root, as
 * go-plugin's own servers do. Messages pass as bytes so that the codec stays a separate, measured piece.
 */
import * as grpc from '@grpc/grpc-js';
import type { UnaryAnswer } from './wire';

const bytes = (b: Buffer): Buffer => b;

export async function startGrpcJsServer(tls: { certPem: string; keyPem: string; clientCertPem: string }, path: string, answer: UnaryAnswer): Promise<number> {
  const server = new grpc.Server();
  const method = path.slice(path.lastIndexOf('/') + 1);
  server.addService(
    {
      [method]: { path, requestStream: false, responseStream: false, requestSerialize: bytes, requestDeserialize: bytes, responseSerialize: bytes, responseDeserialize: bytes },
    },
    {
      [method]: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        answer(call.request).then(
          (response) => callback(null, response),
          (err: Error) => callback({ code: grpc.status.INTERNAL, details: err.message }),
        );
      },
    },
  );
  const credentials = grpc.ServerCredentials.createSsl(
    Buffer.from(tls.clientCertPem),
    [{ cert_chain: Buffer.from(tls.certPem), private_key: Buffer.from(tls.keyPem) }],
    true,
  );
  return new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', credentials, (err, port) => (err ? reject(err) : resolve(port))));
}
