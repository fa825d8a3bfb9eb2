import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CEPH_START_TIMEOUT_MS, startCeph, type CephCluster, type S3Credentials } from '../support/ceph';
import { freePort, freePorts } from '../support/free-port';

const BUCKET = 'exports';
const PREFIX = 'traces';

/** The policy an export destination needs at minimum: s3:PutObject under its prefix, nothing else. */
const putOnlyUnderPrefix = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: ['s3:PutObject'], Resource: [`arn:aws:s3:::${BUCKET}/${PREFIX}/*`] }],
};

function put(client: S3Client, bucket: string, key: string) {
  return client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'validation object' }));
}

/** Names of the running processes whose command line mentions the directory (a cluster's daemons). */
function daemonsUsing(dataDir: string): string[] {
  const names: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (commandLine.some((arg) => arg.startsWith(`${dataDir}/`))) names.push(basename(commandLine[0]!));
    } catch {
      // the process ended while the list was read
    }
  }
  return names;
}

/** Resolves to the S3 error code of a failed request, or fails the test when the request succeeds. */
async function errorCodeOf(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    return (error as { name: string }).name;
  }
  throw new Error('expected the request to fail');
}

let ceph: CephCluster;
let admin: S3Client;

beforeAll(async () => {
  ceph = await startCeph();
  admin = ceph.s3Client();
  await ceph.createBucket(BUCKET);
}, CEPH_START_TIMEOUT_MS);

afterAll(async () => {
  await ceph?.stop();
});

describe('a cluster started by scripts/ceph/up.sh', () => {
  test('serves S3 to the admin user: put, then list under a prefix', async () => {
    await put(admin, BUCKET, `${PREFIX}/admin/one.txt`);
    await put(admin, BUCKET, 'elsewhere/two.txt');

    expect(await ceph.listObjects(BUCKET, `${PREFIX}/admin/`)).toEqual([`${PREFIX}/admin/one.txt`]);
  });

  test('deleteBucket empties the bucket and removes it', async () => {
    await ceph.createBucket('short-lived');
    await put(admin, 'short-lived', 'a/b.txt');

    await ceph.deleteBucket('short-lived');

    expect(await errorCodeOf(ceph.listObjects('short-lived'))).toBe('NoSuchBucket');
  });
});

describe("an IAM user policy grants a user access to the admin's bucket (Ceph 16: users of one tenant)", () => {
  let writer: S3Credentials;
  let writerS3: S3Client;

  beforeAll(async () => {
    writer = await ceph.createUser('export-writer');
    writerS3 = ceph.s3Client(writer);
  });

  test('without a policy, a user cannot put into a bucket it does not own (AccessDenied)', async () => {
    expect(await errorCodeOf(put(writerS3, BUCKET, `${PREFIX}/tmp/before-policy`))).toBe('AccessDenied');
  });

  describe('with a policy allowing only s3:PutObject on bucket/prefix/*', () => {
    beforeAll(async () => {
      await ceph.putUserPolicy('export-writer', putOnlyUnderPrefix);
      await put(admin, BUCKET, `${PREFIX}/by-admin.txt`);
    });

    test('the user can put under the prefix, as the destination validation does', async () => {
      await put(writerS3, BUCKET, `${PREFIX}/tmp/validation-object`);

      expect(await ceph.listObjects(BUCKET, `${PREFIX}/tmp/`)).toContain(`${PREFIX}/tmp/validation-object`);
    });

    test('the user cannot put outside the prefix (AccessDenied)', async () => {
      expect(await errorCodeOf(put(writerS3, BUCKET, 'outside/object'))).toBe('AccessDenied');
    });

    test('the user cannot delete under the prefix, not even its own object (AccessDenied)', async () => {
      await put(writerS3, BUCKET, `${PREFIX}/tmp/stays`);

      const deletion = writerS3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/tmp/stays` }));

      expect(await errorCodeOf(deletion)).toBe('AccessDenied');
      expect(await ceph.listObjects(BUCKET, `${PREFIX}/tmp/stays`)).toEqual([`${PREFIX}/tmp/stays`]);
    });

    test("the user cannot get another user's object under the prefix (AccessDenied)", async () => {
      const read = writerS3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/by-admin.txt` }));

      expect(await errorCodeOf(read)).toBe('AccessDenied');
    });

    test('the user can still read back an object it wrote itself: the object ACL makes the writer its owner', async () => {
      await put(writerS3, BUCKET, `${PREFIX}/tmp/own`);

      const read = await writerS3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/tmp/own` }));

      expect(await read.Body?.transformToString()).toBe('validation object');
    });

    test('deleting the policy takes the access away at once (AccessDenied)', async () => {
      const revoked = ceph.s3Client(await ceph.createUser('revoked-writer'));
      await ceph.putUserPolicy('revoked-writer', putOnlyUnderPrefix);
      await put(revoked, BUCKET, `${PREFIX}/tmp/while-allowed`);

      await ceph.deleteUserPolicy('revoked-writer');

      expect(await errorCodeOf(put(revoked, BUCKET, `${PREFIX}/tmp/after-revoke`))).toBe('AccessDenied');
    });
  });

  test("a user policy without Allow does not restrict a bucket's owner; only an explicit Deny does", async () => {
    const owner = ceph.s3Client(await ceph.createUser('bucket-owner'));
    await owner.send(new CreateBucketCommand({ Bucket: 'owned-by-user' }));
    await ceph.putUserPolicy('bucket-owner', putOnlyUnderPrefix);
    await put(owner, 'owned-by-user', 'anything/at-all');

    await ceph.putUserPolicy(
      'bucket-owner',
      { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Action: ['s3:PutObject'], Resource: ['arn:aws:s3:::owned-by-user/*'] }] },
      'deny-put',
    );

    expect(await errorCodeOf(put(owner, 'owned-by-user', 'anything/denied'))).toBe('AccessDenied');
  });
});

describe('the errors a destination validation meets', () => {
  test('a wrong secret gives SignatureDoesNotMatch', async () => {
    const wrongSecret = ceph.s3Client({ accessKeyId: ceph.admin.accessKeyId, secretAccessKey: 'not-the-secret-key' });

    expect(await errorCodeOf(put(wrongSecret, BUCKET, `${PREFIX}/tmp/x`))).toBe('SignatureDoesNotMatch');
  });

  test('an unknown access key id gives InvalidAccessKeyId', async () => {
    const unknownKey = ceph.s3Client({ accessKeyId: 'UNKNOWNKEY0000000000', secretAccessKey: 'whatever-secret' });

    expect(await errorCodeOf(put(unknownKey, BUCKET, `${PREFIX}/tmp/x`))).toBe('InvalidAccessKeyId');
  });

  test('a missing bucket gives NoSuchBucket', async () => {
    expect(await errorCodeOf(put(admin, 'no-such-bucket', `${PREFIX}/tmp/x`))).toBe('NoSuchBucket');
  });
});

describe('scripts/ceph/up.sh and down.sh', () => {
  const scripts = resolve(__dirname, '..', '..', 'scripts', 'ceph');
  /** Directories of the clusters the tests below start by hand: stopped and removed after each test. */
  let own: string[] = [];
  const ownDir = (name: string): string => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ceph-script-')), name);
    own.push(dir);
    return dir;
  };
  /** Starts up.sh on `dataDir` in the background; `stderr()` is what it printed so far. */
  const startUp = (dataDir: string, monPort: number, rgwPort: number, env: NodeJS.ProcessEnv = {}) => {
    const up = spawn('bash', [join(scripts, 'up.sh')], {
      env: { ...process.env, CEPH_DATA_DIR: dataDir, CEPH_MON_PORT: String(monPort), CEPH_RGW_PORT: String(rgwPort), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    up.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => up.once('exit', resolveExit));
    return { up, exited, stderr: () => stderr };
  };
  afterEach(() => {
    for (const dir of own) {
      spawnSync('bash', [join(scripts, 'down.sh')], { env: { ...process.env, CEPH_DATA_DIR: dir, CEPH_REMOVE_DATA: '1' }, stdio: 'ignore' });
      rmSync(resolve(dir, '..'), { recursive: true, force: true });
    }
    own = [];
  });

  test('a second cluster runs side by side with its own users; stop() ends its daemons and removes its directory', async () => {
    const second = await startCeph();
    try {
      expect(second.endpoint).not.toBe(ceph.endpoint);
      expect(await errorCodeOf(put(second.s3Client(ceph.admin), BUCKET, 'x'))).toBe('InvalidAccessKeyId');
      expect(daemonsUsing(second.dataDir).sort()).toEqual(['ceph-mon', 'ceph-osd', 'radosgw']);
    } finally {
      await second.stop();
    }

    expect(daemonsUsing(second.dataDir)).toEqual([]);
    expect(existsSync(second.dataDir)).toBe(false);
  }, CEPH_START_TIMEOUT_MS);

  test('up.sh refuses a port already in use, exits non-zero and names the port', async () => {
    const busy: Server = createServer();
    await new Promise<void>((listening) => busy.listen(0, '127.0.0.1', listening));
    const busyPort = (busy.address() as { port: number }).port;
    try {
      const result = spawnSync('bash', [join(scripts, 'up.sh')], {
        env: {
          ...process.env,
          CEPH_DATA_DIR: ownDir('never-started'),
          CEPH_MON_PORT: String(await freePort()),
          CEPH_RGW_PORT: String(busyPort),
        },
        encoding: 'utf8',
      });

      expect(result.status).toBe(75);
      expect(result.stderr).toContain(`port ${busyPort}`);
    } finally {
      busy.close();
    }
  });

  test('a gateway port taken after up.sh checked it: up.sh stops at the failed bind with 75, leaving nothing running', async () => {
    const [monPort, rgwPort] = await freePorts(2);
    const dataDir = ownDir('port-taken-meanwhile');
    const { up, exited, stderr } = startUp(dataDir, monPort, rgwPort);
    // The monitor's log appears once the port check is behind; the gateway starts seconds later.
    while (!existsSync(join(dataDir, 'log', 'mon.a.log')) && up.exitCode === null) await new Promise((wait) => setTimeout(wait, 50));
    expect(up.exitCode).toBeNull();
    // it closes each connection at once: up.sh's probe of the gateway fails fast instead of waiting for an answer
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((listening, failed) => squatter.once('error', failed).listen(rgwPort, '127.0.0.1', listening));
    try {
      // the status with what up.sh printed, so that a failure shows which step it stopped at
      expect(`exit status ${await exited}\n${stderr()}`).toMatch(/^exit status 75\n/);
      expect(stderr()).toContain('the RADOS Gateway on port');
      expect(stderr()).toContain('could not bind its port');
      expect(stderr()).not.toContain('timed out');
      expect(daemonsUsing(dataDir)).toEqual([]);
    } finally {
      squatter.close();
      if (up.exitCode === null) up.kill('SIGKILL');
    }
  }, CEPH_START_TIMEOUT_MS);

  test('up.sh that cannot bring a daemon up in time exits non-zero, shows its log and leaves nothing running', async () => {
    const [monPort, rgwPort] = await freePorts(2);
    const dataDir = ownDir('too-impatient');
    // an OSD that never reports itself up: `ceph osd stat` answers none up, every other command is the real ceph's.
    // With only a 0 s wait, each daemon is checked once; on a fast machine all three could be up at that one check.
    const realCeph = spawnSync('bash', ['-c', 'command -v ceph'], { encoding: 'utf8' }).stdout.trim();
    const bin = join(dataDir, '..', 'too-impatient-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'ceph'),
      `#!/bin/bash\n[[ " $* " == *" osd stat "* ]] && { echo "1 osds: 0 up (since 0s), 1 in"; exit 0; }\nexec ${JSON.stringify(realCeph)} "$@"\n`,
      { mode: 0o755 },
    );
    const result = spawnSync('bash', [join(scripts, 'up.sh')], {
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        CEPH_DATA_DIR: dataDir,
        CEPH_MON_PORT: String(monPort),
        CEPH_RGW_PORT: String(rgwPort),
        CEPH_START_TIMEOUT: '0',
      },
      encoding: 'utf8',
    });

    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/timed out after 0s waiting for the (monitor|OSD)/);
    expect(result.stderr).toMatch(/last lines of .*\/log\/(mon\.a|osd\.0)\.log/);
    expect(daemonsUsing(dataDir)).toEqual([]);
  }, CEPH_START_TIMEOUT_MS);

  test('up.sh refuses to wipe a non-empty directory it did not create', async () => {
    const [monPort, rgwPort] = await freePorts(2);
    const dataDir = ownDir('somebody-elses');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'keep-me.txt'), 'not a cluster');
    const result = spawnSync('bash', [join(scripts, 'up.sh')], {
      env: { ...process.env, CEPH_DATA_DIR: dataDir, CEPH_MON_PORT: String(monPort), CEPH_RGW_PORT: String(rgwPort) },
      encoding: 'utf8',
    });

    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('is not a cluster made by up.sh');
    expect(readFileSync(join(dataDir, 'keep-me.txt'), 'utf8')).toBe('not a cluster');
  });

  test('down.sh takes a daemon that exited but was never reaped (a zombie) as stopped, instead of waiting forever', async () => {
    const dataDir = ownDir('zombie');
    mkdirSync(join(dataDir, 'run'), { recursive: true });
    writeFileSync(join(dataDir, '.ceph-local-cluster'), '');
    // a process named ceph-mon (a copy of sleep) that exits after half a second, when its parent has become `sleep 60`
    // (bash exec'ed it), which never reaps a child; bash itself would reap one that exited before the exec
    const fake = join(dataDir, 'ceph-mon');
    copyFileSync('/bin/sleep', fake);
    const parent = spawn('bash', ['-c', '"$0" 0.5 & echo $!; exec sleep 60', fake], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<string>((resolvePid) => parent.stdout.once('data', (chunk: Buffer) => resolvePid(chunk.toString().trim())));
      const state = () => {
        try {
          return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
        } catch {
          return undefined;
        }
      };
      for (let i = 0; i < 200 && state() !== 'Z'; i++) await new Promise((wait) => setTimeout(wait, 50));
      expect(state()).toBe('Z');
      expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('ceph-mon');
      writeFileSync(join(dataDir, 'run', 'mon.a.pid'), pid);

      const down = spawnSync('bash', [join(scripts, 'down.sh')], {
        env: { ...process.env, CEPH_DATA_DIR: dataDir, CEPH_REMOVE_DATA: '1' },
        encoding: 'utf8',
        timeout: 30_000,
      });

      expect(down.status).toBe(0);
      expect(down.stdout).toContain('stopped 1 daemon(s)');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  test('Ctrl-C during up.sh stops the daemons it started; a pid file naming another process does not block it', async () => {
    const [monPort, rgwPort] = await freePorts(2);
    const dataDir = ownDir('interrupted');
    // an earlier cluster's directory whose pid file now names an unrelated process (pids are reused after a reboot)
    mkdirSync(join(dataDir, 'run'), { recursive: true });
    writeFileSync(join(dataDir, '.ceph-local-cluster'), '');
    writeFileSync(join(dataDir, 'run', 'mon.a.pid'), String(process.pid));
    const { up, exited, stderr } = startUp(dataDir, monPort, rgwPort);
    try {
      // the monitor runs once up.sh waits for the OSD: its log is there
      while (!existsSync(join(dataDir, 'log', 'osd.0.log')) && up.exitCode === null) await new Promise((wait) => setTimeout(wait, 50));
      expect(stderr()).not.toContain('still running');
      expect(daemonsUsing(dataDir)).toContain('ceph-mon');
      up.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr()).toContain('interrupted');
      expect(daemonsUsing(dataDir)).toEqual([]);
    } finally {
      if (up.exitCode === null) up.kill('SIGKILL');
    }
  }, CEPH_START_TIMEOUT_MS);

  test('a given access key without a secret: radosgw-admin generates the secret, which is never on a command line', async () => {
    const [monPort, rgwPort] = await freePorts(2);
    const dataDir = ownDir('given-access-key');
    // radosgw-admin behind a shim that writes down every command line it is given
    const shims = join(resolve(dataDir, '..'), 'shims');
    mkdirSync(shims);
    const real = spawnSync('bash', ['-c', 'command -v radosgw-admin'], { encoding: 'utf8' }).stdout.trim();
    const argsLog = join(shims, 'args.log');
    writeFileSync(join(shims, 'radosgw-admin'), `#!/bin/bash\necho "$*" >> '${argsLog}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const accessKeyId = 'GIVENACCESSKEY000001';
    const env = { PATH: `${shims}:${process.env.PATH}`, CEPH_ACCESS_KEY: accessKeyId };
    const { exited, stderr } = startUp(dataDir, monPort, rgwPort, env);
    // the status with what up.sh printed, so that a failure shows which step it stopped at
    expect(`exit status ${await exited}\n${stderr()}`).toMatch(/^exit status 0\n/);
    const cluster = JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as S3Credentials & { endpoint: string };
    expect(cluster.accessKeyId).toBe(accessKeyId);
    expect(readFileSync(argsLog, 'utf8')).toContain('user create');
    expect(readFileSync(argsLog, 'utf8')).not.toContain(cluster.secretAccessKey);
    // the keys are the admin's: it may create a bucket
    const { S3Client: Client } = await import('@aws-sdk/client-s3');
    const client = new Client({ endpoint: cluster.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: cluster });
    try {
      await client.send(new CreateBucketCommand({ Bucket: 'given-key-bucket' }));
    } finally {
      client.destroy();
    }
  }, CEPH_START_TIMEOUT_MS);
});
