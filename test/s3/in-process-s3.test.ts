import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { startInProcessS3, type InProcessS3 } from '../../lib/local/s3';

function clientFor(server: InProcessS3, secretAccessKey = server.secretAccessKey): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey },
  });
}

async function keysIn(client: S3Client, bucket: string, prefix?: string): Promise<string[]> {
  const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((object) => object.Key!);
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

let directory: string;
let server: InProcessS3;
let client: S3Client;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'in-process-s3-'));
  server = await startInProcessS3({ port: 0, directory, buckets: ['demo-exports'] });
  client = clientFor(server);
});

afterAll(async () => {
  client?.destroy();
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

test('listens on a port chosen by the system and names it in the endpoint', () => {
  expect(server.port).toBeGreaterThan(0);
  expect(server.endpoint).toBe(`http://127.0.0.1:${server.port}`);
});

test('the buckets asked for exist at start: put, get and list through the AWS SDK', async () => {
  await client.send(new PutObjectCommand({ Bucket: 'demo-exports', Key: 'runs/day=01/part-0.parquet', Body: 'rows' }));
  await client.send(new PutObjectCommand({ Bucket: 'demo-exports', Key: 'other/file.txt', Body: 'x' }));

  const object = await client.send(new GetObjectCommand({ Bucket: 'demo-exports', Key: 'runs/day=01/part-0.parquet' }));

  expect(await object.Body?.transformToString()).toBe('rows');
  expect(await keysIn(client, 'demo-exports', 'runs/')).toEqual(['runs/day=01/part-0.parquet']);
});

test('creates buckets through the S3 API', async () => {
  await client.send(new CreateBucketCommand({ Bucket: 'created-later' }));
  await client.send(new PutObjectCommand({ Bucket: 'created-later', Key: 'a.txt', Body: 'a' }));

  expect(await keysIn(client, 'created-later')).toEqual(['a.txt']);
});

test('a missing bucket gives NoSuchBucket', async () => {
  const put = client.send(new PutObjectCommand({ Bucket: 'no-such-bucket', Key: 'a.txt', Body: 'a' }));

  await expect(put).rejects.toMatchObject({ name: 'NoSuchBucket' });
});

test('accepts any secret (it checks no signature): it must never be used to prove authentication', async () => {
  const wrongSecret = clientFor(server, 'certainly-not-the-secret');
  try {
    await wrongSecret.send(new PutObjectCommand({ Bucket: 'demo-exports', Key: 'unsigned.txt', Body: 'u' }));

    expect(await keysIn(client, 'demo-exports', 'unsigned')).toEqual(['unsigned.txt']);
  } finally {
    wrongSecret.destroy();
  }
});

test('objects survive a restart on the same directory, and close() frees the port', async () => {
  const restartDirectory = join(directory, 'restart');
  const first = await startInProcessS3({ directory: restartDirectory, buckets: ['kept'] });
  const firstClient = clientFor(first);
  await firstClient.send(new PutObjectCommand({ Bucket: 'kept', Key: 'k.txt', Body: 'kept' }));
  firstClient.destroy();
  await first.close();
  expect(await refusesConnections(first.port)).toBe(true);

  const second = await startInProcessS3({ directory: restartDirectory });
  const secondClient = clientFor(second);
  try {
    expect(await keysIn(secondClient, 'kept')).toEqual(['k.txt']);
  } finally {
    secondClient.destroy();
    await second.close();
  }
});

test('a port already in use fails the start with EADDRINUSE, and the port may be used again once free', async () => {
  const taken = join(directory, 'taken');
  await expect(startInProcessS3({ port: server.port, directory: taken })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  const other = await startInProcessS3({ port: 0, directory: taken, buckets: ['after-failure'] });
  const otherClient = clientFor(other);
  try {
    expect(await keysIn(otherClient, 'after-failure')).toEqual([]);
  } finally {
    otherClient.destroy();
    await other.close();
  }
});

describe('DeleteObjects', () => {
  const bucket = 'demo-exports';
  const put = (Bucket: string, Key: string) => client.send(new PutObjectCommand({ Bucket, Key, Body: Key }));
  const remove = (keys: string[], Quiet?: boolean, Bucket = bucket) =>
    client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet } }));

  test('deletes each key exactly as sent: digits stay text, spaces and entities are kept', async () => {
    await client.send(new CreateBucketCommand({ Bucket: 'exact' }));
    const kept = ['1', 'spaced', 'a&b-other'];
    const named = ['0001', ' spaced ', 'a&b', 'nested/x.parquet'];
    for (const key of [...kept, ...named]) await put('exact', key);

    const answer = await remove([...named, 'never-there'], undefined, 'exact');

    expect(answer.Deleted?.map((entry) => entry.Key)).toEqual([...named, 'never-there']);
    expect(answer.Errors).toBeUndefined();
    expect((await keysIn(client, 'exact')).sort()).toEqual([...kept].sort());
  });

  test('Quiet: only the failures are listed', async () => {
    await put(bucket, 'quiet/a');
    const answer = await remove(['quiet/a'], true);

    expect(answer.Deleted).toBeUndefined();
    expect(await keysIn(client, bucket, 'quiet/')).toEqual([]);
  });

  test('a key that would name a file outside its bucket is reported, not deleted; the others are deleted', async () => {
    await client.send(new CreateBucketCommand({ Bucket: 'victim' }));
    await put('victim', 'z');
    await put(bucket, 'climb/a');

    const answer = await remove(['../victim/z', 'climb/a', 'climb//b']);

    expect(answer.Errors).toEqual([
      expect.objectContaining({ Key: '../victim/z', Code: 'InvalidArgument', Message: expect.stringContaining('".." segments') }),
      expect.objectContaining({ Key: 'climb//b', Code: 'InvalidArgument', Message: expect.stringContaining('empty segment') }),
    ]);
    expect(answer.Deleted?.map((entry) => entry.Key)).toEqual(['climb/a']);
    expect(await keysIn(client, 'victim')).toEqual(['z']);
    expect(await keysIn(client, bucket, 'climb/')).toEqual([]);
  });

  test('checks the key id as every other request does: another one gets InvalidAccessKeyId, and nothing is deleted', async () => {
    await put(bucket, 'guarded/a');
    const stranger = new S3Client({ endpoint: server.endpoint, region: server.region, forcePathStyle: true, credentials: { accessKeyId: 'WRONGKEY', secretAccessKey: 'x' } });
    try {
      const attempt = stranger.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'guarded/a' }] } }));
      await expect(attempt).rejects.toMatchObject({ name: 'InvalidAccessKeyId', $metadata: { httpStatusCode: 403 } });
    } finally {
      stranger.destroy();
    }
    expect(await keysIn(client, bucket, 'guarded/')).toEqual(['guarded/a']);
  });

  test('a missing bucket gives NoSuchBucket; a body that is not a Delete document gives MalformedXML', async () => {
    await expect(remove(['a'], undefined, 'no-such-bucket')).rejects.toMatchObject({ name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } });
    for (const body of ['<Delete><Object><Key>a</Key></Object>', '<Delete></Delete>', '<Delete><Object><Key></Key></Object></Delete>']) {
      const answer = await fetch(`${server.endpoint}/${bucket}?delete`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body });
      expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 400, body: expect.stringContaining('<Code>MalformedXML</Code>') });
    }
  });
});
