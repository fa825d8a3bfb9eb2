/**
 * A store that writes back the session token a request was signed with, in its error message: no piece of the token
 * reaches the answer of destination validation, an export run's errors, the platform's log or its data dir, however
 * long the token (the platform cuts the store's message short) and whoever the credentials belong to (a destination
 * without credentials is sent with the host's: another organization's secret for the workspace that sees the error).
 * Real HTTP on loopback, SQLite, s3rver behind a fault proxy, and a small store that echoes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTracingPlatform, type TracingPlatform } from './support/platform';
import { startScenario, type Scenario } from './support/scenario';

/** Characters in a row of a secret that count as a leak (the redactor's piece length). */
const PIECE = 16;

/** An STS-like session token: 600 characters of Base64 (real ones run from about 400 to over 1,000). */
const longToken = (): string => `IQoJb3JpZ2luX2VjE${randomBytes(600).toString('base64').replace(/[^A-Za-z0-9]/g, '')}`.slice(0, 600);

/** The first run of {@link PIECE} characters of `secret` found in `text`, if any. */
function leakedPiece(secret: string, text: string): string | undefined {
  const pieces = new Set<string>();
  for (let at = 0; at + PIECE <= secret.length; at++) pieces.add(secret.slice(at, at + PIECE));
  for (let at = 0; at + PIECE <= text.length; at++) if (pieces.has(text.slice(at, at + PIECE))) return text.slice(at, at + PIECE);
  return undefined;
}

/** Every file of the data dir (database, its WAL), as text. */
const dataDirText = (dir: string): string => readdirSync(dir).map((file) => readFileSync(join(dir, file), 'latin1')).join('\n');

/** A store that refuses every request with `status`, writing back the request's session token. */
async function startEchoStore(status: number, code: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'echo' });
      res.end(`<Error><Code>${code}</Code><Message>Backend rejected session ${String(req.headers['x-amz-security-token'])}</Message></Error>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** POST /api/v1/bulk-exports/destinations over HTTP with `apiKey`, as any client sees the answer. */
async function createDestinationRaw(platform: TracingPlatform, apiKey: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${platform.url}/api/v1/bulk-exports/destinations`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const AWS_VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE'];
const savedEnv = Object.fromEntries(AWS_VARIABLES.map((name) => [name, process.env[name]]));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const name of AWS_VARIABLES) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

/**
 * Makes the store fail an export's first attempt with an error that echoes the session token; checks the run keeps that
 * error redacted, and returns the API's answer for the export's runs.
 */
async function runsAfterEchoedToken(scenario: Scenario): Promise<string> {
  scenario.proxy.setMode('fail-echoing-token', 'export_id');
  const exp = await scenario.createExport(1);
  const [run] = await scenario.runsWhere(exp.id, (runs) => runs[0].retry_number === 1);
  expect(run.errors.retry_0).toMatch(/^Storage unavailable: InternalError \(HTTP 500\): Backend rejected session \[REDACTED\]/);
  return (await fetch(`${scenario.platform.url}/api/v1/bulk-exports/${exp.id}/runs`, { headers: { 'x-api-key': scenario.platform.apiKey } })).text();
}

describe('a long session token written back by the store', () => {
  test.each([
    [400, 'InvalidArgument', 'The store refused the test object'],
    [500, 'InternalError', 'The destination could not be validated, try again later'],
  ])('validation answered %i: the detail quotes the store without any piece of the token', async (status, code, start) => {
    const token = longToken();
    const platform = await startTracingPlatform();
    cleanups.push(() => platform.close());
    const store = await startEchoStore(status, code);
    cleanups.push(() => store.close());
    const answer = await createDestinationRaw(platform, platform.apiKey, {
      display_name: 'echo',
      config: { bucket_name: 'exports', prefix: 'p', endpoint_url: store.endpoint },
      credentials: { access_key_id: 'AKIDECHO', secret_access_key: 'echo-secret-access-key-0123456789', session_token: token },
    });
    expect(answer.status).toBe(status === 400 ? 400 : 503);
    expect(JSON.parse(answer.text).detail).toMatch(new RegExp(`^${start} \\(${code} \\(HTTP ${status}\\): Backend rejected session \\[REDACTED\\]`));
    expect([leakedPiece(token, answer.text), leakedPiece(token, platform.logs.join('\n'))]).toEqual([undefined, undefined]);
  });

  test('an export run keeps, logs and shows the error without any piece of it, and the data dir holds none', async () => {
    const token = longToken();
    const scenario: Scenario = await startScenario({ days: 1, sessionToken: token });
    cleanups.push(() => scenario.close());
    const answer = await runsAfterEchoedToken(scenario);
    const logs = scenario.platform.logs.join('\n');
    expect(logs).toContain('Backend rejected session [REDACTED]');
    scenario.platform.db.pragma('wal_checkpoint(TRUNCATE)');
    const places = { answer, logs, dataDir: dataDirText(scenario.platform.dataDir) };
    expect(Object.entries(places).map(([place, text]) => [place, leakedPiece(token, text)])).toEqual(Object.keys(places).map((place) => [place, undefined]));
  });
});

describe("a destination without credentials: the host's are never shown to the workspace", () => {
  test("the environment's session token, written back at validation, is not in another organization's answer", async () => {
    const token = longToken();
    process.env.AWS_ACCESS_KEY_ID = 'AKIAHOSTKEY';
    process.env.AWS_SECRET_ACCESS_KEY = 'host-secret-access-key-0123456789';
    process.env.AWS_SESSION_TOKEN = token;
    const platform = await startTracingPlatform();
    cleanups.push(() => platform.close());
    const store = await startEchoStore(500, 'InternalError');
    cleanups.push(() => store.close());
    const other = platform.auth.createOrganization('tenant-b');
    const answer = await createDestinationRaw(platform, other.apiKey, {
      display_name: 'host credentials',
      config: { bucket_name: 'exports', prefix: 'p', endpoint_url: store.endpoint },
    });
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text).detail).toContain('Backend rejected session [REDACTED]');
    expect(leakedPiece(token, answer.text)).toBeUndefined();
  });

  test('credentials the default chain resolves from a profile (not the environment) stay out of run errors, log and data dir', async () => {
    const token = longToken();
    const secret = `host-profile-secret-${randomBytes(12).toString('hex')}`;
    const dir = mkdtempSync(join(tmpdir(), 'host-credentials-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'credentials'), `[host]\naws_access_key_id = S3RVER\naws_secret_access_key = ${secret}\naws_session_token = ${token}\n`);
    for (const name of AWS_VARIABLES) delete process.env[name];
    Object.assign(process.env, { AWS_PROFILE: 'host', AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'), AWS_CONFIG_FILE: join(dir, 'config') });
    const scenario: Scenario = await startScenario({ days: 1, hostCredentials: true });
    cleanups.push(() => scenario.close());
    const answer = await runsAfterEchoedToken(scenario);
    scenario.platform.db.pragma('wal_checkpoint(TRUNCATE)');
    const places = { answer, logs: scenario.platform.logs.join('\n'), dataDir: dataDirText(scenario.platform.dataDir) };
    expect(Object.entries(places).map(([place, text]) => [place, leakedPiece(token, text), text.includes(secret)])).toEqual(
      Object.keys(places).map((place) => [place, undefined, false]),
    );
  });
});
