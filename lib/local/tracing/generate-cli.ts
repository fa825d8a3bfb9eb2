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

function positiveInteger(name: string, raw: string | undefined, fallback?: number): number {
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw new UsageError(`--${name} must be a positive integer, got '${raw}'`);
  return Number(raw);
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
    const count = positiveInteger('count', values.count);
    const startMicros = instant('start', values.start);
    const endMicros = instant('end', values.end);
    if (endMicros <= startMicros) throw new UsageError('--end must be after --start');
    const dataDir = path.resolve(values['data-dir'] ?? env.AGENTPLATFORM_LOCAL_DATA_DIR ?? '.local-platform');
    const db = openDatabase(dataDir);
    try {
      migrate(db, [AUTH_MIGRATIONS, TRACING_MIGRATIONS]);
      const tenantId = values['tenant-id'] ?? new AuthStore(db, systemClock).defaultOrganization().tenantId;
      const sessions = new SessionStore(db, systemClock);
      const session = sessions.getOrCreateByName(tenantId, values.project);
      const started = performance.now();
      const created = generateSyntheticRuns(new RunStore(db, sessions), {
        tenantId,
        sessionId: session.id,
        count,
        startMicros,
        endMicros,
        payloadBytes: positiveInteger('payload-bytes', values['payload-bytes'], 1024),
        seed: positiveInteger('seed', values.seed, 1),
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
    throw error;
  }
}

if (require.main === module) process.exitCode = generateRunsCommand(process.argv.slice(2));
