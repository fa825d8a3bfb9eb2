/**
 * The one HTTP app of the local platform. Modules mount their surfaces on it (`/v2` control plane, later `/api/v1`
 * tracing and `/deployments/<id>` agent servers); this file adds what every response shares: an `x-request-id`,
 * the error bodies, and the 404 for unknown routes.
 */
import { randomUUID } from 'node:crypto';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeBindingsOf, type PlatformApp, type PlatformEnv } from './platform-env';
import type { FastRoutes } from './fast-routes';
import { HttpError, RequestValidationError } from './errors';
import type { Clock } from './clock';

/** Options of `createPlatformApp`. */
export interface PlatformAppOptions {
  /** Receives one line per request (method, path, status, duration) and every unexpected error. */
  readonly log?: (line: string) => void;
  /**
   * The platform's clock: the `Date` header of every response tells it, so that clients reckon with the platform's
   * time (a manual clock in tests). @default the HTTP server's own `Date` (the system clock)
   */
  readonly clock?: Clock;
}

/** Creates the root app with request ids, request logging and the platform's error bodies. */
export function createPlatformApp(options: PlatformAppOptions = {}): PlatformApp {
  const { log, clock } = options;
  const app = new Hono<PlatformEnv>();
  app.use('*', (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    // On the Node response the header costs nothing more; `c.header` would give every response a fetch `Headers`
    // object that the adapter then has to copy back into Node's.
    const node = nodeBindingsOf(c);
    if (node) node.outgoing.setHeader('x-request-id', requestId);
    else c.header('x-request-id', requestId);
    if (clock) {
      const date = new Date(clock.now()).toUTCString();
      if (node) node.outgoing.setHeader('date', date);
      else c.header('date', date);
    }
    if (!log) return next();
    const started = performance.now();
    return next().then(() => {
      // The path only: query strings are logged by nobody, so nothing sensitive can slip through them.
      log(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - started).toFixed(1)}ms`);
    });
  });
  app.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  app.onError((err, c) => {
    if (err instanceof RequestValidationError) return c.json({ detail: err.items }, 422);
    if (err instanceof HttpError) return c.json({ detail: err.message }, err.status);
    log?.(`error in ${c.req.method} ${c.req.path}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    return c.json({ detail: 'Internal Server Error' }, 500);
  });
  return app;
}

/** A listening HTTP server and how to stop it. */
export interface ListeningServer {
  /** The bound port (the real one when 0 was asked). */
  readonly port: number;
  /** Stops accepting connections, drops open ones (streams included) and resolves once closed. */
  close(): Promise<void>;
}

/** Serves `app` on `host:port`, asking `fastRoutes` first; rejects when the port cannot be bound. */
export function listen(app: PlatformApp, host: string, port: number, fastRoutes?: FastRoutes): Promise<ListeningServer> {
  const appListener = getRequestListener(app.fetch);
  const server = createServer(fastRoutes ? (req, res) => fastRoutes.answer(req, res) || void appListener(req, res) : appListener);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
