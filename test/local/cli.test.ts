/** `agentplatform-local` as users run it: the ready lines, the persisted dev key, flags and their env twins. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DeploymentRecord as Deployment, SandboxTemplateRecordsList as SandboxTemplatesList } from '../../lib/api/schemas/control-plane';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { isLoopbackHost, urlHostOf } from '../../lib/local/bind-address';
import { parseCli } from '../../lib/local/cli';
import { CLI_BIN, REPO_ROOT, ensureCliBuilt } from './support/build';
import { childEnv, runCliToEnd, startCli, type CliProcess } from './support/child';
import { dockerBody } from './support/fixtures';
import { RawApi, pollUntil, removeTempDirs, tempDataDir } from './support/http';

const started: CliProcess[] = [];
async function cli(args: string[], env = childEnv()): Promise<CliProcess> {
  const running = await startCli(args, env);
  started.push(running);
  return running;
}
async function stop(running: CliProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  running.child.kill(signal);
  return running.exited;
}

beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(async () => {
  for (const running of started)
    if (running.child.exitCode === null && running.child.signalCode === null) await stop(running, 'SIGKILL');
  removeTempDirs();
});

describe('start-up output', () => {
  test('exactly the ready line and the dev key line; the key works; requests are not logged by default', async () => {
    const running = await cli(['--port', '0', '--data-dir', tempDataDir()]);
    expect(running.keyLine).toMatch(/^lp_[A-Za-z0-9_-]{43}$/);
    const api = new RawApi(running.url, running.keyLine);
    expect((await api.get('/v2/deployments')).status).toBe(200);
    expect((await api.get('/v2/deployments', { key: null })).status).toBe(401);
    expect(running.stdout().trim().split('\n')).toEqual([
      `local platform ready at ${running.url}`,
      `dev api key: ${running.keyLine}`,
    ]);
    expect(await stop(running, 'SIGINT')).toBe(0);
    expect(running.stderr()).toBe('');
  });
});

describe('--host: the ready line reaches the server as bound; any address but loopback is warned of', () => {
  const externalV4 = Object.values(os.networkInterfaces()).flatMap((addresses) =>
    (addresses ?? []).filter((address) => !address.internal && address.family === 'IPv4').map((address) => address.address),
  );

  test('0.0.0.0: a warning on stderr, and a ready line with an external address of the machine', async () => {
    const running = await cli(['--port', '0', '--data-dir', tempDataDir(), '--host', '0.0.0.0']);
    const { hostname } = new URL(running.url);
    if (externalV4.length > 0) expect(externalV4).toContain(hostname);
    else expect(hostname).toBe('127.0.0.1');
    // the server is asked through loopback, bound as it is to every interface: tests send nothing to another address
    const viaLoopback = new URL(running.url);
    viaLoopback.hostname = '127.0.0.1';
    expect((await new RawApi(viaLoopback.origin, running.keyLine).get('/v2/deployments')).status).toBe(200);
    expect(running.stderr()).toContain(
      'agentplatform-local: warning: serving on every network interface (0.0.0.0) over plain HTTP, without TLS: any machine that reaches this port can send requests',
    );
    expect(running.stdout()).not.toContain('warning');
    expect(await stop(running)).toBe(0);
  });

  test('an explicit loopback address is not warned of', async () => {
    const running = await cli(['--port', '0', '--data-dir', tempDataDir(), '--host', '127.0.0.1']);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await stop(running)).toBe(0);
    expect(running.stderr()).toBe('');
  });

  test('which addresses are loopback, and the URL host of each kind of address', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '', '192.0.2.7', 'fd00::1', 'example.com', '128.0.0.1']) expect([host, isLoopbackHost(host)]).toEqual([host, false]);
    const address = (family: 'IPv4' | 'IPv6', value: string, internal = false) =>
      ({ address: value, family, internal, netmask: '', mac: '', cidr: null }) as os.NetworkInterfaceInfo;
    const lo = [address('IPv4', '127.0.0.1', true), address('IPv6', '::1', true)];
    const both = { lo, eth0: [address('IPv6', 'fe80::1'), address('IPv6', 'fd00::2'), address('IPv4', '192.0.2.2')] };
    expect(urlHostOf('0.0.0.0', both)).toBe('192.0.2.2');
    expect(urlHostOf('::', both)).toBe('192.0.2.2');
    expect(urlHostOf('::', { lo, eth0: [address('IPv6', 'fe80::1'), address('IPv6', 'fd00::2')] })).toBe('[fd00::2]');
    expect(urlHostOf('0.0.0.0', { lo })).toBe('127.0.0.1');
    expect(urlHostOf('::', { lo })).toBe('[::1]');
    expect(urlHostOf('192.0.2.9', both)).toBe('192.0.2.9');
    expect(urlHostOf('fd00::9', both)).toBe('[fd00::9]');
  });
});

describe('--verbose', () => {
  test('a request path with newlines and terminal escapes is logged as one line, its control characters escaped', async () => {
    const running = await cli(['--port', '0', '--data-dir', tempDataDir(), '--verbose']);
    const forged = '/v2/deployments/x%0AGET%20/v2/deployments%20200%201.0ms%0D%1B%5B2J%E2%80%AE%5C';
    expect((await new RawApi(running.url, running.keyLine).get(forged)).status).toBeGreaterThanOrEqual(400);
    await pollUntil(async () => running.stderr(), (text) => text.includes('/v2/deployments/x'));
    const lines = running.stderr().split('\n').filter((line) => line.includes('/v2/deployments/x'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^GET \/v2\/deployments\/x\\nGET \/v2\/deployments 200 1\.0ms\\r\\x1b\[2J\\u202e\\\\ \d{3} [\d.]+ms$/);
    expect(running.stderr()).not.toMatch(/[\x00-\x09\x0b-\x1f\u202e]/);
    expect(await stop(running)).toBe(0);
  });
});

describe('the data dir persists across restarts; --reset wipes it', () => {
  test('same key and deployments after a restart, a new key and none after --reset', async () => {
    const dataDir = tempDataDir();
    const first = await cli(['--port', '0', '--data-dir', dataDir]);
    const created = Deployment.parse(
      (await new RawApi(first.url, first.keyLine).post('/v2/deployments', dockerBody())).body,
    );
    expect(await stop(first)).toBe(0);

    const second = await cli(['--port', '0', '--data-dir', dataDir]);
    expect(second.keyLine).toBe(first.keyLine);
    expect((await new RawApi(second.url, second.keyLine).get(`/v2/deployments/${created.id}`)).status).toBe(200);
    expect(await stop(second)).toBe(0);

    const reset = await cli(['--port', '0', '--data-dir', dataDir, '--reset']);
    expect(reset.keyLine).not.toBe(first.keyLine);
    const api = new RawApi(reset.url, reset.keyLine);
    expect((await api.get(`/v2/deployments/${created.id}`)).status).toBe(404);
    expect((await api.get('/v2/deployments', { key: first.keyLine })).status).toBe(401);
  });
  test('--reset refuses a directory that is not a platform data dir', async () => {
    const dataDir = tempDataDir();
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'keep me');
    const result = await runCliToEnd(['--port', '0', '--data-dir', dataDir, '--reset']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to reset');
    expect(fs.readFileSync(path.join(dataDir, 'notes.txt'), 'utf8')).toBe('keep me');
  });
});

describe('--api-key and AGENTPLATFORM_LOCAL_API_KEYS', () => {
  test('every given key works, none is printed, no key is generated', async () => {
    const dataDir = tempDataDir();
    const running = await cli([
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--api-key',
      'first-key-0001',
      '--api-key',
      'second-key-0002',
    ]);
    expect(running.stdout()).not.toContain('first-key-0001');
    expect(running.stdout()).not.toContain('second-key-0002');
    for (const key of ['first-key-0001', 'second-key-0002']) {
      expect((await new RawApi(running.url, key).get('/v2/deployments')).status).toBe(200);
    }
    expect((await new RawApi(running.url, 'third-key-0003').get('/v2/deployments')).status).toBe(401);
    expect(fs.existsSync(path.join(dataDir, 'dev-api-key'))).toBe(false);
  });
  test('the environment variables stand in for the flags', async () => {
    const dataDir = tempDataDir();
    const env = childEnv({
      AGENTPLATFORM_LOCAL_PORT: '0',
      AGENTPLATFORM_LOCAL_DATA_DIR: dataDir,
      AGENTPLATFORM_LOCAL_API_KEYS: 'env-key-0001,env-key-0002',
    });
    const running = await cli([], env);
    expect((await new RawApi(running.url, 'env-key-0002').get('/v2/deployments')).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'platform.db'))).toBe(true);
  });
});

describe('--sandbox-template', () => {
  test('adds the templates of a JSON file to the default workspace', async () => {
    const dataDir = tempDataDir();
    const file = path.join(tempDataDir(), 'template.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        name: 'rust-1.80',
        image: 'rust:1.80-slim',
        resources: { cpu: '2', memory: '4Gi', storage: '20Gi' },
      }),
    );
    const running = await cli(['--port', '0', '--data-dir', dataDir, '--sandbox-template', file]);
    const list = SandboxTemplatesList.parse(
      (await new RawApi(running.url, running.keyLine).get('/v2/sandboxes/templates')).body,
    );
    expect(list.templates.map((t) => t.name)).toEqual(['python-3.12', 'node-22', 'rust-1.80']);
  });
});

describe('bad usage', () => {
  test.each([[['--port', 'eighty']], [['--port', '99999']], [['--api-key', 'short']], [['--no-such-flag']], [['--timings', '{"brewingMs": 5}']]])(
    '%j exits with 2 and the usage text',
    async (args) => {
      const result = await runCliToEnd([...args, '--data-dir', tempDataDir()]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage: agentplatform-local');
      expect(result.stdout).toBe('');
    },
  );
});

describe('bad usage never repeats what may be a secret', () => {
  const SECRET = 'lp_SECRET-0123456789abcdefghijklmnop';

  test('an argument that is not an option is named by its place, not repeated', async () => {
    expect(() => parseCli([SECRET], {})).toThrow(/^argument 1 is neither an option nor the value of one \(it is not repeated here/);
    expect(() => parseCli(['--port', '0', '--api-key=', SECRET], {})).toThrow(
      /^argument 4 is neither an option nor the value of one .*; --api-key= has an empty value: write --api-key=VALUE, without a space$/,
    );
    expect(() => parseCli(['--verbose', '--', SECRET], {})).toThrow(/^argument 3 is neither/);
    const result = await runCliToEnd(['--port', '0', '--data-dir', tempDataDir(), '--api-key=', SECRET]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('argument 6 is neither an option nor the value of one');
    expect(result.stderr).not.toContain('SECRET');
  });

  test('a template file that is not JSON is named with the place of the mistake only, not the text around it', async () => {
    const file = path.join(tempDataDir(), 'bad.json');
    fs.writeFileSync(file, `{"name": "x", "image": "i",\n  "proxy_config": {"rules": [{"name": "api", "match_hosts": ["h"], "inject_headers": {"Authorization": Bearer ${SECRET}}}]}}\n`);
    const result = await runCliToEnd(['--port', '0', '--data-dir', tempDataDir(), '--sandbox-template', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--sandbox-template ${file}: not valid JSON: the mistake is at line 2, column 104`);
    expect(result.stderr).not.toMatch(/SECRET|Bearer/);
  });

  test('a template whose header name is a whole header, secret included, is refused without the name', async () => {
    const file = path.join(tempDataDir(), 'pasted.json');
    const rule = { name: 'api', match_hosts: ['api.example.com'], inject_headers: { [`Authorization: Bearer ${SECRET}`]: '' } };
    fs.writeFileSync(file, JSON.stringify({ name: 'with-creds', image: 'python:3.12', proxy_config: { rules: [rule] } }));
    const result = await runCliToEnd(['--port', '0', '--data-dir', tempDataDir(), '--sandbox-template', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--sandbox-template: proxy_config.rules.0.inject_headers: the name of header 1 is not an HTTP token (its character 14, ":", is not allowed;',
    );
    expect(result.stderr).not.toMatch(/SECRET|Bearer/);
  });
});

describe('bad usage, named by where it came from', () => {
  test('a bad port from the environment names the variable; an empty --data-dir is refused, not taken as the working directory', async () => {
    const fromEnv = await runCliToEnd(['--data-dir', tempDataDir()], childEnv({ AGENTPLATFORM_LOCAL_PORT: 'abc' }));
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("AGENTPLATFORM_LOCAL_PORT must be a port number from 0 to 65535 (0: any free port), got 'abc'");
    const emptyDir = await runCliToEnd(['--port', '0', '--data-dir', '']);
    expect(emptyDir.code).toBe(2);
    expect(emptyDir.stderr).toContain('--data-dir must not be empty');
    const shortKey = await runCliToEnd(['--port', '0', '--data-dir', tempDataDir()], childEnv({ AGENTPLATFORM_LOCAL_API_KEYS: 'tiny' }));
    expect(shortKey.code).toBe(2);
    expect(shortKey.stderr).toContain('AGENTPLATFORM_LOCAL_API_KEYS: an API key must have at least 8 characters');
    expect(shortKey.stderr).not.toContain('tiny');
  });

  test.each([
    ['--step-ms', 'AGENTPLATFORM_LOCAL_STEP_MS', 'abc', "AGENTPLATFORM_LOCAL_STEP_MS must be a whole number of milliseconds, got 'abc'"],
    ['--delete-delay-ms', 'AGENTPLATFORM_LOCAL_DELETE_DELAY_MS', 'x', "AGENTPLATFORM_LOCAL_DELETE_DELAY_MS must be a whole number of milliseconds, got 'x'"],
    ['--timings', 'AGENTPLATFORM_LOCAL_TIMINGS', '{"x":1}', "AGENTPLATFORM_LOCAL_TIMINGS: unknown key 'x'"],
    ['--timings', 'AGENTPLATFORM_LOCAL_TIMINGS', '[1]', 'AGENTPLATFORM_LOCAL_TIMINGS must be a JSON object'],
  ])('a bad %s from the environment names %s', (flag, variable, value, message) => {
    expect(() => parseCli([], { [variable]: value })).toThrow(message);
    expect(() => parseCli([flag, value], {})).toThrow(message.replace(variable, flag));
  });

  test('a template file named by the environment that cannot be read names the variable', async () => {
    const missing = path.join(tempDataDir(), 'missing.json');
    const result = await runCliToEnd(['--port', '0', '--data-dir', tempDataDir()], childEnv({ AGENTPLATFORM_LOCAL_SANDBOX_TEMPLATES: missing }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`AGENTPLATFORM_LOCAL_SANDBOX_TEMPLATES ${missing}: ENOENT`);
  });

  test('a data dir in use by a running platform is refused, and its --reset deletes nothing', async () => {
    const dataDir = tempDataDir();
    const running = await cli(['--port', '0', '--data-dir', dataDir]);
    const second = await runCliToEnd(['--port', '0', '--data-dir', dataDir, '--reset']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is in use by process ${running.child.pid}`);
    expect((await new RawApi(running.url, running.keyLine).get('/v2/deployments')).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'platform.db'))).toBe(true);
    expect(await stop(running)).toBe(0);
  });
});

describe('one platform per data dir, across processes', () => {
  test('the data dir of a platform killed with SIGKILL is free at once', async () => {
    const dataDir = tempDataDir();
    const killed = await cli(['--port', '0', '--data-dir', dataDir]);
    expect(await stop(killed, 'SIGKILL')).toBe('SIGKILL');
    const next = await cli(['--port', '0', '--data-dir', dataDir]);
    expect((await new RawApi(next.url, next.keyLine).get('/v2/deployments')).status).toBe(200);
    expect(await stop(next)).toBe(0);
  });

  test.each([
    ['a crashed platform left', false],
    ['an earlier version\'s stale text lock is in', true],
  ])('of platforms started together on a data dir %s, exactly one runs', async (_case, legacy) => {
    const dataDir = tempDataDir();
    const killed = await cli(['--port', '0', '--data-dir', dataDir]);
    expect(await stop(killed, 'SIGKILL')).toBe('SIGKILL');
    // the lock file of an earlier version: a text pid, of a process that is gone
    if (legacy) fs.writeFileSync(path.join(dataDir, 'platform.lock'), '2147483646\n');
    const attempts = await Promise.allSettled([0, 1, 2, 3].map(() => cli(['--port', '0', '--data-dir', dataDir])));
    const running = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    expect(running).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect(String(attempt.reason)).toMatch(/CLI exited \(1\) before it was ready.*is in use by (process \d+|another process)/s);
    }
    expect((await new RawApi(running[0].url, running[0].keyLine).get('/v2/deployments')).status).toBe(200);
    expect(await stop(running[0])).toBe(0);
  });
});

describe('generate-runs', () => {
  const range = ['--project', 'demo', '--start', '2024-05-01T00:00:00Z', '--end', '2024-05-02T00:00:00Z'];

  test('writes runs into the default workspace; a count beyond the limit and an unknown workspace are usage errors', async () => {
    const dataDir = tempDataDir();
    const ok = await runCliToEnd(['generate-runs', ...range, '--count', '20', '--data-dir', dataDir]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^generated 20 runs in project "demo"/);

    const huge = await runCliToEnd(['generate-runs', ...range, '--count', '99999999999999999999', '--data-dir', dataDir]);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain("--count must be at most 100,000,000, got '99999999999999999999'");

    const tenant = '7c1f4e2a-0d3b-4a5c-8e6f-9a0b1c2d3e4f';
    const unknown = await runCliToEnd(['generate-runs', ...range, '--count', '5', '--tenant-id', tenant, '--data-dir', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`--tenant-id ${tenant} is not a workspace of the platform in ${dataDir}`);
  });

  test('a data dir that cannot be opened ends with its message and exit 1, without a stack trace', async () => {
    const file = path.join(tempDataDir(), 'a-file');
    fs.writeFileSync(file, 'not a directory');
    const result = await runCliToEnd(['generate-runs', ...range, '--count', '5', '--data-dir', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^generate-runs: EEXIST/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('s3', () => {
  test('serves an S3-compatible endpoint with the bucket a destination names, until SIGTERM; objects stay in its directory', async () => {
    const dir = path.join(tempDataDir(), 's3');
    const child = spawn(process.execPath, [CLI_BIN, 's3', '--port', '0', '--dir', dir, '--bucket', 'exports'], { cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let out = '';
    const endpoint = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const ready = /^in-process S3 server ready at (http:\/\/127\.0\.0\.1:\d+) \(buckets: exports\)\n.*\n/m.exec(out);
        if (ready) resolve(ready[1]!);
      });
      void exited.then((code) => reject(new Error(`exited (${code}) before it was ready: ${out}`)));
    });
    expect(out).toContain('access key id: S3RVER; any secret access key; path-style addressing');
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'any' } });
    await client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'p/x.txt', Body: 'kept' }));
    client.destroy();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(fs.readdirSync(path.join(dir, 'exports', 'p')).some((name) => name.startsWith('x.txt'))).toBe(true);

    const bad = await runCliToEnd(['s3', '--port', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a whole number from 0 to 65535; got many');
  });
});
