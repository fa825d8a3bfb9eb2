/**
 * A static HTTPS server in the test process, serving a folder as a provider network mirror does, with a self-signed
 * certificate for localhost and 127.0.0.1 made by the `openssl` CLI. Terraform (Go) trusts it through
 * `SSL_CERT_FILE`, which on Linux replaces the system's roots.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve, sep } from 'node:path';

/** A running mirror server. */
export interface HttpsMirror {
  /** `localhost:<port>`: the host of the mirror's URL. */
  readonly host: string;
  /** The certificate (PEM) to trust: the value for `SSL_CERT_FILE`. */
  readonly certFile: string;
  /** Every request, as `GET <path> <status>`. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** Writes a self-signed certificate and its key into `dir`; returns their paths. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'mirror-cert.pem');
  const key = join(dir, 'mirror-key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return { cert, key };
}

const CONTENT_TYPES: Readonly<Record<string, string>> = { '.json': 'application/json', '.zip': 'application/zip' };

/** Serves the files under `root` (GET and HEAD only) on 127.0.0.1, with a certificate written into `certDir`. */
export async function startHttpsMirror(root: string, certDir: string): Promise<HttpsMirror> {
  const { cert, key } = selfSignedCertificate(certDir);
  const base = resolve(root);
  const requests: string[] = [];
  const server: Server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'https://localhost').pathname);
    const file = resolve(base, `.${path}`);
    const stat = file.startsWith(base + sep) ? statSync(file, { throwIfNoEntry: false }) : undefined;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !stat?.isFile()) {
      requests.push(`${req.method ?? ''} ${path} 404`);
      res.writeHead(404).end();
      return;
    }
    requests.push(`${req.method} ${path} 200`);
    const type = CONTENT_TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': stat.size });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    host: `localhost:${port}`,
    certFile: cert,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
