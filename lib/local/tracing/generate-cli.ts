/**
 * `agentplatform-local generate-runs`: writes synthetic traces into a tracing project of a local platform's data
 * dir, for demos and benchmarks. It opens the database directly (SQLite in WAL mode lets it run next to a running
 * platform) and creates the project when it does not exist.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { AUTH_MIGRATIONS, AuthStore } from '../auth';
import { systemClock } from '../clock';
import { migrate, openDatabase } from '../db';
import { TRACING_MIGRATIONS } from './store/migrations';
import { RunStore } from './store/runs';
import { SessionStore } from './store/sessions';
import { toMicros } from './store/time';
import { generateSyntheticRuns } from './synthetic/generate';

const USAGE = `Usage: agentplatform-local generate-runs --project NAME --count N --start ISO --end ISO [options]

  --project <name>        tracing project (created when missing)
  --count <n>             number of runs to create
  --start <iso>           start of the time range (inclusive), e.g. 2024-05-01T00:00:00Z
  --end <iso>             end of the time range (exclusive)
  --data-dir <dir>        data dir of the local platform (AGENTPLATFORM_LOCAL_DATA_DIR; default .local-platform)
  --tenant-id <uuid>      workspace (default: the data dir's default workspace)
  --payload-bytes <n>     approximate bytes of inputs plus outputs per run (default 1024)
  --seed <n>              seed of the generated text (default 1)
`;

/** Where the command writes its output. */
export interface TextSink {
  write(text: string): unknown;
}

/** A usage mistake (exit code 2). */
class UsageError extends Error {}

/** The most runs one command writes (about 1.6 GB of database at the default payload). */
const MAX_COUNT = 100_000_000;
/** The largest payload per run, in bytes. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

function positiveInteger(name: string, raw: string | undefined, fallback?: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw new UsageError(`--${name} must be a positive integer, got '${raw}'`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value > max) throw new UsageError(`--${name} must be at most ${max.toLocaleString('en-US')}, got '${raw}'`);
  return value;
}

function instant(name: string, raw: string | undefined): number {
  if (raw === undefined) throw new UsageError(`--${name} is required`);
  const micros = toMicros(raw);
  if (Number.isNaN(micros)) throw new UsageError(`--${name} must be an ISO 8601 timestamp, got '${raw}'`);
  return micros;
}

/** Runs the command with `argv` (the arguments after `generate-runs`); returns the exit code. */
export function generateRunsCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  out: TextSink = process.stdout,
  err: TextSink = process.stderr,
): number {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        project: { type: 'string' },
        count: { type: 'string' },
        start: { type: 'string' },
        end: { type: 'string' },
        'data-dir': { type: 'string' },
        'tenant-id': { type: 'string' },
        'payload-bytes': { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
    if (values.help) {
      out.write(USAGE);
      return 0;
    }
    if (!values.project) throw new UsageError('--project is required');
    const count = positiveInteger('count', values.count, undefined, MAX_COUNT);
    const payloadBytes = positiveInteger('payload-bytes', values['payload-bytes'], 1024, MAX_PAYLOAD_BYTES);
    const seed = positiveInteger('seed', values.seed, 1);
    const startMicros = instant('start', values.start);
    const endMicros = instant('end', values.end);
    if (endMicros <= startMicros) throw new UsageError('--end must be after --start');
    if (values['data-dir'] === '') throw new UsageError('--data-dir must not be empty');
    const dataDir = path.resolve(values['data-dir'] ?? (env.AGENTPLATFORM_LOCAL_DATA_DIR || '.local-platform'));
    const db = openDatabase(dataDir);
    try {
      migrate(db, [AUTH_MIGRATIONS, TRACING_MIGRATIONS]);
      const auth = new AuthStore(db, systemClock);
      const tenantId = values['tenant-id'] ?? auth.defaultOrganization().tenantId;
      // runs of a workspace the platform does not have would never be seen
      if (auth.organizationOfTenant(tenantId) === undefined) {
        throw new UsageError(`--tenant-id ${tenantId} is not a workspace of the platform in ${dataDir}`);
      }
      const sessions = new SessionStore(db, systemClock);
      const session = sessions.getOrCreateByName(tenantId, values.project);
      const started = performance.now();
      const created = generateSyntheticRuns(new RunStore(db, sessions), {
        tenantId,
        sessionId: session.id,
        count,
        startMicros,
        endMicros,
        payloadBytes,
        seed,
      });
      const seconds = (performance.now() - started) / 1000;
      out.write(`generated ${created} runs in project "${session.name}" (${session.id}) in ${seconds.toFixed(1)} s\n`);
      return 0;
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      err.write(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    // a data dir that cannot be opened, a database of a newer version, a full disk: the message, without a stack
    err.write(`generate-runs: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) process.exitCode = generateRunsCommand(process.argv.slice(2));
