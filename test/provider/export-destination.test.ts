/**
 * `agentplatform_export_destination` through the real terraform against the local platform, with Ceph RADOS Gateway
 * as the bucket (it checks signatures and IAM user policies for real): good keys; keys without s3:PutObject, a wrong
 * secret, an unknown key id and a non-S3 endpoint, each refused with a diagnostic that says what to do; credential
 * rotation in place; import; destroy that only forgets; and the secrets nowhere in state, plan output or TRACE logs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CEPH_START_TIMEOUT_MS, startCeph, type CephCluster, type S3Credentials } from '../support/ceph';
import { startFaultProxy } from '../tracing/support/fault-proxy';
import { ExportTestPlatform, diagnostic, flat } from './support/export-platform';
import { until, type DeploymentDir } from './support/deployment-platform';
import { collect, type TerraformResult } from './support/terraform';

const BUCKET = 'exports';
const PREFIX = 'team-a/traces';
const WRONG_SECRET = 'wrong-secret-5d1c9e7a3b-never-shown';
const UNKNOWN_KEY_SECRET = 'unknown-key-secret-8a2f4c6e0d-never-shown';
const TYPE = 'agentplatform_export_destination';

let ceph: CephCluster;
let lp: ExportTestPlatform;
let writer: S3Credentials;
let rotated: S3Credentials;
let readOnly: S3Credentials;

const allow = (actions: string[]) => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: actions, Resource: [`arn:aws:s3:::${BUCKET}/*`] }],
});
const EXPORT_ACTIONS = ['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload'];

/**
 * Refusals of keys are tried again while new keys may still be propagating (up to a minute, within the operation's
 * time limit): the blocks of keys that stay refused give them 3 seconds.
 */
const SHORT_TIMEOUTS = '  timeouts = { create = "6s", update = "6s" }\n';

/** A destination block whose keys come from ephemeral variables `<label>_key_id` and `<label>_secret`. */
function destination(label: string, version: number | null, endpoint = '${var.endpoint}', extra = ''): string {
  return `variable "${label}_key_id" {
  type      = string
  ephemeral = true
}

variable "${label}_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "${TYPE}" "${label}" {
  display_name = "${label}"
  bucket_name  = "${BUCKET}"
  prefix       = "${PREFIX}"
  endpoint_url = "${endpoint}"
  credentials = {
    access_key_id     = var.${label}_key_id
    secret_access_key = var.${label}_secret
  }
${version === null ? '' : `  credentials_version = ${version}\n`}${extra}}
`;
}

const ENDPOINT_VARIABLE = 'variable "endpoint" {\n  type = string\n}\n';

/** The variables of a destination block, as terraform reads them from the environment. */
function keysEnv(label: string, keys: S3Credentials): NodeJS.ProcessEnv {
  return { [`TF_VAR_${label}_key_id`]: keys.accessKeyId, [`TF_VAR_${label}_secret`]: keys.secretAccessKey };
}

/** Whether `block` points at `attribute`'s line of destination `label`. */
function pointsAt(block: string | undefined, label: string, attribute: string): boolean {
  return !!block && block.includes(`in resource "${TYPE}" "${label}":`) && new RegExp(`\\d+:\\s+${attribute}\\s+=`).test(block);
}

beforeAll(async () => {
  ceph = await startCeph();
  await ceph.createBucket(BUCKET);
  writer = await ceph.createUser('writer');
  rotated = await ceph.createUser('rotated');
  readOnly = await ceph.createUser('read-only');
  await ceph.putUserPolicy('writer', allow(EXPORT_ACTIONS));
  await ceph.putUserPolicy('rotated', allow(EXPORT_ACTIONS));
  await ceph.putUserPolicy('read-only', allow(['s3:GetObject']));
  lp = await ExportTestPlatform.start();
}, CEPH_START_TIMEOUT_MS);

afterAll(async () => {
  await lp?.close();
  await ceph?.stop();
});

describe('agentplatform_export_destination against Ceph RGW', () => {
  const outputs: TerraformResult[] = [];
  let dir: DeploymentDir;
  let logFile: string;
  const run = async (command: Promise<TerraformResult>): Promise<TerraformResult> => {
    const result = await command;
    outputs.push(result);
    return result;
  };

  beforeAll(() => {
    dir = lp.terraform({ TF_LOG: 'TRACE', TF_VAR_endpoint: ceph.endpoint });
    logFile = join(dir.tf.dir, 'terraform.log');
    dir.tf.env.TF_LOG_PATH = logFile;
  });

  it('creates a destination with good keys, and explains each refusal of the platform on its attribute', async () => {
    dir.configure(
      [
        ENDPOINT_VARIABLE,
        destination('good', 1),
        destination('no_put', null, undefined, SHORT_TIMEOUTS),
        destination('wrong_secret', null, undefined, SHORT_TIMEOUTS),
        destination('unknown_key', null, undefined, SHORT_TIMEOUTS),
        destination('not_s3', null, lp.platform.url),
      ].join('\n'),
    );
    Object.assign(dir.tf.env, {
      ...keysEnv('good', writer),
      ...keysEnv('no_put', readOnly),
      ...keysEnv('wrong_secret', { accessKeyId: writer.accessKeyId, secretAccessKey: WRONG_SECRET }),
      ...keysEnv('unknown_key', { accessKeyId: 'AKIAUNKNOWN0KEY0ID00', secretAccessKey: UNKNOWN_KEY_SECRET }),
      ...keysEnv('not_s3', writer),
    });
    expect((await run(dir.init())).code).toBe(0);

    const { code, stderr } = await run(dir.apply());

    expect(code).toBe(1);
    const good = dir.instance(`${TYPE}.good`).attributes;
    expect(good).toMatchObject({ display_name: 'good', bucket_name: BUCKET, prefix: PREFIX, endpoint_url: ceph.endpoint, include_bucket_in_prefix: false });
    expect(good).toMatchObject({ credentials: null, credentials_version: 1, credentials_keys: ['access_key_id', 'secret_access_key'] });
    const listed = await lp.client.listDestinations();
    expect(listed.map((d) => d.id)).toEqual([good.id]);
    // the platform's test object under <prefix>/tmp/ was deleted again (the key may delete)
    expect(await ceph.listObjects(BUCKET, `${PREFIX}/tmp/`)).toEqual([]);

    const denied = stderr.split(/\n(?=[│╷╵ ]*Error: )/).filter((b) => b.includes(`Error: Access denied: the access key cannot write to s3://${BUCKET}/${PREFIX}`));
    const noPut = denied.find((b) => b.includes('"no_put"'));
    expect(pointsAt(noPut, 'no_put', 'credentials')).toBe(true);
    expect(flat(noPut)).toContain(`needs s3:PutObject on s3://${BUCKET}/${PREFIX}/* (ExportBucket grants it`);
    const wrongSecret = denied.find((b) => b.includes('"wrong_secret"'));
    expect(pointsAt(wrongSecret, 'wrong_secret', 'credentials')).toBe(true);
    expect(flat(wrongSecret)).toContain('check that `secret_access_key` belongs to `access_key_id`');
    // tried again while new keys could still be propagating, then shown
    expect(flat(wrongSecret)).toMatch(/\(Still refused after \d+s of retries, the time new keys take to reach the store\.\)/);

    const unknownKey = diagnostic(stderr, 'Unknown access key: the store does not know this access key id');
    expect(pointsAt(unknownKey, 'unknown_key', 'credentials')).toBe(true);
    expect(flat(unknownKey)).toContain('Check that the key belongs to this store');

    const notS3 = diagnostic(stderr, `Invalid endpoint: ${lp.platform.url} is not an S3-compatible endpoint`);
    expect(pointsAt(notS3, 'not_s3', 'endpoint_url')).toBe(true);
    expect(flat(notS3)).toContain('for Amazon S3 itself leave `endpoint_url` out and set `region`');
  });

  it('rotates the credentials in place when credentials_version changes, keeping the old ones when the new are refused', async () => {
    dir.configure([ENDPOINT_VARIABLE, destination('good', 2)].join('\n'));
    Object.assign(dir.tf.env, keysEnv('good', rotated));
    const id = dir.instance(`${TYPE}.good`).attributes.id as string;

    const plan = await run(dir.plan());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(`# ${TYPE}.good will be updated in-place`);
    expect(plan.stdout).toMatch(/credentials_version\s+= 1 -> 2/);
    expect(plan.stdout).toMatch(/credentials_keys\s+= \[[^\]]*\] -> \(known after apply\)/);
    expect(plan.stdout).not.toContain('must be replaced');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

    const patchesBefore = lp.requests.filter((line) => line.startsWith(`PATCH /api/v1/bulk-exports/destinations/${id} 200`)).length;
    const applied = await run(dir.apply());
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect(lp.requests.filter((line) => line.startsWith(`PATCH /api/v1/bulk-exports/destinations/${id} 200`)).length).toBe(patchesBefore + 1);
    expect(dir.instance(`${TYPE}.good`).attributes).toMatchObject({ id, credentials_version: 2 });
    expect((await run(dir.plan())).code).toBe(0);

    // a change that sends no request keeps the keys the platform holds, known at plan
    dir.configure([ENDPOINT_VARIABLE, destination('good', 2).replace('  credentials_version = 2\n', '  credentials_version = 2\n  timeouts = { create = "2m" }\n')].join('\n'));
    const localOnly = await run(dir.plan());
    expect(localOnly.code).toBe(2);
    expect(localOnly.stdout).toContain(`# ${TYPE}.good will be updated in-place`);
    expect(localOnly.stdout).not.toContain('known after apply');
    expect((await run(dir.apply())).code).toBe(0);
    expect(dir.instance(`${TYPE}.good`).attributes).toMatchObject({ id, credentials_keys: ['access_key_id', 'secret_access_key'], timeouts: { create: '2m' } });

    dir.configure([ENDPOINT_VARIABLE, destination('good', 3, undefined, SHORT_TIMEOUTS)].join('\n'));
    Object.assign(dir.tf.env, keysEnv('good', { accessKeyId: rotated.accessKeyId, secretAccessKey: WRONG_SECRET }));
    const refused = await run(dir.apply());
    expect(refused.code).toBe(1);
    const block = diagnostic(refused.stderr, 'Access denied: the access key cannot write to');
    expect(pointsAt(block, 'good', 'credentials')).toBe(true);
    expect(flat(block)).toContain('The destination keeps its previous credentials.');
    expect(dir.instance(`${TYPE}.good`).attributes).toMatchObject({ id, credentials_version: 2 });

    // Without credentials a destination would use the host's environment credentials: only a new one can.
    dir.configure([ENDPOINT_VARIABLE, destination('good', null).replace(/  credentials = \{[^}]*\}\n/, '')].join('\n'));
    const switched = await run(dir.plan());
    expect(switched.code).toBe(2);
    expect(switched.stdout).toContain(`# ${TYPE}.good must be replaced`);
    expect(switched.stdout).toMatch(/credentials_version\s+= 2 -> null # forces replacement/);
  });

  it('makes a destination whose new keys are refused at first, once they have reached the store', async () => {
    // a user whose policy comes a few seconds after the apply starts, as a new IAM key's permissions do on AWS
    const late = await ceph.createUser('late');
    const fresh = lp.terraform({ TF_VAR_endpoint: ceph.endpoint, ...keysEnv('late', late) });
    fresh.configure([ENDPOINT_VARIABLE, destination('late', 1)].join('\n'));
    expect((await fresh.init()).code).toBe(0);
    const refusedBefore = lp.requests.filter((line) => line.startsWith('POST /api/v1/bulk-exports/destinations 400')).length;

    const applying = fresh.apply();
    // the policy comes once the platform has refused the keys
    const refusedOnce = () => lp.requests.filter((line) => line.startsWith('POST /api/v1/bulk-exports/destinations 400')).length > refusedBefore;
    expect(await until(async () => refusedOnce(), 60_000)).toBe(true);
    await ceph.putUserPolicy('late', allow(EXPORT_ACTIONS));
    const applied = await applying;

    expect(applied.code).toBe(0);
    expect(fresh.instance(`${TYPE}.late`).attributes).toMatchObject({ display_name: 'late', credentials_keys: ['access_key_id', 'secret_access_key'] });
  });

  it('imports a destination by id, and destroy only removes it from state, with a warning', async () => {
    const id = dir.instance(`${TYPE}.good`).attributes.id as string;
    const fresh = lp.terraform({ TF_VAR_endpoint: ceph.endpoint, ...keysEnv('good', rotated) });
    fresh.configure([ENDPOINT_VARIABLE, destination('good', null)].join('\n'));
    expect((await fresh.init()).code).toBe(0);

    const imported = await fresh.tf.run(['import', '-input=false', '-no-color', `${TYPE}.good`, id]);
    expect(imported.code).toBe(0);
    expect(fresh.instance(`${TYPE}.good`).attributes).toMatchObject({ id, display_name: 'good', prefix: PREFIX, credentials_keys: ['access_key_id', 'secret_access_key'] });
    const planned = await fresh.plan();
    expect(planned.code).toBe(0);
    // credentials without credentials_version: warned of when planning, not again when destroying
    expect(planned.stdout + planned.stderr).toContain('Warning: credentials without credentials_version');

    const destroyed = await fresh.destroy();
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    expect(destroyed.stdout + destroyed.stderr).not.toContain('credentials without credentials_version');
    const warning = diagnostic(destroyed.stdout + destroyed.stderr, 'Export destination removed from state only');
    expect(flat(warning)).toContain(`destination ${id} ("good") stays in the workspace`);
    expect((await lp.client.getDestination(id)).id).toBe(id);
  });

  it('keeps every secret key out of the state file, the plan and apply output, and the TRACE log', () => {
    const secrets = [writer.secretAccessKey, rotated.secretAccessKey, readOnly.secretAccessKey, WRONG_SECRET, UNKNOWN_KEY_SECRET];
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('ApplyResourceChange');
    const places: Record<string, string> = {
      state: dir.stateText(),
      backup: existsSync(join(dir.tf.dir, 'terraform.tfstate.backup')) ? readFileSync(join(dir.tf.dir, 'terraform.tfstate.backup'), 'utf8') : '',
      output: outputs.map((o) => o.stdout + o.stderr).join('\n'),
      log,
    };
    for (const [place, text] of Object.entries(places)) {
      for (const secret of secrets) expect({ place, leaked: text.includes(secret) }).toEqual({ place, leaked: false });
    }
  });
});

describe('agentplatform_export_destination with a bucket slower than timeouts.create', () => {
  it('fails saying the destination may exist, and the next apply takes the one the timed-out create left, instead of making more', async () => {
    const proxy = await startFaultProxy(ceph.endpoint);
    try {
      const dir = lp.terraform({ ...keysEnv('slow', writer), TF_VAR_endpoint: proxy.endpoint });
      dir.configure([ENDPOINT_VARIABLE, destination('slow', 1).replace('  credentials_version = 1\n', '  credentials_version = 1\n  timeouts = { create = "2s" }\n')].join('\n'));
      expect((await dir.init()).code).toBe(0);
      // the platform's test object waits in the proxy: the platform validates, and answers, only once it goes on
      proxy.setMode('hold-requests', '/tmp/validation-', 'PUT');
      const count = async () => (await lp.client.listDestinations()).filter((d) => d.display_name === 'slow').length;

      const first = await dir.apply();

      expect(first.code).toBe(1);
      const timedOut = flat(diagnostic(first.stderr, 'The platform did not answer the create of export destination "slow"'));
      expect(timedOut).toContain('timed out after 2000 ms. It may have created the destination all the same');
      expect(timedOut).toContain('None with this name, bucket and prefix was created since the request went out');
      expect(dir.stateText()).not.toContain(TYPE);
      // the platform finishes the validation it started, and creates the destination
      proxy.release();
      for (let i = 0; i < 100 && (await count()) === 0; i++) await new Promise((wait) => setTimeout(wait, 50));
      const [left] = (await lp.client.listDestinations()).filter((d) => d.display_name === 'slow');
      expect(left).toBeDefined();
      proxy.setMode('pass');

      // the next apply sends the same create, under the same Idempotency-Key: the platform answers with what the first made
      const second = await dir.apply();

      expect([second.code, second.stderr]).toEqual([0, '']);
      expect(dir.instance(`${TYPE}.slow`).attributes).toMatchObject({ id: left!.id });
      expect(await count()).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('says the same when terraform is interrupted during the create', async () => {
    const proxy = await startFaultProxy(ceph.endpoint);
    try {
      const dir = lp.terraform({ ...keysEnv('interrupted', writer), TF_VAR_endpoint: proxy.endpoint });
      dir.configure([ENDPOINT_VARIABLE, destination('interrupted', 1)].join('\n'));
      expect((await dir.init()).code).toBe(0);
      proxy.setMode('hold-requests', '/tmp/validation-', 'PUT');
      const child = dir.tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
      const done = collect(child);
      for (let i = 0; i < 400 && proxy.held === 0; i++) await new Promise((wait) => setTimeout(wait, 50));
      expect(proxy.held).toBe(1);

      // Ctrl-C in a terminal signals the whole process group
      process.kill(-child.pid!, 'SIGINT');
      const result = await done;

      expect(result.code).toBe(1);
      const interrupted = flat(diagnostic(result.stderr, 'The platform did not answer the create of export destination "interrupted"'));
      expect(interrupted).toContain('request aborted by the caller. It may have created the destination all the same');
      proxy.setMode('pass');
      proxy.release();
    } finally {
      await proxy.close();
    }
  });
});
