/**
 * `Idempotency-Key` on the local platform's creates: a repeated key with the same body is answered with the object the
 * first request made (marked `Idempotent-Replayed`) while that object is live and for a day; another body under the
 * key is a new create; a deployment being deleted, an export that ended without completing, or a cancel request for an
 * export frees it; requests with the same key at the same time make one object; a malformed key is a 422.
 */
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../lib/local/clock';
import { openDatabase } from '../../lib/local/db';
import { KEY_LIFETIME_MS } from '../../lib/local/idempotency';
import { startLocalPlatform, type LocalPlatform } from '../../lib/local/platform';
import { destinationOn, startTestS3, type TestS3 } from '../tracing/support/s3';
import { waitFor } from '../tracing/support/wait';

const API_KEY = 'idempotency-test-key-0001';
let platform: LocalPlatform;
let clock: ManualClock;
let s3: TestS3;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idempotency-'));
  clock = new ManualClock();
  s3 = await startTestS3(['exports', 'doomed']);
  platform = await startLocalPlatform({ dataDir, apiKeys: [API_KEY], clock, timings: { deleteDelayMs: 1_000 } });
});

afterAll(async () => {
  await platform?.close();
  await s3?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly replayed: string | null;
  readonly body: { id?: string; detail?: unknown; status?: string };
}

async function send(method: string, route: string, body: unknown, key?: string): Promise<Answer> {
  const response = await fetch(new URL(route, platform.url), {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as Answer['body'] };
}

const deployment = (name: string) => ({ name, source: 'github', source_config: { repo_url: 'https://github.com/acme/agent' } });

test('a repeated key is answered with the deployment the first create made, until it is being deleted', async () => {
  const first = await send('POST', '/v2/deployments', deployment('keyed'), 'key-deployment');
  const again = await send('POST', '/v2/deployments', deployment('keyed'), 'key-deployment');
  expect([first.status, first.replayed]).toEqual([201, null]);
  expect([again.status, again.replayed, again.body.id]).toEqual([201, 'true', first.body.id]);
  // without the key, the same create is a new one: refused, the name is taken
  expect((await send('POST', '/v2/deployments', deployment('keyed'))).status).toBe(409);
  expect((await send('DELETE', `/v2/deployments/${first.body.id}`, undefined)).status).toBe(202);
  // being deleted, it no longer stands for the key: the create is a new one (refused while the name is held)
  expect((await send('POST', '/v2/deployments', deployment('keyed'), 'key-deployment')).status).toBe(409);
  await clock.advance(1_000);
  const made = await send('POST', '/v2/deployments', deployment('keyed'), 'key-deployment');
  expect([made.status, made.replayed]).toEqual([201, null]);
  expect(made.body.id).not.toBe(first.body.id);
});

test('a key stands for its object for a day', async () => {
  const first = await send('POST', '/v2/deployments', deployment('daylong'), 'key-day');
  await clock.advance(KEY_LIFETIME_MS - 1);
  expect((await send('POST', '/v2/deployments', deployment('daylong'), 'key-day')).body.id).toBe(first.body.id);
  await clock.advance(1);
  // the key is forgotten: the create is a new one, refused because the first holds the name
  expect((await send('POST', '/v2/deployments', deployment('daylong'), 'key-day')).status).toBe(409);
});

test('another key makes another export; a cancelled export frees its key', async () => {
  const session = await send('POST', '/api/v1/sessions', { name: 'keyed-exports' });
  const destination = await send('POST', '/api/v1/bulk-exports/destinations', destinationOn(s3, 'keyed-exports'));
  const body = { bulk_export_destination_id: destination.body.id, session_id: session.body.id, start_time: '2031-01-01T00:00:00Z', interval_hours: 24 };
  const first = await send('POST', '/api/v1/bulk-exports', body, 'key-export');
  const again = await send('POST', '/api/v1/bulk-exports', body, 'key-export');
  const other = await send('POST', '/api/v1/bulk-exports', body, 'key-other-export');
  expect([first.status, again.status, again.replayed, again.body.id]).toEqual([201, 201, 'true', first.body.id]);
  expect(other.body.id).not.toBe(first.body.id);
  expect((await send('PATCH', `/api/v1/bulk-exports/${first.body.id}`, { status: 'Cancelled' })).status).toBe(200);
  const made = await send('POST', '/api/v1/bulk-exports', body, 'key-export');
  expect([made.status, made.replayed]).toEqual([201, null]);
  expect(made.body.id).not.toBe(first.body.id);
});

test('destination creates with the same key at the same time make one destination', async () => {
  const answers = await Promise.all([1, 2, 3].map(() => send('POST', '/api/v1/bulk-exports/destinations', destinationOn(s3, 'keyed-together'), 'key-destination')));
  expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
  expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
  expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(2);
  const listed = (await fetch(new URL('/api/v1/bulk-exports/destinations', platform.url), { headers: { 'x-api-key': API_KEY } }).then((r) => r.json())) as { display_name: string }[];
  expect(listed.filter((d) => d.display_name === 'keyed-together')).toHaveLength(1);
});

test('a malformed key is a 422 that names the header', async () => {
  const answer = await send('POST', '/v2/deployments', deployment('badkey'), 'has space');
  expect(answer.status).toBe(422);
  expect(answer.body.detail).toEqual([expect.objectContaining({ loc: ['header', 'Idempotency-Key'] })]);
});

const withSecret = (name: string, value: string) => ({ ...deployment(name), secrets: [{ name: 'API_TOKEN', value }] });

test('a repeated key with another body is a new create, not a replay: other secret values of a deployment', async () => {
  const first = await send('POST', '/v2/deployments', withSecret('rotating', 'first-value'), 'key-secrets');
  expect((await send('POST', '/v2/deployments', withSecret('rotating', 'first-value'), 'key-secrets')).body.id).toBe(first.body.id);
  // a new create, as without the key: refused, the first holds the name
  const rotated = await send('POST', '/v2/deployments', withSecret('rotating', 'second-value'), 'key-secrets');
  expect([rotated.status, rotated.replayed]).toEqual([409, null]);
});

test('a repeated key with other destination credentials makes a new destination; the same body is replayed', async () => {
  const body = destinationOn(s3, 'keyed-credentials');
  const first = await send('POST', '/api/v1/bulk-exports/destinations', body, 'key-credentials');
  // the same body with its fields in another order is the same body
  const reordered = { credentials: body.credentials, config: body.config, display_name: body.display_name };
  const again = await send('POST', '/api/v1/bulk-exports/destinations', reordered, 'key-credentials');
  expect([again.status, again.replayed, again.body.id]).toEqual([201, 'true', first.body.id]);
  // the server takes any secret access key
  const rotatedBody = { ...body, credentials: { ...body.credentials, secret_access_key: 'rotated-secret' } };
  const rotated = await send('POST', '/api/v1/bulk-exports/destinations', rotatedBody, 'key-credentials');
  expect([rotated.status, rotated.replayed]).toEqual([201, null]);
  expect(rotated.body.id).not.toBe(first.body.id);
  // the key now stands for what its latest body made
  const repeated = await send('POST', '/api/v1/bulk-exports/destinations', rotatedBody, 'key-credentials');
  expect([repeated.replayed, repeated.body.id]).toEqual(['true', rotated.body.id]);
});

/** A one-off export of an hour long past into `destinationId`, of a new session. */
async function oneOffExport(name: string, destinationId: string | undefined) {
  const session = await send('POST', '/api/v1/sessions', { name });
  return { bulk_export_destination_id: destinationId, session_id: session.body.id, start_time: '2023-01-01T00:00:00Z', end_time: '2023-01-01T01:00:00Z' };
}

const finalStatusOf = (id: string | undefined) =>
  waitFor(`export ${id} to end`, async () => {
    const { body } = await send('GET', `/api/v1/bulk-exports/${id}`, undefined);
    return ['Completed', 'Failed', 'TimedOut', 'Cancelled'].includes(body.status ?? '') ? body.status : undefined;
  });

test('a one-off export that failed frees its key: the same create makes a new export', async () => {
  const destination = await send('POST', '/api/v1/bulk-exports/destinations', destinationOn(s3, 'keyed-doomed', '', 'doomed'));
  await s3.client.send(new DeleteBucketCommand({ Bucket: 'doomed' }));
  const body = await oneOffExport('keyed-failing', destination.body.id);
  // a run to write, so that the export needs its bucket
  const run = { id: randomUUID(), name: 'to-export', run_type: 'chain', start_time: '2023-01-01T00:30:00Z', session_id: body.session_id };
  expect((await send('POST', '/api/v1/runs/batch', { post: [run] })).status).toBe(202);
  await waitFor('the run to be stored', async () => ((await send('GET', `/api/v1/runs/${run.id}`, undefined)).status === 200 ? true : undefined));
  const first = await send('POST', '/api/v1/bulk-exports', body, 'key-failing');
  expect(await finalStatusOf(first.body.id)).toBe('Failed');
  const made = await send('POST', '/api/v1/bulk-exports', body, 'key-failing');
  expect([made.status, made.replayed]).toEqual([201, null]);
  expect(made.body.id).not.toBe(first.body.id);
});

test('a completed one-off export stands for its key until a cancel request, even one answered 409, frees it', async () => {
  const destination = await send('POST', '/api/v1/bulk-exports/destinations', destinationOn(s3, 'keyed-completing', 'completing'));
  const body = await oneOffExport('keyed-completing', destination.body.id);
  const first = await send('POST', '/api/v1/bulk-exports', body, 'key-completing');
  expect(await finalStatusOf(first.body.id)).toBe('Completed');
  const again = await send('POST', '/api/v1/bulk-exports', body, 'key-completing');
  expect([again.replayed, again.body.id]).toEqual(['true', first.body.id]);
  expect((await send('PATCH', `/api/v1/bulk-exports/${first.body.id}`, { status: 'Cancelled' })).status).toBe(409);
  const made = await send('POST', '/api/v1/bulk-exports', body, 'key-completing');
  expect([made.status, made.replayed]).toEqual([201, null]);
  expect(made.body.id).not.toBe(first.body.id);
});

test('a body is kept as a digest keyed with the data dir\'s key: never its secrets, nor a plain hash of them', async () => {
  const body = withSecret('digested', 'a-secret-value');
  expect((await send('POST', '/v2/deployments', body, 'key-digested')).status).toBe(201);
  const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idempotency-other-'));
  const other = await startLocalPlatform({ dataDir: otherDir, apiKeys: [API_KEY], clock });
  try {
    const answer = await fetch(new URL('/v2/deployments', other.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, 'idempotency-key': 'key-digested' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(201);
    const digests = [dataDir, otherDir].map((dir) => {
      const db = openDatabase(dir);
      try {
        return db.prepare("SELECT body_digest FROM cp_idempotency_keys WHERE key = 'key-digested'").pluck().get() as string;
      } finally {
        db.close();
      }
    });
    // the same body under two data dirs' keys: two digests, neither a plain hash of the body
    expect(digests[0]).not.toBe(digests[1]);
    const plain = createHash('sha256').update(JSON.stringify(body)).digest();
    for (const digest of digests) {
      expect(digest).not.toContain('a-secret-value');
      expect([plain.toString('base64url'), plain.toString('hex'), plain.toString('base64')]).not.toContain(digest);
    }
  } finally {
    await other.close();
    fs.rmSync(otherDir, { recursive: true, force: true });
  }
});
