/**
 * Fast routes: the hottest reads (a revision polled by every waiting `terraform apply`) answered on Node's own
 * request and response, before the app. A fast route handles only the plain case — a known API key, valid ids, a
 * record that exists — and declines everything else, which the app then answers in full. So every rule and every
 * error body stays defined once, in the app's routes; a fast route only spares the plain case the framework's
 * per-request objects (fetch `Request`, `Headers`, context, middleware chain).
 *
 * A module registers a fast route beside its app route for the same path, and its tests check that both answer
 * alike.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from './clock';

/** What a fast route answers: a status and a JSON body, already serialized. */
export interface FastAnswer {
  /** HTTP status. */
  readonly status: number;
  /** The JSON body. */
  readonly body: string;
}

/**
 * Answers a matched request, or returns undefined to let the app answer it (any error, any unusual request).
 * `header` reads a request header the way the app's routes do (repeats joined with ", ").
 */
export type FastRouteHandler = (match: RegExpExecArray, header: (name: string) => string | undefined) => FastAnswer | undefined;

interface FastRoute {
  readonly pattern: RegExp;
  readonly handler: FastRouteHandler;
}

/** The fast GET routes of the platform; `listen` asks them first. */
export class FastRoutes {
  private readonly routes: FastRoute[] = [];
  private answers = 0;

  /** How many requests the fast routes answered (the others went to the app). */
  get answered(): number {
    return this.answers;
  }

  /**
   * @param log receives the same request line the app logs (method, path, status, duration)
   * @param clock the platform's clock, for the `Date` header as the app sends it (the system clock without one)
   */
  constructor(
    private readonly log?: (line: string) => void,
    private readonly clock?: Clock,
  ) {}

  /** Adds a GET route; `pattern` is matched against the whole path (anchor it), never a query string. */
  get(pattern: RegExp, handler: FastRouteHandler): void {
    this.routes.push({ pattern, handler });
  }

  /** Answers the request when a fast route takes it; false leaves it to the app. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || this.routes.length === 0) return false;
    const url = req.url ?? '';
    // Only a plain path: a query string, or an absolute URL in the request line, goes to the app.
    if (url.charCodeAt(0) !== 0x2f || url.includes('?')) return false;
    const started = this.log ? performance.now() : 0;
    for (const route of this.routes) {
      const match = route.pattern.exec(url);
      if (!match) continue;
      let answer: FastAnswer | undefined;
      try {
        answer = route.handler(match, (name) => headerOf(req, name));
      } catch {
        answer = undefined;
      }
      if (!answer) return false;
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer.body),
        'x-request-id': randomUUID(),
        ...(this.clock ? { date: new Date(this.clock.now()).toUTCString() } : {}),
      });
      res.end(answer.body);
      this.answers += 1;
      this.log?.(`GET ${url} ${answer.status} ${(performance.now() - started).toFixed(1)}ms`);
      return true;
    }
    return false;
  }
}

/** A request header as the app's routes read it: repeats joined with ", "; `authorization` is never read here. */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  if (name === 'authorization') return undefined;
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
