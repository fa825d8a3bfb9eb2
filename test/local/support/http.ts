/** Raw HTTP against a running local platform, so the tests see exactly what goes over the wire. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fetch } from 'undici';

/** A response with its body already parsed as JSON (or left as text when it is not JSON). */
export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** Options of one request. */
export interface RequestOptions {
  /** JSON-encoded unless it is already a string. */
  body?: unknown;
  /** Sent as `X-Api-Key`; `null` sends no key. */
  key?: string | null;
  /** Sent as `X-Tenant-Id`. */
  tenant?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
}

/** A client bound to one platform address and one default key. */
export class RawApi {
  constructor(readonly baseUrl: string, readonly key: string) {}

  async request(method: string, urlPath: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.key : options.key;
    if (key !== null) headers['X-Api-Key'] = key;
    if (options.tenant) headers['X-Tenant-Id'] = options.tenant;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${urlPath}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers as unknown as Headers, body: parsed };
  }

  get = (urlPath: string, options?: RequestOptions) => this.request('GET', urlPath, options);
  post = (urlPath: string, body: unknown, options?: RequestOptions) =>
    this.request('POST', urlPath, { ...options, body });
  patch = (urlPath: string, body: unknown, options?: RequestOptions) =>
    this.request('PATCH', urlPath, { ...options, body });
  delete = (urlPath: string, options?: RequestOptions) => this.request('DELETE', urlPath, options);
}

const createdDirs: string[] = [];

/** A fresh directory for one platform's data; `removeTempDirs` deletes it. */
export function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-local-'));
  createdDirs.push(dir);
  return dir;
}

/** Deletes every directory `tempDataDir` made in this test file; call it after the platforms using them stopped. */
export function removeTempDirs(): void {
  for (const dir of createdDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Polls `probe` until `done` holds for its result; fails after `attempts` tries. */
export async function pollUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, attempts = 400): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < attempts; i += 1) {
    last = await probe();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`condition not reached; last value: ${JSON.stringify(last)}`);
}
