/** The part of s3rver 3.7 (which ships no type declarations) that the in-process S3 server uses. */
declare module 's3rver' {
  import type { IncomingMessage } from 'node:http';
  import type { AddressInfo, Server } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    /** Whether a bucket may be named by the Host header (virtual-hosted style). */
    vhostBuckets?: boolean;
    configureBuckets?: ReadonlyArray<{ name: string; configs?: ReadonlyArray<string | Buffer> }>;
  }

  namespace S3rver {
    /** s3rver's filesystem store: the calls the in-process server makes itself. */
    interface Store {
      getBucket(bucket: string): Promise<unknown>;
      existsObject(bucket: string, key: string): Promise<boolean>;
      deleteObject(bucket: string, key: string): Promise<void>;
    }
    /** The part of a Koa context a middleware of the in-process server uses. */
    interface Context {
      /** The request, whose body a middleware may read when it answers itself. */
      readonly req: IncomingMessage;
      /** Route parameters: s3rver's router sets them; a middleware that answers before it sets `bucket` itself. */
      params?: { bucket?: string; key?: string };
      /** The application: its `store` is s3rver's filesystem store. */
      readonly app: { readonly store: Store };
      /** The request's path, as sent (not decoded), or as rewritten from the Host by s3rver. */
      readonly path: string;
      readonly method: string;
      /** The query parameters, decoded. */
      readonly query: Record<string, string | string[] | undefined>;
      /** A request header ('' when absent). */
      get(field: string): string;
      status: number;
      type: string;
      body: unknown;
      set(field: string, value: string): void;
    }
    type Middleware = (ctx: Context, next: () => Promise<void>) => Promise<void>;
  }

  class S3rver {
    /** Koa's middleware, in order; composed when the server starts listening. */
    middleware: S3rver.Middleware[];
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    /** Creates the configured buckets (what `run()` does before it listens). */
    configureBuckets(): Promise<void>;
    /** A new HTTP server serving the API, listening with these arguments (those of `net.Server.listen`). */
    listen(port: number, host: string, callback: () => void): Server;
    /** The server `close()` closes. */
    httpServer: Server | undefined;
    close(): Promise<void>;
  }

  export = S3rver;
}
