/**
 * A request body over the platform's limit is a 413 `{"detail"}` on every API, whether its size is declared or it
 * comes in chunks; the platform stops reading it and goes on serving.
 */
import { request } from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_REQUEST_BODY_BYTES } from '../../lib/local/validation';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';

let platform: LocalPlatform;
let dataDir: string;
const API_KEY = 'body-limit-test-key-0001';

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'body-limit-'));
  platform = await startLocalPlatform({ dataDir, apiKeys: [API_KEY] });
});
afterAll(async () => {
  await platform.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** POSTs `bytes` bytes of a JSON document to `route`, declared up front or in chunks; the status and body. */
function post(route: string, bytes: number, chunked: boolean): Promise<{ status: number; body: string }> {
  const url = new URL(route, platform.url);
  const head = '{"name":"x","metadata":{"big":"';
  const tail = '"}}';
  const filler = bytes - head.length - tail.length;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': API_KEY,
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes) }),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    // the platform may answer and close before the whole body is sent
    req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
    req.write(head);
    const chunk = 'y'.repeat(1024 * 1024);
    let left = filler;
    const writeMore = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
        left -= piece.length;
        if (!req.write(piece)) {
          req.once('drain', writeMore);
          return;
        }
      }
      req.end(tail);
    };
    writeMore();
  });
}

test.each([
  ['declared', false],
  ['in chunks', true],
])('a body over the limit, %s, is a 413 naming the limit, on the control plane and the tracing API', async (_, chunked) => {
  for (const route of ['/v2/deployments', '/api/v1/sessions']) {
    const { status, body } = await post(route, MAX_REQUEST_BODY_BYTES + 1024, chunked);
    expect([route, status]).toEqual([route, 413]);
    expect(JSON.parse(body)).toEqual({ detail: expect.stringContaining(`at most ${MAX_REQUEST_BODY_BYTES / 1024 / 1024} MiB`) });
  }
  // the platform goes on serving
  const ok = await fetch(`${platform.url}/v2/deployments`, { headers: { 'X-Api-Key': API_KEY } });
  expect(ok.status).toBe(200);
});

test('a body just under the limit is read (and judged on its content)', async () => {
  const { status } = await post('/api/v1/sessions', MAX_REQUEST_BODY_BYTES - 1024, false);
  expect(status).not.toBe(413);
});
