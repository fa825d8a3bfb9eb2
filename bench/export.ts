/**
 * bench/export: synthetic runs (about 1 KB of inputs/outputs each) over 7 days (`--days`), exported as Parquet by the local
 * platform's export engine into an S3-compatible server (s3rver, in its own process so it shares neither this
 * process's CPU time nor its memory). For each size, two exports: all fields, and every field but inputs/outputs.
 *
 * Each measurement runs in a fresh process, with the V8 flags the platform's CLI sets for its own
 * (lib/local/v8-flags.ts), which makes two exports of the same runs one after the other: the first export after the
 * platform starts (its encode workers start, and V8 compiles their code as it gets hot), and the next one, as a
 * running platform makes it while its workers are still alive (they stop after 30 s idle). Both are printed:
 * rows/s, rows per CPU second of the exporting process (independent of other load on the machine), files and bytes.
 * The peak RSS is the process's over both exports; at the end, how much it grows from the smallest size to the largest.
 *
 * Each measurement is made `--repeat` times (the variants taking turns), and the median is printed with the range: the
 * machine's speed varies from run to run.
 *
 * Usage: npm run build && node dist/bench/export.js [--sizes 100000,1000000] [--days 7] [--repeat 3] [--payload-bytes 1024] [--row-group-rows 2000]
 * Goals: >= 30k rows/s with all fields, >= 100k rows/s without inputs/outputs, peak RSS <= 400 MB and flat.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { EXPORTABLE_FIELD_NAMES } from '../lib/api/schemas/trace';
import { AUTH_MIGRATIONS, AuthStore } from '../lib/local/auth';
import { systemClock } from '../lib/local/clock';
import { migrate, openDatabase } from '../lib/local/db';
import { SecretBox } from '../lib/local/secret-box';
import { DEFAULT_EXPORT_ENGINE_SETTINGS, ExportEngine } from '../lib/local/tracing/exports/engine';
import { runRangesOf } from '../lib/local/tracing/exports/plan';
import { createTracingStores } from '../lib/local/tracing/module';
import { TRACING_MIGRATIONS } from '../lib/local/tracing/store/migrations';
import { toMicros } from '../lib/local/tracing/store/time';
import { applyPlatformV8Flags } from '../lib/local/v8-flags';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const BUCKET = 'bench';
const RANGE_START = '2024-05-01T00:00:00Z';
const DAY_MS = 86_400_000;
/** The end of a range of `days` UTC days from RANGE_START. */
const rangeEnd = (days: number): string => new Date(Date.parse(RANGE_START) + days * DAY_MS).toISOString();
const MB = 1024 * 1024;
/** How often a measuring process looks whether its export has ended. */
const POLL_MS = 5;
const VARIANTS: Record<string, string[] | null> = {
  'all fields': null,
  'without inputs/outputs': EXPORTABLE_FIELD_NAMES.filter((name) => name !== 'inputs' && name !== 'outputs'),
};

/** What one measured export reports. */
interface ExportResult {
  readonly rows: number;
  readonly seconds: number;
  /** CPU time (user + system) of the exporting process during the export. */
  readonly cpuSeconds: number;
  readonly files: number;
  readonly bytes: number;
  /** The process's peak RSS from its start to the end of this export. */
  readonly peakRssMb: number;
}

/** The two exports of one measuring process. */
interface Measurement {
  /** The first export after the platform started. */
  readonly first: ExportResult;
  /** The next export, with the encode workers of the first still alive. */
  readonly next: ExportResult;
  readonly startRssMb: number;
  /** The process's peak RSS over both exports (the `next` export's). */
  readonly peakRssMb: number;
}

/** The exports of a measurement, in the order they run. */
const EXPORT_ORDER = ['first', 'next'] as const;
const EXPORT_LABEL: Record<(typeof EXPORT_ORDER)[number], string> = {
  first: 'first export after start',
  next: 'next export (workers warm)',
};

/** What the orchestrator tells a measuring process. */
interface MeasureJob {
  readonly dataDir: string;
  readonly endpoint: string;
  readonly variant: string;
  readonly rowGroupRows: number;
  readonly days: number;
}

/** Starts s3rver in a child process (the compiled in-process S3 module) and waits for its port. */
function startS3Server(directory: string): Promise<{ endpoint: string; child: ChildProcess }> {
  const s3Module = resolve(__dirname, '..', 'lib', 'local', 's3');
  const script = `require(${JSON.stringify(s3Module)}).startInProcessS3({ directory: ${JSON.stringify(directory)}, buckets: ['${BUCKET}'] })
    .then((s3) => console.log('PORT ' + s3.port))`;
  const child = spawn(process.execPath, [...process.execArgv, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolveStart, rejectStart) => {
    child.once('exit', (code) => rejectStart(new Error(`S3 server exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /PORT (\d+)/.exec(chunk.toString());
      if (match) resolveStart({ endpoint: `http://127.0.0.1:${match[1]}`, child });
    });
  });
}

function s3Client(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
}

/** Counts the files and bytes under `prefix`, then deletes them, so repeated exports do not fill the disk. */
async function takeBucketBytes(client: S3Client, prefix: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  let token: string | undefined;
  const keys: string[] = [];
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      files += 1;
      bytes += object.Size ?? 0;
      keys.push(object.Key!);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  for (let i = 0; i < keys.length; i += 1000) {
    const { Errors } = await client.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
    if (Errors?.length) throw new Error(`the S3 server kept ${Errors.length} exported files: ${Errors[0]!.Code} ${Errors[0]!.Message}`);
  }
  return { files, bytes };
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const figure = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Generates the runs with the `generate-runs` command in its own process. */
function generate(dataDir: string, size: number, days: number, payloadBytes: number): void {
  const cli = require.resolve('../lib/local/tracing/generate-cli');
  const end = new Date(Date.parse(rangeEnd(days)) - 10_000).toISOString();
  const args = ['--data-dir', dataDir, '--project', 'bench', '--count', String(size)];
  args.push('--start', RANGE_START, '--end', end, '--payload-bytes', String(payloadBytes));
  const result = spawnSync(process.execPath, [...process.execArgv, cli, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`generate-runs failed: ${result.stderr}`);
  console.log(`\n${result.stdout.trim()} (${payloadBytes} B of inputs+outputs each)`);
}

/** Child process mode: two exports of the data dir, one after the other, with one engine; prints both as JSON. */
async function measure(job: MeasureJob): Promise<void> {
  // this process stands for the platform's, which its CLI starts with these V8 settings
  applyPlatformV8Flags();
  const db = openDatabase(job.dataDir);
  const migrations = [AUTH_MIGRATIONS, TRACING_MIGRATIONS];
  migrate(db, migrations);
  // the data dir's default workspace, which generate-runs wrote the runs into
  const tenant = new AuthStore(db, systemClock).defaultOrganization().tenantId;
  const stores = createTracingStores(db, systemClock, SecretBox.forDataDir(db, job.dataDir, migrations));
  const settings = { ...DEFAULT_EXPORT_ENGINE_SETTINGS, writer: { ...DEFAULT_EXPORT_ENGINE_SETTINGS.writer, rowGroupRows: job.rowGroupRows } };
  const engine = new ExportEngine(stores.exports, stores.runs, stores.destinations, systemClock, settings, (line) => console.error(line));
  const destination = stores.destinations.create(tenant, {
    display_name: 'bench',
    config: { bucket_name: BUCKET, prefix: '', endpoint_url: job.endpoint },
    credentials: { access_key_id: 'S3RVER', secret_access_key: 'S3RVER' },
  });
  const sessionId = stores.sessions.findByName(tenant, 'bench')!.id;
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 25);
  engine.start();
  const exports: { id: string; rows: number; seconds: number; cpuSeconds: number; peakRssMb: number }[] = [];
  for (let i = 0; i < EXPORT_ORDER.length; i++) {
    const row = stores.exports.create({
      tenantId: tenant,
      destinationId: destination.id,
      sessionId,
      startTime: RANGE_START,
      endTime: rangeEnd(job.days),
      filter: null,
      exportFields: VARIANTS[job.variant],
      intervalHours: null,
      formatVersion: 'v1',
      sourceExportId: null,
      runRanges: runRangesOf({ start: toMicros(RANGE_START), end: toMicros(rangeEnd(job.days)) }),
    });
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    engine.pump();
    let status = stores.exports.exportRow(row.id)!.status;
    while (status === 'Created' || status === 'Running') {
      // a short poll: the time from the export's end to its being seen is added to the figure
      await new Promise((done) => setTimeout(done, POLL_MS));
      status = stores.exports.exportRow(row.id)!.status;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    if (status !== 'Completed') throw new Error(`export ended ${status}: ${JSON.stringify(stores.exports.runsOf(row.id).map((r) => r.errors))}`);
    const rows = stores.exports.runsOf(row.id).reduce((sum, run) => sum + (JSON.parse(run.metadata) as { rows_written: number }).rows_written, 0);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    exports.push({ id: row.id, rows, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMb: peakRss / MB });
  }
  clearInterval(sampler);
  await engine.stop();
  db.close();
  // the files are counted (and deleted) at the end: this process loads its own S3 client only after the exports
  const client = s3Client(job.endpoint);
  const results: ExportResult[] = [];
  for (const { id, ...timing } of exports) results.push({ ...timing, ...(await takeBucketBytes(client, `export_id=${id}/`)) });
  client.destroy();
  const measurement: Measurement = { first: results[0], next: results[1], startRssMb: startRss / MB, peakRssMb: peakRss / MB };
  process.stdout.write(`RESULT ${JSON.stringify(measurement)}\n`);
}

function measureInChildProcess(job: MeasureJob): Measurement {
  const outcome = spawnSync(process.execPath, [...process.execArgv, __filename, '--measure', JSON.stringify(job)], { encoding: 'utf8' });
  const line = /RESULT (.*)/.exec(outcome.stdout);
  if (outcome.status !== 0 || !line) throw new Error(`measuring ${job.variant} failed: ${outcome.stderr}`);
  return JSON.parse(line[1]) as Measurement;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      'payload-bytes': { type: 'string' },
      days: { type: 'string' },
      repeat: { type: 'string' },
      'row-group-rows': { type: 'string' },
      measure: { type: 'string' },
    },
  });
  if (values.measure) return measure(JSON.parse(values.measure) as MeasureJob);
  const sizes = (values.sizes ?? '100000,1000000').split(',').map(Number);
  const payloadBytes = Number(values['payload-bytes'] ?? 1024);
  const days = Number(values.days ?? 7);
  if (!Number.isInteger(days) || days < 1) throw new Error(`--days must be a whole number of days, at least 1 (got ${values.days})`);
  const repeat = Number(values.repeat ?? 3);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat must be a whole number, at least 1 (got ${values.repeat})`);
  const rowGroupRows = Number(values['row-group-rows'] ?? DEFAULT_EXPORT_ENGINE_SETTINGS.writer.rowGroupRows);
  const s3Dir = mkdtempSync(join(tmpdir(), 'bench-s3-'));
  const s3 = await startS3Server(s3Dir);
  console.log(`bench/export: S3 server s3rver (separate process) at ${s3.endpoint}; Node ${process.version}; row groups of ${rowGroupRows} rows; runs over ${days} day${days === 1 ? '' : 's'}; median of ${repeat} measurement${repeat === 1 ? '' : 's'} each`);
  const peakRss = new Map<string, number[]>(Object.keys(VARIANTS).map((variant) => [variant, []]));
  try {
    for (const size of sizes) {
      const dataDir = mkdtempSync(join(tmpdir(), 'bench-export-'));
      try {
        generate(dataDir, size, days, payloadBytes);
        // the figures depend on what else the machine's cores are doing
        console.log(`  load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
        // the variants take turns, so a slower spell of the machine does not fall on one of them only
        const results = new Map<string, Measurement[]>(Object.keys(VARIANTS).map((variant) => [variant, []]));
        for (let i = 0; i < repeat; i++) {
          for (const variant of Object.keys(VARIANTS)) {
            results.get(variant)!.push(measureInChildProcess({ dataDir, endpoint: s3.endpoint, variant, rowGroupRows, days }));
          }
        }
        for (const [variant, measurements] of results) {
          const peak = Math.max(...measurements.map((m) => m.peakRssMb));
          peakRss.get(variant)!.push(peak);
          console.log(`  ${variant}: peak RSS ${peak.toFixed(0)} MB over both exports (${measurements[0].startRssMb.toFixed(0)} MB at start)`);
          for (const which of EXPORT_ORDER) {
            const runs = measurements.map((m) => m[which]);
            const rowsPerSecond = runs.map((r) => r.rows / r.seconds);
            const [r] = runs;
            const range = repeat > 1 ? ` (${figure(Math.min(...rowsPerSecond))}–${figure(Math.max(...rowsPerSecond))})` : '';
            console.log(
              `    ${EXPORT_LABEL[which].padEnd(27)} ${r.rows.toLocaleString('en-US').padStart(10)} rows: ${figure(median(rowsPerSecond)).padStart(7)} rows/s${range}, ` +
                `${figure(median(runs.map((run) => run.rows / run.cpuSeconds)))} rows per CPU second, ${r.files} files, ${(r.bytes / MB).toFixed(1)} MB, ` +
                `peak RSS ${Math.max(...runs.map((run) => run.peakRssMb)).toFixed(0)} MB by its end`,
            );
          }
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    // the memory goal is a flat peak: how much it grows from the smallest size to the largest
    if (sizes.length > 1) {
      const growth = [...peakRss].map(([variant, mb]) => {
        const [first, last] = [mb[0], mb[mb.length - 1]];
        return `${variant} ${first.toFixed(0)} → ${last.toFixed(0)} MB (${last >= first ? '+' : ''}${((100 * (last - first)) / first).toFixed(0)}%)`;
      });
      console.log(`\npeak RSS from ${sizes[0].toLocaleString('en-US')} to ${sizes[sizes.length - 1].toLocaleString('en-US')} rows: ${growth.join('; ')}`);
    }
  } finally {
    s3.child.kill();
    rmSync(s3Dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
