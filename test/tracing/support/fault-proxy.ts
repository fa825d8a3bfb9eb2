/**
 * An HTTP reverse proxy in front of a real server (an S3 server, or the platform) that can misbehave on demand, to put
 * a request in a known state: hold requests (an export run waits in the middle of a file), hold responses (the object
 * is written but the platform has not heard so), lose or spoil the answer to a request the server has carried out
 * (the connection dropped, a gateway's 502 page, a body cut short), or answer with S3 errors. Every request is
 * forwarded unchanged otherwise.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with the next requests. */
export type ProxyMode =
  /** Forward. */
  | 'pass'
  /** Keep requests waiting, unsent, until `release()`. */
  | 'hold-requests'
  /** Forward requests but keep their responses until `release()` (the store has done the work). */
  | 'hold-responses'
  /** Forward requests, then close the connection without an answer. */
  | 'drop-responses'
  /** Forward requests, then answer 502 with an HTML page, as a gateway whose upstream's answer was lost does. */
  | 'bad-gateway-responses'
  /** Forward requests, then answer with the response's status and the first half of its body. */
  | 'cut-responses'
  /** Answer 500 InternalError, as S3 does when it has a passing problem. */
  | 'fail'
  /** Answer 404 without a body, as S3 answers a HEAD of an object it does not show. */
  | 'not-found'
  /** Answer 404 NoSuchUpload, as S3 answers a part or a completion of a multipart upload it no longer knows. */
  | 'no-such-upload'
  /** Answer 500 InternalError with a message that writes back the request's session token, as a careless store may. */
  | 'fail-echoing-token';

export interface FaultProxy {
  /** The address to use as `endpoint_url`. */
  readonly endpoint: string;
  /** Requests seen, as `METHOD path`. */
  readonly seen: string[];
  /** Number of requests or responses being held. */
  readonly held: number;
  /**
   * Switches mode; `onlyPathsContaining` and `onlyMethod` limit it to matching requests (others pass), and `times` to
   * that many of them (the mode is `pass` again after them).
   */
  setMode(mode: ProxyMode, onlyPathsContaining?: string, onlyMethod?: string, times?: number): void;
  /** Lets every held request or response go on. */
  release(): void;
  /** Drops every held request or response (their clients see the connection close). */
  dropHeld(): void;
  close(): Promise<void>;
}

const INTERNAL_ERROR = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message><RequestId>proxy</RequestId></Error>`;

const NO_SUCH_UPLOAD = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><RequestId>proxy</RequestId></Error>`;

const BAD_GATEWAY = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  let mode: ProxyMode = 'pass';
  let pathFilter: string | undefined;
  let methodFilter: string | undefined;
  let timesLeft = Infinity;
  const seen: string[] = [];
  let heldActions: { go: () => void; drop: () => void }[] = [];

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, answer: ProxyMode) => {
    const upstreamRequest = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (upstreamResponse) => {
        const chunks: Buffer[] = [];
        upstreamResponse.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstreamResponse.on('end', () => {
          const whole = Buffer.concat(chunks);
          const send = () => {
            res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
            res.end(whole);
          };
          if (answer === 'hold-responses') heldActions.push({ go: send, drop: () => res.destroy() });
          else if (answer === 'drop-responses') res.destroy();
          else if (answer === 'bad-gateway-responses') {
            res.writeHead(502, { 'content-type': 'text/html' });
            res.end(BAD_GATEWAY);
          } else if (answer === 'cut-responses') {
            const { 'content-length': _length, ...headers } = upstreamResponse.headers;
            res.writeHead(upstreamResponse.statusCode ?? 502, headers);
            res.end(whole.subarray(0, Math.floor(whole.length / 2)));
          } else send();
        });
      },
    );
    upstreamRequest.on('error', () => res.destroy());
    upstreamRequest.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push(`${req.method} ${req.url}`);
      const applies =
        (pathFilter === undefined || decodeURIComponent(req.url ?? '').includes(pathFilter)) &&
        (methodFilter === undefined || req.method === methodFilter);
      const current = applies && timesLeft > 0 ? mode : 'pass';
      if (applies && mode !== 'pass') timesLeft -= 1;
      if (current === 'fail') {
        res.writeHead(500, { 'content-type': 'application/xml', 'x-amz-request-id': 'proxy-failure' });
        res.end(INTERNAL_ERROR);
      } else if (current === 'fail-echoing-token') {
        const token = String(req.headers['x-amz-security-token'] ?? '');
        res.writeHead(500, { 'content-type': 'application/xml', 'x-amz-request-id': 'proxy-echo' });
        res.end(INTERNAL_ERROR.replace('We encountered an internal error.', `Backend rejected session ${token}.`));
      } else if (current === 'no-such-upload') {
        res.writeHead(404, { 'content-type': 'application/xml', 'x-amz-request-id': 'proxy-no-such-upload' });
        res.end(NO_SUCH_UPLOAD);
      } else if (current === 'not-found') {
        res.writeHead(404, { 'x-amz-request-id': 'proxy-not-found' });
        res.end();
      } else if (current === 'hold-requests') {
        heldActions.push({ go: () => forward(req, res, body, 'pass'), drop: () => res.destroy() });
      } else {
        forward(req, res, body, current);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const take = () => {
    const actions = heldActions;
    heldActions = [];
    return actions;
  };
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    get held() {
      return heldActions.length;
    },
    setMode(next, onlyPathsContaining, onlyMethod, times = Infinity) {
      mode = next;
      timesLeft = times;
      pathFilter = onlyPathsContaining;
      methodFilter = onlyMethod;
    },
    release: () => take().forEach((action) => action.go()),
    dropHeld: () => take().forEach((action) => action.drop()),
    close: () =>
      new Promise<void>((resolve) => {
        take().forEach((action) => action.drop());
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
