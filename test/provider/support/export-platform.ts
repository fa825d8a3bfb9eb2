/**
 * The local platform for the export resource tests: `startLocalPlatform` (its tracing API under `/api/v1`) on a
 * clock the test may advance by hand, a bulk export client for its default workspace, and terraform directories
 * whose provider reaches it through the environment (URL and key never appear in a configuration or a state); and
 * what the export tests write and run against it: `agentplatform_bulk_export` blocks, a TCP proxy to the store.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BulkExportClient } from '../../../lib/api/bulk-export';
import { localBulkExport, type LocalBulkExportClient } from '../../support/complete-answers';
import type { RunCreate } from '../../../lib/api/schemas/tracing';
import type { Clock } from '../../../lib/local/clock';
import { startLocalPlatform, type LocalPlatform } from '../../../lib/local/platform';
import { DeploymentDir } from './deployment-platform';
import { DIST_ENTRY, TerraformDir } from './terraform';

/** A platform for one test file, with the directories made against it (all removed by `close`). */
export class ExportTestPlatform {
  private readonly dirs: DeploymentDir[] = [];

  private constructor(
    readonly platform: LocalPlatform,
    readonly client: LocalBulkExportClient,
    /** The platform's data dir, for a test that writes what an earlier version left in its database. */
    readonly dataDir: string,
    /** Every request line the platform logged (method, path, status). */
    readonly requests: string[],
  ) {}

  /** Starts a platform on a free port; `clock` drives its schedules (a `ManualClock` to spawn on demand). */
  static async start(clock?: Clock): Promise<ExportTestPlatform> {
    const dataDir = mkdtempSync(join(tmpdir(), 'export-platform-'));
    const requests: string[] = [];
    const platform = await startLocalPlatform({ dataDir, port: 0, ...(clock ? { clock } : {}), log: (line) => requests.push(line) });
    const client = new BulkExportClient({ baseUrl: platform.url, auth: { kind: 'api-key', apiKey: platform.devApiKey }, retry: { maxRetries: 0 } });
    return new ExportTestPlatform(platform, localBulkExport(client), dataDir, requests);
  }

  /** The environment that points the provider at this platform's tracing API. */
  providerEnv(): NodeJS.ProcessEnv {
    return { AGENTPLATFORM_TRACING_URL: this.platform.url, AGENTPLATFORM_API_KEY: this.platform.devApiKey };
  }

  /** A new terraform directory with the compiled provider, configured for this platform through the environment. */
  terraform(extraEnv: NodeJS.ProcessEnv = {}): DeploymentDir {
    const dir = new DeploymentDir(TerraformDir.create(DIST_ENTRY, { ...this.providerEnv(), ...extraEnv }));
    this.dirs.push(dir);
    return dir;
  }

  /** Ingests runs into the tracing project `project` (created on first use) and returns the project's id. */
  async seedRuns(project: string, startTimes: readonly string[]): Promise<string> {
    const runs: RunCreate[] = startTimes.map((start, i) => ({
      name: `step-${i}`,
      run_type: i % 2 ? 'llm' : 'chain',
      start_time: start,
      end_time: new Date(Date.parse(start) + 1500).toISOString(),
      session_name: project,
      status: 'success',
      inputs: { question: `question ${i}` },
      outputs: { answer: `answer ${i}` },
      total_tokens: 100 + i,
    }));
    await this.client.ingestRuns({ post: runs });
    const session = await this.client.findSessionByName(project);
    if (!session) throw new Error(`project ${project} was not created by the ingestion`);
    return session.id;
  }

  /** Stops the platform and removes every directory. */
  async close(): Promise<void> {
    this.dirs.forEach((d) => d.remove());
    await this.client.close();
    await this.platform.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The blocks of terraform's output (each `Error:`/`Warning:` to the next), for asserting on one diagnostic. */
export function diagnosticBlocks(output: string): string[] {
  return output.split(/\n(?=[│╷╵ ]*(?:Error|Warning): )/);
}

/** Every diagnostic whose summary starts with `summary`. */
export function diagnostics(output: string, summary: string): string[] {
  return diagnosticBlocks(output).filter((block) => new RegExp(`(?:Error|Warning): ${escapeRegExp(summary)}`).test(block));
}

/** The first diagnostic whose summary starts with `summary`, or undefined. */
export function diagnostic(output: string, summary: string): string | undefined {
  return diagnostics(output, summary)[0];
}

/** Text with every run of whitespace as one space (terraform wraps diagnostic text at 78 columns). */
export function flat(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An HCL value: a string (a reference when it starts with `agentplatform_`), number, bool, list or object. */
export type Hcl = string | number | boolean | string[] | { [key: string]: string };

function hcl(value: Hcl): string {
  if (typeof value === 'string') return value.startsWith('agentplatform_') ? value : JSON.stringify(value);
  if (Array.isArray(value)) return JSON.stringify(value);
  if (typeof value === 'object') return `{ ${Object.entries(value).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ')} }`;
  return String(value);
}

export function bulkExport(label: string, attributes: Record<string, Hcl>): string {
  const lines = Object.entries(attributes).map(([k, v]) => `  ${k} = ${hcl(v)}`);
  return `resource "agentplatform_bulk_export" "${label}" {\n${lines.join('\n')}\n}\n`;
}

/** A TCP proxy to Ceph's S3 port, so a destination can lose its store while the store keeps running. */
export async function startProxy(target: URL): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        sockets.forEach((socket) => socket.destroy());
      }),
  };
}
