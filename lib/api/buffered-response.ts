/**
 * The dispatch handler under every JSON request of the transport: it buffers the whole response, which for small
 * JSON bodies costs much less than `dispatcher.request` (a response stream, an async resource and an abort listener
 * per request).
 */
import type { Dispatcher } from 'undici';

/** Response headers as undici gives them: names in lower case. */
type ResponseHeaders = Dispatcher.ResponseData['headers'];

/** A whole response. */
export interface BufferedResponse {
  /** HTTP status (the final one, after any 1xx). */
  readonly statusCode: number;
  /** Response headers, names in lower case. */
  readonly headers: ResponseHeaders;
  /** The body decoded as UTF-8. */
  readonly text: string;
}

/**
 * Receives one undici dispatch and buffers its whole response: for small JSON bodies much cheaper than
 * `dispatcher.request`, which gives each response a stream, an async resource and an abort listener. `abort` settles
 * the response at once, even while the request still waits for a free connection, and stops the exchange as soon as
 * undici has started it.
 */
export class BufferingResponseHandler implements Dispatcher.DispatchHandler {
  /** Settles when the response has fully arrived, or with the error or abort reason that ended it. */
  readonly response: Promise<BufferedResponse>;
  private resolve!: (response: BufferedResponse) => void;
  private reject!: (reason: unknown) => void;
  private settled = false;
  private controller?: Dispatcher.DispatchController;
  private abortReason?: Error;
  private statusCode = 0;
  private headers: ResponseHeaders = {};
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private handedToConnection = false;

  constructor() {
    this.response = new Promise<BufferedResponse>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Ends the exchange with `reason` (a timeout or the caller's abort). */
  abort(reason: unknown): void {
    if (this.settled) return;
    this.settled = true;
    // The response already carries the real reason; undici's abort wants an Error, which it raises only to us.
    this.abortReason = reason instanceof Error ? reason : new Error('request aborted');
    this.reject(reason);
    this.controller?.abort(this.abortReason);
  }

  /**
   * Whether the request was handed to a connection, to be written: before that (while connecting, or queued behind
   * the requests of a busy pool) an abort sends nothing of it.
   */
  get sent(): boolean {
    return this.handedToConnection;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
    else this.handedToConnection = true;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    // An informational (1xx) head precedes the real one.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    const { statusCode, headers } = this;
    this.resolve({ statusCode, headers, text: decodeUtf8(this.chunks, this.length) });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/** The body as text, the way undici's `body.text()` decodes it: UTF-8, a leading byte order mark dropped. */
function decodeUtf8(chunks: readonly Buffer[], length: number): string {
  if (length === 0) return '';
  const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  const start = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString('utf8', start);
}
