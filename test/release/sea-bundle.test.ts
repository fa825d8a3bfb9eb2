/**
 * The provider bundle of the single executable: a small main script with the handshake path, the RPC layer as an
 * asset, and the layer's GetProviderSchema answer prepared at build time as another. Outside an executable the main
 * script reads the assets from beside it, which lets this test run the bundle as terraform would, without building an
 * executable: handshake, then GetProviderSchema over mutual TLS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../lib/provider/main';
import { createServerCertificate } from '../../lib/provider/plugin/certificate';
import { bundleProviderForSea } from '../../scripts/release/bundle';
import { RPC_ASSET, SCHEMA_ASSET } from '../../scripts/release/sea-rpc';
import type * as RpcLayer from '../../lib/provider/rpc-layer';

const HANDSHAKE = /^1\|6\|unix\|([^|]+)\|grpc\|([A-Za-z0-9+/]+)\n$/;
const terraform = createServerCertificate();
const dir = mkdtempSync(join(tmpdir(), 'sea-bundle-test-'));
const children: ChildProcess[] = [];

afterAll(() => {
  children.forEach((child) => child.kill('SIGKILL'));
  rmSync(dir, { recursive: true, force: true });
});

function launch(main: string): Promise<{ socketPath: string; certDer: Buffer; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '5,6',
      PLUGIN_UNIX_SOCKET_DIR: dir,
      PLUGIN_CLIENT_CERT: terraform.certPem,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => {
      const m = HANDSHAKE.exec(chunk.toString());
      if (m) resolve({ socketPath: m[1]!, certDer: Buffer.from(m[2]!, 'base64'), exited });
      else reject(new Error(`unexpected handshake ${JSON.stringify(chunk.toString())}`));
    });
    child.once('exit', (code) => reject(new Error(`the bundle exited with ${code}: ${stderr}`)));
  });
}

/** One unary call as terraform makes it; resolves with the grpc-status and the response message. */
function call(socketPath: string, certDer: Buffer, path: string): Promise<{ status: string | undefined; message: Buffer }> {
  const session = http2.connect('https://localhost', {
    path: socketPath,
    ca: new X509Certificate(certDer).toString(),
    cert: terraform.certPem,
    key: terraform.keyPem,
  });
  session.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc' });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('trailers', (t) => (status = String(t['grpc-status'])));
    stream.on('error', reject);
    stream.on('close', () => {
      session.close();
      resolve({ status, message: Buffer.concat(chunks).subarray(5) });
    });
    stream.end(Buffer.alloc(5));
  });
}

describe('the single executable bundle', () => {
  const bundle = bundleProviderForSea({ outDir: join(dir, 'bundle'), version: '9.8.7' });

  it('keeps the RPC layer out of the main script, as an asset', () => {
    expect(Object.keys(bundle.assets)).toEqual([RPC_ASSET, SCHEMA_ASSET]);
    const main = readFileSync(bundle.main, 'utf8');
    const rpc = readFileSync(bundle.assets[RPC_ASSET]!, 'utf8');
    expect(main).toContain('TF_PLUGIN_MAGIC_COOKIE');
    expect(main).not.toContain('agentplatform_deployment');
    expect(rpc).toContain('agentplatform_deployment');
    expect(statSync(bundle.main).size).toBeLessThan(100 * 1024);
    // undici's index (fetch, WebSocket, mocks) stays out: the API clients use its Agent alone
    expect(rpc).not.toContain('MockAgent');
    expect(rpc).toContain('"9.8.7"');
  });

  it('reaches the handshake and serves the schema from the asset', async () => {
    const { socketPath, certDer } = await launch(bundle.main);
    const schema = await call(socketPath, certDer, '/tfplugin6.Provider/GetProviderSchema');
    expect(schema.status).toBe('0');
    expect(schema.message.toString('latin1')).toContain('agentplatform_deployment');
    expect((await call(socketPath, certDer, '/plugin.GRPCController/Shutdown')).status).toBe('0');
  });

  it('prepares the RPC layer\'s own GetProviderSchema answer, byte for byte', async () => {
    const { ProviderServer, grpcMethods, registry } = require(bundle.assets[RPC_ASSET]!) as typeof RpcLayer;
    const log = { enabled: () => false, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    const method = grpcMethods(new ProviderServer({ registry, log }), () => {})('/tfplugin6.Provider/GetProviderSchema');
    if (method?.kind !== 'unary') throw new Error('GetProviderSchema is not a unary method');
    const answer = await method.call(Buffer.alloc(0));
    expect(readFileSync(bundle.assets[SCHEMA_ASSET]!).equals(answer)).toBe(true);
    expect(answer.toString('latin1')).toContain('agentplatform_deployment');
  });

  it('serves terraform\'s schema launch (the schema, then Shutdown) without loading the RPC layer', async () => {
    // without the layer beside it, loading it would crash the process: only the prepared answer can serve
    const alone = join(dir, 'without-layer');
    mkdirSync(alone);
    copyFileSync(bundle.main, join(alone, 'provider-sea.js'));
    copyFileSync(bundle.assets[SCHEMA_ASSET]!, join(alone, SCHEMA_ASSET));
    const { socketPath, certDer, exited } = await launch(join(alone, 'provider-sea.js'));
    const schema = await call(socketPath, certDer, '/tfplugin6.Provider/GetProviderSchema');
    expect(schema.status).toBe('0');
    expect(schema.message.equals(readFileSync(bundle.assets[SCHEMA_ASSET]!))).toBe(true);
    expect((await call(socketPath, certDer, '/plugin.GRPCController/Shutdown')).status).toBe('0');
    expect(await exited).toBe(0);
  });
});
