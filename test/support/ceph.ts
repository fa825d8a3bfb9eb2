import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { DeleteUserPolicyCommand, IAMClient, PutUserPolicyCommand } from '@aws-sdk/client-iam';
import { freePorts } from './free-port';

const execFileAsync = promisify(execFile);

const CEPH_SCRIPTS = resolve(__dirname, '..', '..', 'scripts', 'ceph');
const REQUIRED_BINARIES = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'monmaptool', 'ceph-authtool'];

/** The region clients sign with; RGW does not check the signing region, so the SDK's usual default serves. */
export const CEPH_REGION = 'us-east-1';

/** Timeout for a `beforeAll` that calls {@link startCeph}; a start takes a few seconds, far more on a busy machine. */
export const CEPH_START_TIMEOUT_MS = 180_000;
/**
 * Time {@link startCeph} gives up.sh, over all its attempts, so that it fails with up.sh's log, and up.sh stops
 * what it started, before jest's hook times out.
 */
const UP_BUDGET_MS = CEPH_START_TIMEOUT_MS - 25_000;
/** Seconds up.sh waits for each daemon (its CEPH_START_TIMEOUT): three waits fit in {@link UP_BUDGET_MS}. */
const UP_WAIT_SECONDS = 40;

/** A pair of S3 keys. */
export interface S3Credentials {
  /** The access key id. */
  readonly accessKeyId: string;
  /** The secret access key. */
  readonly secretAccessKey: string;
}

/** A single-node Ceph cluster with a RADOS Gateway, started by `scripts/ceph/up.sh` for one test file. */
export interface CephCluster {
  /** S3 (and IAM) endpoint, `http://127.0.0.1:<port>`; S3 clients must use path-style addressing. */
  readonly endpoint: string;
  /** Region to sign requests with. */
  readonly region: string;
  /** The cluster's directory (configuration, logs, pid files); removed by {@link CephCluster.stop}. */
  readonly dataDir: string;
  /** Keys of the admin user, which may call the IAM user-policy API (caps `user-policy=*;users=*`). */
  readonly admin: S3Credentials;
  /** Creates an S3 user with generated keys (via radosgw-admin); it has no policy and owns nothing. */
  createUser(uid: string): Promise<S3Credentials>;
  /**
   * Puts an inline IAM policy on a user through the gateway's IAM API (iam:PutUserPolicy), signed with the admin's
   * keys. An Allow grants that user access even to buckets of other users; see docs/s3-servers.md.
   */
  putUserPolicy(userName: string, policyDocument: string | object, policyName?: string): Promise<void>;
  /** Removes an inline IAM policy from a user (iam:DeleteUserPolicy). */
  deleteUserPolicy(userName: string, policyName?: string): Promise<void>;
  /** An S3 client for this cluster: path-style, signing with the given keys (the admin's by default). */
  s3Client(credentials?: S3Credentials): S3Client;
  /** Creates a bucket owned by the admin user. */
  createBucket(name: string): Promise<void>;
  /** Deletes every object of a bucket, then the bucket. */
  deleteBucket(name: string): Promise<void>;
  /** Lists the keys of a bucket under a prefix (all pages), as the admin user. */
  listObjects(bucket: string, prefix?: string): Promise<string[]>;
  /** Stops every daemon (SIGTERM, then SIGKILL) and removes the data directory. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_POLICY_NAME = 'policy';

/** up.sh's exit status when a port it was given is, or became, in use; see scripts/ceph/up.sh. */
const UP_PORT_IN_USE = 75;
/** How many pairs of ports {@link startCeph} tries before it gives up. */
const PORT_ATTEMPTS = 3;

/** Throws when Ceph is not installed: a test that needs it must fail, never skip. */
function assertCephInstalled(): void {
  const missing = REQUIRED_BINARIES.filter(
    (binary) => spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length === 0) return;
  const install = 'sudo bash scripts/ceph/install.sh';
  throw new Error(
    process.env.CI === 'true'
      ? `Ceph is not installed on this CI machine (missing ${missing.join(', ')}); the CI setup must run: ${install}`
      : `Ceph is not installed (missing ${missing.join(', ')}); install it with: ${install}`,
  );
}

/**
 * Runs a script of scripts/ceph. After `timeoutMs` it is sent SIGTERM (up.sh then stops what it started) and, 15 s
 * later, SIGKILL; its code is then null.
 */
function runScript(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = Number.POSITIVE_INFINITY,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn('bash', [join(CEPH_SCRIPTS, script)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timers: NodeJS.Timeout[] = [];
    if (Number.isFinite(timeoutMs)) {
      timers.push(
        setTimeout(() => {
          output += `\n${script} did not finish in ${Math.round(timeoutMs / 1000)} s: stopped\n`;
          child.kill('SIGTERM');
          timers.push(setTimeout(() => child.kill('SIGKILL'), 15_000));
        }, timeoutMs),
      );
    }
    const settle = () => timers.forEach((timer) => clearTimeout(timer));
    child.once('error', (err) => {
      settle();
      rejectRun(err);
    });
    // 'exit', not 'close': a daemon that inherited a pipe must not keep the caller waiting.
    child.once('exit', (code) => {
      settle();
      resolveRun({ code, output });
    });
  });
}

/**
 * The data dirs of the clusters this process started and has not stopped. The daemons run in sessions of their
 * own, so a Ctrl-C does not reach them, and Node does not emit 'exit' when a signal ends it: on SIGINT, SIGTERM or
 * SIGHUP they are stopped here, and the signal is raised again.
 */
const liveClusters = new Set<string>();
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function stopLiveClusters(): void {
  for (const dataDir of liveClusters) stopSync(dataDir);
  liveClusters.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  stopLiveClusters();
  for (const each of STOP_SIGNALS) process.removeListener(each, onStopSignal);
  process.kill(process.pid, signal);
}

function trackCluster(dataDir: string): void {
  if (liveClusters.size === 0) {
    process.once('exit', stopLiveClusters);
    for (const signal of STOP_SIGNALS) process.once(signal, onStopSignal);
  }
  liveClusters.add(dataDir);
}

function untrackCluster(dataDir: string): void {
  liveClusters.delete(dataDir);
  if (liveClusters.size > 0) return;
  process.removeListener('exit', stopLiveClusters);
  for (const signal of STOP_SIGNALS) process.removeListener(signal, onStopSignal);
}

function stopSync(dataDir: string): void {
  spawnSync('bash', [join(CEPH_SCRIPTS, 'down.sh')], {
    env: { ...process.env, CEPH_DATA_DIR: dataDir, CEPH_REMOVE_DATA: '1' },
    stdio: 'ignore',
  });
}

function parseUserKeys(output: string, uid: string): S3Credentials {
  const user = JSON.parse(output) as { keys?: Array<{ access_key?: string; secret_key?: string }> };
  const key = user.keys?.[0];
  if (!key?.access_key || !key.secret_key) throw new Error(`radosgw-admin created user ${uid} without S3 keys`);
  return { accessKeyId: key.access_key, secretAccessKey: key.secret_key };
}

function describeAwsError(error: unknown): string {
  const aws = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return `${aws.name ?? 'Error'} (HTTP ${aws.$metadata?.httpStatusCode ?? 'no response'})`;
}

/**
 * Starts a Ceph cluster with `scripts/ceph/up.sh` on free ports in a new temporary directory. Call it once per
 * test file in `beforeAll` (with {@link CEPH_START_TIMEOUT_MS}) and `stop()` it in `afterAll`.
 * Throws when Ceph is not installed, with the command that installs it.
 */
export async function startCeph(): Promise<CephCluster> {
  assertCephInstalled();
  const dataDir = await mkdtemp(join(tmpdir(), 'ceph-cluster-'));
  const deadline = Date.now() + UP_BUDGET_MS;
  // tracked from the start: a signal during up.sh stops the daemons it has started so far
  trackCluster(dataDir);
  for (let attempt = 1; ; attempt++) {
    const [monPort, rgwPort] = await freePorts(2);
    const { code, output } = await runScript(
      'up.sh',
      { CEPH_DATA_DIR: dataDir, CEPH_MON_PORT: String(monPort), CEPH_RGW_PORT: String(rgwPort), CEPH_START_TIMEOUT: String(UP_WAIT_SECONDS) },
      Math.max(1, deadline - Date.now()),
    );
    if (code === 0) break;
    // Another process took a port after it was chosen: choose others (up.sh has stopped what it started).
    if (code === UP_PORT_IN_USE && attempt < PORT_ATTEMPTS && Date.now() < deadline) continue;
    stopSync(dataDir);
    untrackCluster(dataDir);
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`scripts/ceph/up.sh failed (exit ${code}):\n${output.trim().split('\n').slice(-50).join('\n')}`);
  }
  const cluster = JSON.parse(await readFile(join(dataDir, 'cluster.json'), 'utf8')) as {
    endpoint: string;
    conf: string;
    accessKeyId: string;
    secretAccessKey: string;
  };

  const admin: S3Credentials = { accessKeyId: cluster.accessKeyId, secretAccessKey: cluster.secretAccessKey };
  const clients: Array<S3Client | IAMClient> = [];
  const s3Client = (credentials: S3Credentials = admin): S3Client => {
    const client = new S3Client({ endpoint: cluster.endpoint, region: CEPH_REGION, forcePathStyle: true, credentials });
    clients.push(client);
    return client;
  };
  const adminS3 = s3Client();
  const iam = new IAMClient({ endpoint: cluster.endpoint, region: CEPH_REGION, credentials: admin });
  clients.push(iam);
  const radosgwAdmin = async (args: string[]): Promise<string> => {
    try {
      return (await execFileAsync('radosgw-admin', ['-c', cluster.conf, ...args])).stdout;
    } catch (error) {
      const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
      throw new Error(`radosgw-admin ${args[0]} ${args[1]} failed: ${stderr}`);
    }
  };

  const listObjects = async (bucket: string, prefix?: string): Promise<string[]> => {
    const keys: string[] = [];
    for await (const page of paginateListObjectsV2({ client: adminS3 }, { Bucket: bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
    }
    return keys;
  };

  let stopped: Promise<void> | undefined;
  return {
    endpoint: cluster.endpoint,
    region: CEPH_REGION,
    dataDir,
    admin,
    async createUser(uid) {
      const output = await radosgwAdmin(['user', 'create', `--uid=${uid}`, `--display-name=${uid}`]);
      return parseUserKeys(output, uid);
    },
    async putUserPolicy(userName, policyDocument, policyName = DEFAULT_POLICY_NAME) {
      const document = typeof policyDocument === 'string' ? policyDocument : JSON.stringify(policyDocument);
      try {
        await iam.send(new PutUserPolicyCommand({ UserName: userName, PolicyName: policyName, PolicyDocument: document }));
      } catch (error) {
        throw new Error(`PutUserPolicy ${policyName} on user ${userName} failed: ${describeAwsError(error)}`);
      }
    },
    async deleteUserPolicy(userName, policyName = DEFAULT_POLICY_NAME) {
      try {
        await iam.send(new DeleteUserPolicyCommand({ UserName: userName, PolicyName: policyName }));
      } catch (error) {
        throw new Error(`DeleteUserPolicy ${policyName} on user ${userName} failed: ${describeAwsError(error)}`);
      }
    },
    s3Client,
    async createBucket(name) {
      await adminS3.send(new CreateBucketCommand({ Bucket: name }));
    },
    async deleteBucket(name) {
      const keys = await listObjects(name);
      for (let start = 0; start < keys.length; start += 1000) {
        const batch = keys.slice(start, start + 1000).map((Key) => ({ Key }));
        await adminS3.send(new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: batch, Quiet: true } }));
      }
      await adminS3.send(new DeleteBucketCommand({ Bucket: name }));
    },
    listObjects,
    stop() {
      stopped ??= (async () => {
        for (const client of clients) client.destroy();
        const result = await runScript('down.sh', { CEPH_DATA_DIR: dataDir, CEPH_REMOVE_DATA: '1' });
        if (result.code === 0) untrackCluster(dataDir);
        if (result.code !== 0) throw new Error(`scripts/ceph/down.sh failed (exit ${result.code}): ${result.output}`);
      })();
      return stopped;
    },
  };
}
