/**
 * The usual cast of an export test: an S3 server behind a fault proxy, a platform on a manual clock, a project with
 * runs on consecutive UTC days, and a destination that writes through the proxy.
 */
import { isFinalBulkExportStatus, type BulkExportRecord as BulkExport, type BulkExportRunRecord as BulkExportRun, type BulkExportStatus } from '../../../lib/api/schemas/bulk-export';
import { ManualClock } from '../../../lib/local/clock';
import type { TracingSettings } from '../../../lib/local/tracing/module';
import { MICROS_PER_DAY, toMicros } from '../../../lib/local/tracing/store/time';
import { generateSyntheticRuns } from '../../../lib/local/tracing/synthetic/generate';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { startTracingPlatform, type TracingPlatform } from './platform';
import { startTestS3, type TestS3 } from './s3';
import { waitFor } from './wait';

export const BUCKET = 'exports';
/** The first day of the generated runs. */
export const FIRST_DAY = '2024-01-01T00:00:00Z';
/** The manual clock starts well after the data, so schedules and deadlines are in the future of nothing. */
export const CLOCK_START = Date.parse('2024-06-01T00:00:00Z');

export interface Scenario {
  readonly s3: TestS3;
  readonly proxy: FaultProxy;
  readonly clock: ManualClock;
  readonly platform: TracingPlatform;
  readonly sessionId: string;
  readonly destinationId: string;
  /** A one-off export of `days` days from FIRST_DAY (one run per day). */
  createExport(days: number, extra?: Record<string, unknown>): Promise<BulkExport>;
  /** Waits until the export's status satisfies `accept`. */
  exportStatus(id: string, accept: (status: BulkExportStatus) => boolean): Promise<BulkExport>;
  /** Waits until `predicate` holds for the export's runs, and returns them. */
  runsWhere(id: string, predicate: (runs: BulkExportRun[]) => boolean): Promise<BulkExportRun[]>;
  close(): Promise<void>;
}

/** Whether an export status is final (Completed, Failed, Cancelled or TimedOut). */
export const isFinal = isFinalBulkExportStatus;

/** Options of {@link startScenario}. */
export interface ScenarioOptions {
  readonly days?: number;
  readonly runsPerDay?: number;
  readonly settings?: Partial<TracingSettings>;
  readonly dataDir?: string;
  /** A session token for the destination's credentials. */
  readonly sessionToken?: string;
  /** A destination without credentials: the host's, from the SDK's default chain (the test sets them up). */
  readonly hostCredentials?: boolean;
}

export async function startScenario(options: ScenarioOptions = {}): Promise<Scenario> {
  const s3 = await startTestS3([BUCKET]);
  const proxy = await startFaultProxy(s3.server.endpoint);
  const clock = new ManualClock(CLOCK_START);
  const { writer, ...rest } = options.settings ?? {};
  const platform = await startTracingPlatform({
    clock,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    settings: { ...rest, writer: { rowGroupRows: 50, maxRowsPerFile: 100, s3: { maxAttempts: 1 }, ...writer } },
  });
  const days = options.days ?? 2;
  const session = await platform.client.createSession({ name: `project-${Math.random().toString(36).slice(2)}` });
  generateSyntheticRuns(platform.stores.runs, {
    tenantId: platform.tenantId,
    sessionId: session.id,
    count: days * (options.runsPerDay ?? 40),
    startMicros: toMicros(FIRST_DAY),
    endMicros: toMicros(FIRST_DAY) + days * MICROS_PER_DAY - 60_000_000,
    payloadBytes: 100,
  });
  const destination = await platform.client.createDestination({
    display_name: 'through the proxy',
    config: { bucket_name: BUCKET, prefix: 'exports', endpoint_url: proxy.endpoint },
    ...(options.hostCredentials
      ? {}
      : { credentials: { ...s3.credentials, ...(options.sessionToken ? { session_token: options.sessionToken } : {}) } }),
  });
  const scenario: Scenario = {
    s3,
    proxy,
    clock,
    platform,
    sessionId: session.id,
    destinationId: destination.id,
    createExport: (exportDays, extra = {}) =>
      platform.client.createExport({
        bulk_export_destination_id: destination.id,
        session_id: session.id,
        start_time: FIRST_DAY,
        end_time: new Date(Date.parse(FIRST_DAY) + exportDays * 86_400_000).toISOString(),
        ...extra,
      }),
    exportStatus: (id, accept) =>
      waitFor(`export ${id} status`, async () => {
        const exp = await platform.client.getExport(id);
        return accept(exp.status) ? exp : undefined;
      }),
    runsWhere: (id, predicate) =>
      waitFor(`runs of export ${id}`, async () => {
        const runs = await platform.client.listExportRuns(id);
        return predicate(runs) ? runs : undefined;
      }),
    close: async () => {
      await platform.close();
      await proxy.close();
      await s3.close();
    },
  };
  return scenario;
}
