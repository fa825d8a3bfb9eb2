/**
 * What every route of the local platform sees of a request: the authenticated caller and the request id (the Hono
 * variables), and the Node request and response behind it. Apart from the server and the auth middleware, so that
 * both depend on it and neither on the other.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';

/** Who is calling: the key's organization and the workspace the request acts in. */
export interface Principal {
  /** The organization that owns the API key. */
  readonly organizationId: string;
  /** The workspace (tenant) the request acts in. */
  readonly tenantId: string;
}

/** Variables routes can read from the Hono context. */
export interface PlatformEnv {
  Variables: {
    /** The authenticated caller; set by the auth middleware. */
    principal: Principal;
    /** The id sent back in `x-request-id`. */
    requestId: string;
  };
}

/** The app type every module registers routes on. */
export type PlatformApp = Hono<PlatformEnv>;

/**
 * The Node request and response behind `c` when the app is served by {@link listen}; undefined when it is called
 * without a socket (`app.request`). Reading headers from the Node request spares building a fetch `Headers` object.
 */
export function nodeBindingsOf(c: Context): HttpBindings | undefined {
  const env = c.env as Partial<HttpBindings> | undefined;
  return env?.incoming && env.outgoing ? (env as HttpBindings) : undefined;
}
