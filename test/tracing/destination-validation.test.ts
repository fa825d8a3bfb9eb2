/**
 * Destination validation against endpoints that are not what they claim: a server that takes the test object but
 * answers without an ETag, an `https:` endpoint that speaks plain HTTP, and a region no host name can hold. Each is
 * one of the four documented errors, never a "try again later".
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DESTINATION_ERRORS } from '../../lib/api/schemas/bulk-export';
import { validateDestination } from '../../lib/local/tracing/destinations/validate';
import { HttpError } from '../../lib/local/errors';

const KEYS = { access_key_id: 'AKIDVALIDATION', secret_access_key: 'validation-secret' };

let server: Server;
let seen: string[];
let endpoint: string;

beforeAll(async () => {
  // answers every request 200 with an empty body and no ETag
  server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'x-amz-request-id': 'no-etag' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => (seen = []));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function rejection(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return { status: (err as HttpError).status, message: (err as Error).message };
  }
  throw new Error('expected the validation to fail');
}

test('a PUT answered without an ETag is "Invalid endpoint", and the test object it may have written is deleted', async () => {
  const config = { bucket_name: 'exports', prefix: 'traces', endpoint_url: endpoint };
  expect(await rejection(validateDestination(config, KEYS))).toEqual({ status: 400, message: DESTINATION_ERRORS.invalidEndpoint });
  expect(seen).toEqual([
    expect.stringMatching(/^PUT \/exports\/traces\/tmp\/validation-[0-9a-f-]{36}\.txt/),
    expect.stringMatching(/^DELETE \/exports\/traces\/tmp\/validation-[0-9a-f-]{36}\.txt/),
  ]);
  expect(seen[1].split(' ')[1].split('?')[0]).toBe(seen[0].split(' ')[1].split('?')[0]);
});

test('an https: endpoint that speaks plain HTTP is "Invalid endpoint", not a passing problem', async () => {
  const config = { bucket_name: 'exports', prefix: '', endpoint_url: endpoint.replace('http:', 'https:') };
  expect(await rejection(validateDestination(config, KEYS))).toEqual({ status: 400, message: DESTINATION_ERRORS.invalidEndpoint });
});

test('a region that cannot be part of a host name is "Bucket is not valid", as a wrong region is', async () => {
  for (const region of ['eu-west-1 ', 'my_region']) {
    const withEndpoint = { bucket_name: 'exports', prefix: '', region, endpoint_url: endpoint };
    expect(await rejection(validateDestination(withEndpoint, KEYS))).toEqual({ status: 400, message: DESTINATION_ERRORS.bucketNotValid });
  }
  expect(seen).toEqual([]);
});

test('a passing store error that writes the session token back is a 503 that leaves it out', async () => {
  const token = 'validation-session-token-0123456789';
  const echo = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'application/xml', 'x-amz-request-id': 'echo' });
    res.end(`<Error><Code>InternalError</Code><Message>Backend rejected session ${String(req.headers['x-amz-security-token'])}</Message></Error>`);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  try {
    const config = { bucket_name: 'exports', prefix: '', endpoint_url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}` };
    const { status, message } = await rejection(validateDestination(config, { ...KEYS, session_token: token }));
    expect(status).toBe(503);
    expect(message).toContain('Backend rejected session [REDACTED]');
    expect(message).not.toContain(token);
  } finally {
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  }
});

test('a 400 of a code the platform does not name is what the store said (the settings to check), not a "try again later"', async () => {
  const odd = createServer((req, res) => {
    req.resume();
    res.writeHead(400, { 'content-type': 'application/xml', 'x-amz-request-id': 'odd' });
    res.end('<Error><Code>UnsupportedStorageClass</Code><Message>This gateway stores nothing in that class</Message></Error>');
  });
  await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
  try {
    const config = { bucket_name: 'exports', prefix: '', endpoint_url: `http://127.0.0.1:${(odd.address() as AddressInfo).port}` };
    expect(await rejection(validateDestination(config, KEYS))).toEqual({
      status: 400,
      message: "The store refused the test object (UnsupportedStorageClass (HTTP 400): This gateway stores nothing in that class): check the destination's settings",
    });
  } finally {
    await new Promise<void>((resolve) => odd.close(() => resolve()));
  }
});
