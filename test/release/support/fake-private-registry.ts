/**
 * The publishing half of an HCP Terraform private registry's API, on loopback, as HashiCorp documents it (GPG keys,
 * private providers, provider versions and platforms, and the upload URLs their answers link): enough to run the
 * upload steps of docs/provider.md against it. Every request body is checked against the documented attributes; a
 * request that breaks one gets a 422, as the registry answers, so `curl -f` fails the script.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stored upload: its SHA-256 (hex) and size, not its bytes (the zips are tens of MB each). */
export interface Upload {
  readonly sha256: string;
  readonly size: number;
}

/** A provider version as registered, with what was uploaded for it. */
export interface RegisteredVersion {
  readonly keyId: string;
  readonly protocols: readonly string[];
  sums?: Upload;
  signature?: Upload;
  readonly platforms: { os: string; arch: string; filename: string; shasum: string; binary?: Upload }[];
}

/** What the registry holds, for the test to check. */
export interface RegistryState {
  /** Uploaded public keys (ASCII armor) by their key id (16 hex digits, as gpg shows a long key id). */
  readonly keys: Map<string, string>;
  /** Private providers by `<namespace>/<name>`. */
  readonly providers: Set<string>;
  /** Versions by `<namespace>/<name>/<version>`. */
  readonly versions: Map<string, RegisteredVersion>;
}

/** A running fake registry. */
export interface FakePrivateRegistry {
  /** `http://127.0.0.1:<port>`: where `https://app.terraform.io` is in the docs. */
  readonly origin: string;
  readonly state: RegistryState;
  close(): Promise<void>;
}

class Refused extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The long key id of an armored public key, read by gpg (in `gpgHome`, which it may write to). */
function keyIdOf(armor: string, gpgHome: string): string {
  const listing = execFileSync('gpg', ['--homedir', gpgHome, '--batch', '--with-colons', '--import-options', 'show-only', '--import'], {
    input: armor,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pub = listing.split('\n').find((line) => line.startsWith('pub:'));
  if (!pub) throw new Refused(422, 'ascii-armor is not a public key');
  return pub.split(':')[4]!;
}

/** The `data.attributes` of a JSON:API document of `type`, each of `required` a non-empty string or array. */
function attributes(body: string, type: string, required: readonly string[]): Record<string, unknown> {
  let document: { data?: { type?: unknown; attributes?: Record<string, unknown> } };
  try {
    document = JSON.parse(body) as typeof document;
  } catch {
    throw new Refused(400, 'the body is not JSON');
  }
  if (document.data?.type !== type) throw new Refused(422, `data.type must be "${type}"`);
  const attrs = document.data.attributes ?? {};
  for (const name of required) {
    const value = attrs[name];
    if (!(typeof value === 'string' || Array.isArray(value)) || value.length === 0) throw new Refused(422, `data.attributes.${name} is required`);
  }
  return attrs;
}

/** Starts the registry for organization `org`, accepting API token `token`; `gpgHome` is a folder gpg may use. */
export async function startFakePrivateRegistry(org: string, token: string, gpgHome: string): Promise<FakePrivateRegistry> {
  const state: RegistryState = { keys: new Map(), providers: new Set(), versions: new Map() };
  const uploads = new Map<string, (upload: Upload) => void>();
  let origin = '';
  let nextUpload = 0;
  const uploadUrl = (store: (upload: Upload) => void): string => {
    const id = `object-${++nextUpload}`;
    uploads.set(id, store);
    return `${origin}/v1/object/${id}`;
  };

  const api = (method: string, path: string, body: string): { status: number; document: unknown } => {
    if (method !== 'POST') throw new Refused(405, 'only the publishing calls are here');
    if (path === '/api/registry/private/v2/gpg-keys') {
      const attrs = attributes(body, 'gpg-keys', ['namespace', 'ascii-armor']);
      if (attrs.namespace !== org) throw new Refused(403, 'the namespace must be the organization');
      const keyId = keyIdOf(attrs['ascii-armor'] as string, gpgHome);
      state.keys.set(keyId, attrs['ascii-armor'] as string);
      return { status: 201, document: { data: { type: 'gpg-keys', attributes: { ...attrs, 'key-id': keyId } } } };
    }
    if (path === `/api/v2/organizations/${org}/registry-providers`) {
      const attrs = attributes(body, 'registry-providers', ['name', 'namespace', 'registry-name']);
      if (attrs.namespace !== org || attrs['registry-name'] !== 'private') throw new Refused(422, 'a private provider lives in the organization namespace');
      state.providers.add(`${org}/${attrs.name as string}`);
      return { status: 201, document: { data: { type: 'registry-providers', attributes: attrs } } };
    }
    const versionPath = new RegExp(`^/api/v2/organizations/${org}/registry-providers/private/${org}/([^/]+)/versions(?:/([^/]+)/platforms)?$`).exec(path);
    if (!versionPath || !state.providers.has(`${org}/${versionPath[1]!}`)) throw new Refused(404, `no such endpoint or provider: ${path}`);
    const provider = `${org}/${versionPath[1]!}`;
    if (versionPath[2] === undefined) {
      const attrs = attributes(body, 'registry-provider-versions', ['version', 'key-id', 'protocols']);
      if (!/^\d+\.\d+\.\d+/.test(attrs.version as string)) throw new Refused(422, 'version must be semver');
      if (!state.keys.has(attrs['key-id'] as string)) throw new Refused(422, `no GPG key ${String(attrs['key-id'])} in the organization`);
      const protocols = attrs.protocols as unknown[];
      if (!protocols.every((p) => typeof p === 'string' && ['4.0', '5.0', '6.0'].includes(p))) throw new Refused(422, 'protocols must be among 4.0, 5.0, 6.0');
      const version: RegisteredVersion = { keyId: attrs['key-id'] as string, protocols: protocols as string[], platforms: [] };
      state.versions.set(`${provider}/${attrs.version as string}`, version);
      const links = { 'shasums-upload': uploadUrl((u) => (version.sums = u)), 'shasums-sig-upload': uploadUrl((u) => (version.signature = u)) };
      return { status: 201, document: { data: { type: 'registry-provider-versions', attributes: attrs, links } } };
    }
    const version = state.versions.get(`${provider}/${versionPath[2]}`);
    if (!version) throw new Refused(404, `no version ${versionPath[2]}`);
    const attrs = attributes(body, 'registry-provider-platforms', ['os', 'arch', 'shasum', 'filename']);
    if (!/^[0-9a-f]{64}$/.test(attrs.shasum as string)) throw new Refused(422, 'shasum must be a SHA-256 in hex');
    const platform = { os: attrs.os as string, arch: attrs.arch as string, filename: attrs.filename as string, shasum: attrs.shasum as string, binary: undefined as Upload | undefined };
    version.platforms.push(platform);
    const links = { 'provider-binary-upload': uploadUrl((u) => (platform.binary = u)) };
    return { status: 201, document: { data: { type: 'registry-provider-platforms', attributes: attrs, links } } };
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    try {
      const upload = /^\/v1\/object\/(.+)$/.exec(path);
      if (upload) {
        const store = uploads.get(upload[1]!);
        if (req.method !== 'PUT' || !store) throw new Refused(404, 'no such upload');
        uploads.delete(upload[1]!);
        store({ sha256: createHash('sha256').update(body).digest('hex'), size: body.length });
        res.writeHead(200).end();
        return;
      }
      if (req.headers.authorization !== `Bearer ${token}`) throw new Refused(401, 'unauthorized');
      if (req.headers['content-type'] !== 'application/vnd.api+json') throw new Refused(415, 'the content type must be application/vnd.api+json');
      const { status, document } = api(req.method ?? '', path, body.toString('utf8'));
      res.writeHead(status, { 'Content-Type': 'application/vnd.api+json' }).end(JSON.stringify(document));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      res.writeHead(error.status, { 'Content-Type': 'application/vnd.api+json' }).end(JSON.stringify({ errors: [{ status: String(error.status), detail: error.message }] }));
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    state,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
