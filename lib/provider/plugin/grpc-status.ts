/**
 * What the RPC layer shares with the gRPC server: status codes, the error that carries one, and how a method is
 * served. Kept apart from the server so that the RPC layer loads without `node:http2`.
 */

/** gRPC status codes used here. */
export const GrpcStatus = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;

/** An error that becomes the call's gRPC status. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** How a method is served: unary (request bytes in, response bytes out) or an open, silent stream. */
export type GrpcMethod =
  | {
      readonly kind: 'unary';
      call(request: Buffer): Promise<Buffer>;
      /** Runs once the response has been sent (the stream closed). */
      afterResponse?: () => void;
    }
  | { readonly kind: 'idle-stream' };
