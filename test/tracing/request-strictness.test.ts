/**
 * What the bulk export API refuses that a lenient server would take, mend or ignore, each time naming the field:
 * fields it does not know (a misspelt `filter` would export every run), ids in upper case (read as in paths),
 * credentials in an endpoint URL, a prefix too long for S3's keys, run times that contradict each other, and object
 * keys that would leave the in-process S3 server's directory.
 */
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopyObjectCommand, CreateMultipartUploadCommand, PutObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import type { TracingPlatform } from './support/platform';
import { startApiFixture, type ApiFixture, type TestS3 } from './support/s3';

let fixture: ApiFixture;
let s3: TestS3;
let platform: TracingPlatform;
let destinationId: string;
let sessionId: string;

beforeAll(async () => {
  fixture = await startApiFixture('strict', 'strict');
  ({ s3, platform, destinationId, sessionId } = fixture);
});

afterAll(() => fixture?.close());

/** Sends a raw body (the client would refuse some of these before sending). */
async function send(method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${platform.url}/api/v1${path}`, {
    method,
    headers: { 'x-api-key': platform.apiKey, 'x-tenant-id': platform.tenantId, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const items = (answer: { body: Record<string, unknown> }) => answer.body.detail as { loc: (string | number)[]; type: string; msg: string }[];
const exportBody = (fields: Record<string, unknown> = {}) => ({
  bulk_export_destination_id: destinationId,
  session_id: sessionId,
  start_time: '2024-01-01T00:00:00Z',
  end_time: '2024-01-02T00:00:00Z',
  ...fields,
});
const destinationBody = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  display_name: 'd',
  config: { bucket_name: 'exports', endpoint_url: s3.server.endpoint, ...config },
  credentials: s3.credentials,
  ...extra,
});

describe('fields the API does not know are a 422 at their place, not ignored', () => {
  test('a misspelt filter and export_fields on an export', async () => {
    const answer = await send('POST', '/bulk-exports', exportBody({ filters: 'eq(run_type, "llm")', exportFields: ['id'] }));
    expect(answer.status).toBe(422);
    expect(items(answer).map((item) => [item.loc, item.type])).toEqual([
      [['body', 'filters'], 'extra_forbidden'],
      [['body', 'exportFields'], 'extra_forbidden'],
    ]);
    expect(await platform.client.listExports()).toEqual([]);
  });

  test('a cancel with anything besides the status', async () => {
    const created = await platform.client.createExport(exportBody());
    const answer = await send('PATCH', `/bulk-exports/${created.id}`, { status: 'Cancelled', filter: 'eq(name, "x")' });
    expect(answer.status).toBe(422);
    expect(items(answer)).toEqual([expect.objectContaining({ loc: ['body', 'filter'], type: 'extra_forbidden' })]);
  });

  test('a credentials rotation that also tries to change the settings, and credentials put inside config', async () => {
    const rotation = await send('PATCH', `/bulk-exports/destinations/${destinationId}`, { credentials: s3.credentials, config: { bucket_name: 'other' } });
    expect(rotation.status).toBe(422);
    expect(items(rotation)).toEqual([expect.objectContaining({ loc: ['body', 'config'], type: 'extra_forbidden' })]);
    expect((await platform.client.getDestination(destinationId)).config.bucket_name).toBe('exports');

    const misplaced = await send('POST', '/bulk-exports/destinations', {
      display_name: 'misplaced',
      config: { bucket_name: 'exports', endpoint_url: s3.server.endpoint, access_key_id: 'S3RVER', secret_access_key: 'misplaced-secret-0099' },
    });
    expect(misplaced.status).toBe(422);
    expect(items(misplaced).map((item) => item.loc)).toEqual([
      ['body', 'config', 'access_key_id'],
      ['body', 'config', 'secret_access_key'],
    ]);
    // the secret is not echoed back
    expect(JSON.stringify(misplaced.body)).not.toContain('misplaced-secret-0099');
  });
});

test('the ids of an export body are read in any case, and kept in lower case', async () => {
  const answer = await send('POST', '/bulk-exports', exportBody({ bulk_export_destination_id: destinationId.toUpperCase(), session_id: sessionId.toUpperCase() }));
  expect(answer.status).toBe(201);
  expect(answer.body).toMatchObject({ bulk_export_destination_id: destinationId, session_id: sessionId });
});

describe('destination settings refused before the bucket is tried', () => {
  test('an endpoint URL with a user name and password (it would be stored and returned as sent)', async () => {
    const endpoint = s3.server.endpoint.replace('http://', 'http://S3RVER:url-secret-0042@');
    const answer = await send('POST', '/bulk-exports/destinations', destinationBody({ endpoint_url: endpoint }));
    expect(answer.status).toBe(422);
    expect(items(answer)).toEqual([expect.objectContaining({ loc: ['body', 'config', 'endpoint_url'], type: 'value_error' })]);
    expect(JSON.stringify(answer.body)).not.toContain('url-secret-0042');
  });

  test('a prefix under which the keys of export files would pass S3\'s 1024 bytes, saying how long it may be', async () => {
    const answer = await send('POST', '/bulk-exports/destinations', destinationBody({ prefix: 'p'.repeat(900) }));
    expect(answer.status).toBe(422);
    const [item] = items(answer);
    expect(item).toMatchObject({ loc: ['body', 'config', 'prefix'], type: 'value_error' });
    const room = Number(/at most (\d+) bytes/.exec(item.msg)![1]);
    expect(room).toBeGreaterThan(700);
    // the longest prefix it allows is taken (in folders: a file system takes no file name of 900 bytes)
    const prefixOf = (bytes: number) => Array.from({ length: bytes }, (_, i) => (i % 100 === 99 ? '/' : 'p')).join('').replace(/\/$/, 'p');
    expect((await send('POST', '/bulk-exports/destinations', destinationBody({ prefix: prefixOf(room) }))).status).toBe(201);
    expect((await send('POST', '/bulk-exports/destinations', destinationBody({ prefix: prefixOf(room + 1) }))).status).toBe(422);
  });
});

describe('runs whose times or hierarchy contradict themselves are refused', () => {
  const runId = '5a1e0100-0000-4000-8000-000000000001';
  test('a patch with an end_time before the stored start_time: 400, and the run is unchanged', async () => {
    const post = { id: runId, name: 'r', run_type: 'llm', start_time: '2024-06-01T10:00:01Z', session_id: sessionId };
    expect((await send('POST', '/runs/batch', { post: [post] })).status).toBe(202);
    const answer = await send('POST', '/runs/batch', { post: [], patch: [{ id: runId, end_time: '2024-06-01T10:00:00Z' }] });
    expect(answer).toEqual({ status: 400, body: { detail: `Run ${runId}: end_time is before start_time` } });
    expect((await send('GET', `/runs/${runId}`, undefined)).body.end_time).toBeNull();
    expect((await send('POST', '/runs/batch', { post: [], patch: [{ id: runId, end_time: '2024-06-01T10:00:01Z' }] })).status).toBe(202);
  });

  test('a run that names itself as its parent', async () => {
    const self = '5a1e0100-0000-4000-8000-000000000002';
    const answer = await send('POST', '/runs/batch', { post: [{ id: self, parent_run_id: self, name: 'r', run_type: 'llm', start_time: '2024-06-01T10:00:00Z', session_id: sessionId }] });
    expect(answer).toEqual({ status: 400, body: { detail: `Run ${self}: parent_run_id is the run's own id` } });
  });
});

describe('the in-process S3 server keeps every object inside its directory', () => {
  const escape = `escape-${process.pid}`;
  test('a key with ".." segments is refused (400 InvalidArgument), and nothing is written outside', async () => {
    const put = s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key: `../../${escape}/x.txt`, Body: 'x' }));
    await expect(put).rejects.toMatchObject({ name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } });
    expect(existsSync(join(tmpdir(), escape))).toBe(false);
  });

  test('nor through an upload id, a part number or a copy source that climbs out', async () => {
    const refused = { name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } };
    const part = (UploadId: string, PartNumber: number) => s3.client.send(new UploadPartCommand({ Bucket: 'exports', Key: 'x.txt', UploadId, PartNumber, Body: 'x' }));
    await expect(part(`../../${escape}`, 1)).rejects.toMatchObject(refused);
    await expect(s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'source.txt', Body: 'x' }))).resolves.toBeDefined();
    await expect(s3.client.send(new CopyObjectCommand({ Bucket: 'exports', Key: 'copy.txt', CopySource: `exports/../../${escape}/x` }))).rejects.toMatchObject(refused);
    // what s3rver makes itself still works
    await expect(s3.client.send(new CopyObjectCommand({ Bucket: 'exports', Key: 'copy.txt', CopySource: 'exports/source.txt' }))).resolves.toBeDefined();
    const { UploadId } = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: 'exports', Key: 'multi.txt' }));
    await expect(part(UploadId!, 1)).resolves.toBeDefined();
    expect(existsSync(join(tmpdir(), escape))).toBe(false);
  });

  test('nor through a bucket named by the Host, a copy source with a query, or a key sent in a form', async () => {
    const raw = (method: string, pathAndQuery: string, headers: Record<string, string>, body = '') =>
      new Promise<number>((resolve, reject) => {
        const { port } = new URL(s3.server.endpoint);
        const request = httpRequest({ host: '127.0.0.1', port: Number(port), method, path: pathAndQuery, headers }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.end(body);
      });
    // s3rver takes a Host of <bucket>.s3.amazonaws.com for the bucket, whatever vhostBuckets says
    expect(await raw('PUT', '/x.txt', { host: '...s3.amazonaws.com', 'content-length': '1' }, 'x')).toBe(400);
    expect(await raw('PUT', '/exports/y.txt', { 'x-amz-copy-source': `exports/a?/../../${escape}/x` })).toBe(400);
    const form = `--b\r\nContent-Disposition: form-data; name="key"\r\n\r\n../../${escape}/z\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="z"\r\n\r\nz\r\n--b--\r\n`;
    expect(await raw('POST', '/exports', { 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(form.length) }, form)).toBe(400);
    expect(existsSync(join(tmpdir(), escape))).toBe(false);
  });

  test('a destination whose prefix climbs out is refused when it is created: the store refused the test object', async () => {
    const answer = await send('POST', '/bulk-exports/destinations', destinationBody({ prefix: `../../${escape}` }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^The store refused the test object \(InvalidArgument \(HTTP 400\): .*\): check the destination's settings$/);
    expect(existsSync(join(tmpdir(), escape))).toBe(false);
  });

  test('a key with an empty segment, which s3rver cannot store, is refused as such: the destination is not blamed on its endpoint', async () => {
    const refused = { name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } };
    for (const Key of ['pfx//a/x.txt', '/lead/x.txt']) {
      await expect(s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key, Body: 'x' }))).rejects.toMatchObject(refused);
    }
    // a key ending with "/" (a folder marker) is an S3 key s3rver stores
    await expect(s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'folder/', Body: 'marker' }))).resolves.toBeDefined();
    const answer = await send('POST', '/bulk-exports/destinations', destinationBody({ prefix: 'pfx//a' }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^The store refused the test object \(InvalidArgument \(HTTP 400\): This server takes no object key with an empty segment .*\): check the destination's settings$/);
  });

  test('so is a key with a segment too long for a file name, which s3rver answered with a 500 (a "try again later")', async () => {
    const refused = { name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } };
    await expect(s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key: `${'d'.repeat(256)}/x.txt`, Body: 'x' }))).rejects.toMatchObject(refused);
    await expect(s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key: `dir/${'f'.repeat(234)}`, Body: 'x' }))).rejects.toMatchObject(refused);
    await expect(s3.client.send(new PutObjectCommand({ Bucket: 'exports', Key: `${'d'.repeat(255)}/${'f'.repeat(233)}`, Body: 'x' }))).resolves.toBeDefined();
    const answer = await send('POST', '/bulk-exports/destinations', destinationBody({ prefix: 'p'.repeat(300) }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^The store refused the test object \(InvalidArgument \(HTTP 400\): .*longer than 233 bytes/);
  });
});
