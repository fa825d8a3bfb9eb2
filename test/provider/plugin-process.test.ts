/**
 * The provider process as go-plugin sees it: the handshake line, mutual TLS with terraform's pinned certificate,
 * Shutdown, SIGINT, and crashes reported as panics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../lib/provider/main';
import { createServerCertificate } from '../../lib/provider/plugin/certificate';
import { DIST_ENTRY, EXAMPLE_ENTRY, collect, isRunning } from './support/terraform';

const terraformCert = createServerCertificate();
const HANDSHAKE = /^1\|6\|unix\|([^|]+)\|grpc\|([A-Za-z0-9+/]+)\n$/;
const socketDir = mkdtempSync(join(tmpdir(), 'plugin-process-test-'));

interface Launched {
  readonly child: ChildProcess;
  readonly line: string;
  readonly socketPath: string;
  readonly certDer: Buffer;
}

const children: ChildProcess[] = [];
afterAll(() => {
  children.forEach((c) => isRunning(c.pid!) && c.kill('SIGKILL'));
  rmSync(socketDir, { recursive: true, force: true });
});

function launch(entry = DIST_ENTRY, env: NodeJS.ProcessEnv = {}): Promise<Launched> {
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env.PATH,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '5,6',
      PLUGIN_MIN_PORT: '20000',
      PLUGIN_MAX_PORT: '20999',
      PLUGIN_UNIX_SOCKET_DIR: socketDir,
      PLUGIN_CLIENT_CERT: terraformCert.certPem,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => {
      const line = chunk.toString();
      const m = HANDSHAKE.exec(line);
      if (!m) return reject(new Error(`unexpected handshake ${JSON.stringify(line)}`));
      resolve({ child, line, socketPath: m[1]!, certDer: Buffer.from(m[2]!, 'base64') });
    });
    child.once('error', reject);
  });
}

function callShutdown(launched: Launched): Promise<string | undefined> {
  const pem = new X509Certificate(launched.certDer).toString();
  const session = http2.connect('https://localhost', { path: launched.socketPath, ca: pem, cert: terraformCert.certPem, key: terraformCert.keyPem });
  session.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': '/plugin.GRPCController/Shutdown', 'content-type': 'application/grpc' });
    let status: string | undefined;
    stream.on('trailers', (t) => (status = String(t['grpc-status'])));
    stream.on('error', reject);
    stream.on('close', () => {
      session.close();
      resolve(status);
    });
    stream.resume();
    stream.end(Buffer.alloc(5));
  });
}

describe('the provider process', () => {
  it('prints exactly the handshake line: a unix socket in a fresh folder of PLUGIN_UNIX_SOCKET_DIR and its certificate without padding', async () => {
    const launched = await launch();
    const exited = new Promise<number | null>((resolve) => launched.child.once('exit', resolve));
    expect(launched.line).toMatch(HANDSHAKE);
    expect(launched.line).not.toContain('=');
    expect(dirname(dirname(launched.socketPath))).toBe(socketDir);
    expect(statSync(launched.socketPath).isSocket()).toBe(true);
    const cert = new X509Certificate(launched.certDer);
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.ca).toBe(true);
    expect(await callShutdown(launched)).toBe('0');
    expect(await exited).toBe(0);
    // the socket's folder goes with the process
    expect(existsSync(dirname(launched.socketPath))).toBe(false);
    expect(readdirSync(socketDir).filter((name) => name.startsWith('plugin'))).toEqual([]);
  });

  it('listens on a loopback TCP port when the socket path would be too long for a unix socket', async () => {
    const deep = join(socketDir, 'x'.repeat(100));
    mkdirSync(deep, { recursive: true });
    const child = spawn(process.execPath, [DIST_ENTRY], {
      env: { PATH: process.env.PATH, [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_UNIX_SOCKET_DIR: deep, PLUGIN_CLIENT_CERT: terraformCert.certPem },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      child.once('error', reject);
    });
    child.kill('SIGKILL');
    expect(line).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]+\n$/);
    expect(readdirSync(deep)).toEqual([]);
  });

  it('ignores SIGINT and exits on GRPCController/Shutdown', async () => {
    const launched = await launch();
    const exited = new Promise<number | null>((resolve) => launched.child.once('exit', resolve));
    launched.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    expect(isRunning(launched.child.pid!)).toBe(true);

    expect(await callShutdown(launched)).toBe('0');
    expect(await exited).toBe(0);
  });

  it('reports a crash as a panic on stderr and exits with 2', async () => {
    const launched = await launch(EXAMPLE_ENTRY, { EXAMPLE_PANIC: 'something broke' });
    const result = await collect(launched.child);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^panic: something broke\nError: something broke\n\s+at /);
  });
});
