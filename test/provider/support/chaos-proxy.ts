/**
 * An HTTP reverse proxy that makes the network between terraform's provider and the platform unreliable the way real
 * ones are, drawing each request's fate from a seeded pseudo-random sequence: refused with 503 and `Retry-After` (the
 * platform never sees it), forwarded and then answered 502 by a gateway, forwarded and then the connection reset (the
 * platform acted, the client hears nothing), delayed before it is forwarded, or forwarded as it is. The same seed
 * gives the same sequence of fates; which request meets which depends on the order they arrive in.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { prng as seededRandom } from '../../../lib/local/tracing/synthetic/generate';

/** What happened to a request. */
export type Fate = 'refused' | 'bad-gateway' | 'reset' | 'delayed' | 'passed';

/** How often each fault happens (fractions of the requests) and how long a delay lasts. */
export interface ChaosSettings {
  /** Seed of the pseudo-random sequence. */
  readonly seed: number;
  /** Refused with 503 and `Retry-After`, not forwarded. @default 0.08 */
  readonly refused?: number;
  /** Forwarded, then answered 502 with a gateway's HTML page. @default 0.08 */
  readonly badGateway?: number;
  /** Forwarded, then the connection reset without an answer. @default 0.08 */
  readonly reset?: number;
  /** Forwarded after a delay. @default 0.15 */
  readonly delayed?: number;
  /** Longest delay, in milliseconds. @default 1500 */
  readonly maxDelayMs?: number;
  /** `Retry-After` of a refusal, in seconds. @default 1 */
  readonly retryAfterSeconds?: number;
  /** Takes `Idempotency-Key` out of every request, as in front of a platform that does not know it. @default false */
  readonly stripIdempotencyKey?: boolean;
}

export interface ChaosProxy {
  /** The address to give the provider instead of the platform's. */
  readonly endpoint: string;
  /** How many requests met each fate. */
  readonly fates: Readonly<Record<Fate, number>>;
  /** Faults on (the default) or off (every request forwarded as it is). */
  faults: boolean;
  close(): Promise<void>;
}

const BAD_GATEWAY = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

export async function startChaosProxy(upstream: string, settings: ChaosSettings): Promise<ChaosProxy> {
  const target = new URL(upstream);
  const random = seededRandom(settings.seed);
  const { refused = 0.08, badGateway = 0.08, reset = 0.08, delayed = 0.15, maxDelayMs = 1500, retryAfterSeconds = 1, stripIdempotencyKey = false } = settings;
  const fates: Record<Fate, number> = { refused: 0, 'bad-gateway': 0, reset: 0, delayed: 0, passed: 0 };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const fateOf = (): { fate: Fate; delayMs: number } => {
    const draw = random();
    const delayMs = Math.floor(random() * maxDelayMs);
    let bound = refused;
    if (draw < bound) return { fate: 'refused', delayMs };
    if (draw < (bound += badGateway)) return { fate: 'bad-gateway', delayMs };
    if (draw < (bound += reset)) return { fate: 'reset', delayMs };
    if (draw < (bound += delayed)) return { fate: 'delayed', delayMs };
    return { fate: 'passed', delayMs };
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, fate: Fate): void => {
    const { 'idempotency-key': key, ...others } = req.headers;
    const headers = stripIdempotencyKey || key === undefined ? others : { ...others, 'idempotency-key': key };
    const upstreamRequest = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (upstreamResponse) => {
        const chunks: Buffer[] = [];
        upstreamResponse.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstreamResponse.on('end', () => {
          if (fate === 'reset') {
            req.socket.resetAndDestroy();
          } else if (fate === 'bad-gateway') {
            res.writeHead(502, { 'content-type': 'text/html' });
            res.end(BAD_GATEWAY);
          } else {
            res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
            res.end(Buffer.concat(chunks));
          }
        });
      },
    );
    upstreamRequest.on('error', () => res.destroy());
    upstreamRequest.end(body);
  };

  const proxy: ChaosProxy = {
    endpoint: '',
    fates,
    faults: true,
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach((timer) => clearTimeout(timer));
        server.close(() => resolve());
        sockets.forEach((socket) => socket.destroy());
      }),
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const { fate, delayMs } = proxy.faults ? fateOf() : { fate: 'passed' as const, delayMs: 0 };
      fates[fate] += 1;
      if (fate === 'refused') {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) });
        res.end(JSON.stringify({ detail: 'Service temporarily unavailable' }));
      } else if (fate === 'delayed') {
        const timer = setTimeout(() => {
          timers.delete(timer);
          forward(req, res, body, fate);
        }, delayMs);
        timers.add(timer);
      } else {
        forward(req, res, body, fate);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(proxy, { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}
