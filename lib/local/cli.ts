/**
 * `agentplatform-local`: starts the local platform and prints, once ready, exactly
 * `local platform ready at http://127.0.0.1:<port>` and `dev api key: <key>` (with `--host`, a URL that reaches the
 * server as bound, and a warning on stderr when that is not loopback). Every flag has an environment equivalent;
 * flags win.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { MIN_API_KEY_LENGTH } from './auth';
import { isLoopbackHost, isWildcardHost } from './bind-address';
import { uniformStepTimings, type PipelineTimings } from './control-plane/pipeline';
import { jsonErrorPosition } from './json-error-position';
import { startLocalPlatform, type LocalPlatformOptions } from './platform';
import { applyPlatformV8Flags } from './v8-flags';

/** The port the CLI binds when neither `--port` nor `AGENTPLATFORM_LOCAL_PORT` is given. */
export const DEFAULT_CLI_PORT = 8123;
/** The data dir (relative to the working directory) when neither `--data-dir` nor the env variable is given. */
export const DEFAULT_DATA_DIR = '.local-platform';

const USAGE = `Usage: agentplatform-local [options]
       agentplatform-local generate-runs --project NAME --count N --start ISO --end ISO [--data-dir DIR]
                                         (synthetic runs for demos and benchmarks; see docs/bulk-export.md)
       agentplatform-local s3 [--port N] [--dir DIR] [--bucket NAME]
                                         (an S3-compatible server for export destinations; see docs/s3-servers.md)

  --port <n>                 TCP port, 0 for any free one (AGENTPLATFORM_LOCAL_PORT; default ${DEFAULT_CLI_PORT})
  --host <addr>              interface to bind (AGENTPLATFORM_LOCAL_HOST; default 127.0.0.1); any other than
                             loopback serves plain HTTP to the network, with a warning
  --data-dir <dir>           database and state (AGENTPLATFORM_LOCAL_DATA_DIR; default ${DEFAULT_DATA_DIR})
  --api-key <key>            an API key of the default organization, repeatable
                             (AGENTPLATFORM_LOCAL_API_KEYS, comma-separated; default: a generated dev key)
  --reset                    wipe the data dir first (AGENTPLATFORM_LOCAL_RESET=1)
  --step-ms <n>              duration of every revision pipeline step (AGENTPLATFORM_LOCAL_STEP_MS)
  --timings <json>           per-step durations, e.g. '{"buildingMs":5000}' (AGENTPLATFORM_LOCAL_TIMINGS)
  --delete-delay-ms <n>      time until a deleted deployment is gone (AGENTPLATFORM_LOCAL_DELETE_DELAY_MS)
  --sandbox-template <file>  JSON file with a template (or an array of them) to add, repeatable
                             (AGENTPLATFORM_LOCAL_SANDBOX_TEMPLATES, comma-separated)
  --verbose                  log one line per request on stderr, control characters escaped
                             (AGENTPLATFORM_LOCAL_VERBOSE=1)
  --help                     show this text
`;

/** A usage mistake: reported with the usage text, exit code 2. */
class UsageError extends Error {}

const TIMING_KEYS: readonly (keyof PipelineTimings)[] = [
  'creatingMs',
  'queuedMs',
  'awaitingBuildMs',
  'buildingMs',
  'awaitingDeployMs',
  'deployingMs',
  'deleteDelayMs',
];

function milliseconds(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`${name} must be a whole number of milliseconds, got '${raw}'`);
  return Number(raw);
}

function portOf(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const port = /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(port <= 65535)) throw new UsageError(`${name} must be a port number from 0 to 65535 (0: any free port), got '${raw}'`);
  return port;
}

function parseTimings(name: string, raw: string | undefined): Partial<PipelineTimings> {
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError(`${name} must be a JSON object such as {"buildingMs":5000}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UsageError(`${name} must be a JSON object such as {"buildingMs":5000}`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (!(TIMING_KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`${name}: unknown key '${key}' (known: ${TIMING_KEYS.join(', ')})`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new UsageError(`${name}: ${key} must be a non-negative number`);
    }
  }
  return parsed as Partial<PipelineTimings>;
}

const list = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** What the command line and environment ask for. */
export interface CliSettings {
  /** Options for `startLocalPlatform`. */
  readonly options: LocalPlatformOptions;
  /** Files of sandbox templates to add to the default workspace. */
  readonly templateFiles: string[];
  /** Where the template files were named (`--sandbox-template` or its environment variable), for errors. */
  readonly templateSource: string;
  /** True when the API keys came from the user (the dev key line then does not print them). */
  readonly keysGiven: boolean;
  /** True for `--help`. */
  readonly help: boolean;
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  reset: { type: 'boolean' },
  'step-ms': { type: 'string' },
  timings: { type: 'string' },
  'delete-delay-ms': { type: 'string' },
  'sandbox-template': { type: 'string', multiple: true },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * What is wrong with the arguments, for an error of `parseArgs`. An argument that is not an option is not repeated
 * (Node's message would): it is often a value meant for an option, such as an API key after `--api-key= `.
 */
function argumentsProblem(err: unknown, argv: readonly string[]): string {
  if ((err as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return err instanceof Error ? err.message : String(err);
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const index = tokens.find((token) => token.kind === 'positional')?.index;
  const before = index === undefined ? undefined : argv[index - 1];
  const emptyValue = before !== undefined && /^--[a-z-]+=$/.test(before) ? `; ${before} has an empty value: write ${before}VALUE, without a space` : '';
  return (
    `${index === undefined ? 'an argument' : `argument ${index + 1}`} is neither an option nor the value of one ` +
    `(it is not repeated here, as it may be a secret): this command takes options only${emptyValue}`
  );
}

/** Reads flags and environment variables. Throws a usage error for a bad value. */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliSettings {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new UsageError(argumentsProblem(err, argv));
  }
  // a flag names itself in errors; an empty environment variable counts as unset
  const flagOrEnv = (flag: string | undefined, name: string) => flag ?? (env[name] === '' ? undefined : env[name]);
  const source = (flag: string | undefined, flagName: string, envName: string) => (flag !== undefined ? flagName : envName);
  const isOn = (name: string) => ['1', 'true', 'yes'].includes((env[name] ?? '').toLowerCase());
  const port =
    portOf(source(values.port, '--port', 'AGENTPLATFORM_LOCAL_PORT'), flagOrEnv(values.port, 'AGENTPLATFORM_LOCAL_PORT')) ?? DEFAULT_CLI_PORT;
  const stepMs = milliseconds(
    source(values['step-ms'], '--step-ms', 'AGENTPLATFORM_LOCAL_STEP_MS'),
    flagOrEnv(values['step-ms'], 'AGENTPLATFORM_LOCAL_STEP_MS'),
  );
  const deleteDelayMs = milliseconds(
    source(values['delete-delay-ms'], '--delete-delay-ms', 'AGENTPLATFORM_LOCAL_DELETE_DELAY_MS'),
    flagOrEnv(values['delete-delay-ms'], 'AGENTPLATFORM_LOCAL_DELETE_DELAY_MS'),
  );
  const timings: Partial<PipelineTimings> = {
    ...(stepMs === undefined ? {} : uniformStepTimings(stepMs)),
    ...(deleteDelayMs === undefined ? {} : { deleteDelayMs }),
    ...parseTimings(source(values.timings, '--timings', 'AGENTPLATFORM_LOCAL_TIMINGS'), flagOrEnv(values.timings, 'AGENTPLATFORM_LOCAL_TIMINGS')),
  };
  const apiKeys = values['api-key'] ?? list(env.AGENTPLATFORM_LOCAL_API_KEYS);
  for (const key of apiKeys) {
    // the key itself is not shown: it is a secret
    if (key.length < MIN_API_KEY_LENGTH) {
      const from = source(values['api-key']?.[0], '--api-key', 'AGENTPLATFORM_LOCAL_API_KEYS');
      throw new UsageError(`${from}: an API key must have at least ${MIN_API_KEY_LENGTH} characters`);
    }
  }
  if (values['data-dir'] === '') throw new UsageError('--data-dir must not be empty');
  const verbose = values.verbose ?? isOn('AGENTPLATFORM_LOCAL_VERBOSE');
  return {
    options: {
      port,
      host: flagOrEnv(values.host, 'AGENTPLATFORM_LOCAL_HOST') ?? '127.0.0.1',
      dataDir: flagOrEnv(values['data-dir'], 'AGENTPLATFORM_LOCAL_DATA_DIR') ?? DEFAULT_DATA_DIR,
      apiKeys: apiKeys.length > 0 ? apiKeys : undefined,
      reset: values.reset ?? isOn('AGENTPLATFORM_LOCAL_RESET'),
      timings,
      log: verbose ? (line: string) => process.stderr.write(`${line}\n`) : undefined,
    },
    templateFiles: values['sandbox-template'] ?? list(env.AGENTPLATFORM_LOCAL_SANDBOX_TEMPLATES),
    templateSource: source(values['sandbox-template']?.[0], '--sandbox-template', 'AGENTPLATFORM_LOCAL_SANDBOX_TEMPLATES'),
    keysGiven: apiKeys.length > 0,
    help: values.help ?? false,
  };
}

function readTemplates(source: string, file: string): unknown[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${source} ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Node's message quotes the text around the mistake, which may be a token: only where it is is said
    const at = Math.max(0, jsonErrorPosition(text));
    const line = text.slice(0, at).split('\n').length;
    const column = at - (text.lastIndexOf('\n', at - 1) + 1) + 1;
    throw new UsageError(`${source} ${file}: not valid JSON: the mistake is at line ${line}, column ${column}`);
  }
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** What is wrong with a template: each problem at its place (`proxy_config.rules.0.inject_headers: …`). */
function templateProblem(err: unknown): string {
  if (!(err instanceof z.ZodError)) return err instanceof Error ? err.message : String(err);
  return err.issues.map((issue) => `${issue.path.join('.') || 'the template'}: ${issue.message}`).join('; ');
}

/**
 * The warning of a platform bound to an address other machines can reach: it serves plain HTTP, and its API keys,
 * deployment secrets and destination credentials would cross the network readable by anyone on the way.
 */
function exposedWarning(host: string): string {
  const where = isWildcardHost(host) ? `every network interface (${host || 'any address'})` : host;
  return (
    `agentplatform-local: warning: serving on ${where} over plain HTTP, without TLS: any machine that reaches this ` +
    'port can send requests, and API keys, deployment secrets and destination credentials cross the network ' +
    'readable by anyone on the way. Bind 127.0.0.1 (the default) unless other machines must reach the platform, and ' +
    'then only on a network you trust.\n'
  );
}

/** Runs the CLI until SIGINT or SIGTERM. Sets `process.exitCode` instead of throwing. */
export async function main(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env) {
  if (argv[0] === 's3') {
    const { s3Command } = await import('./s3/s3-cli');
    process.exitCode = await s3Command(argv.slice(1));
    return;
  }
  if (argv[0] === 'generate-runs') {
    // Loaded only for this subcommand: the server start-up path does not pay for the generator.
    const { generateRunsCommand } = await import('./tracing/generate-cli');
    process.exitCode = generateRunsCommand(argv.slice(1), env);
    return;
  }
  let settings: CliSettings;
  try {
    settings = parseCli(argv, env);
  } catch (err) {
    process.stderr.write(`agentplatform-local: ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (settings.help) {
    process.stdout.write(USAGE);
    return;
  }
  try {
    const templates = settings.templateFiles.flatMap((file) => readTemplates(settings.templateSource, file));
    // this process is the platform's: its V8 settings hold from here on, for the encode workers too
    applyPlatformV8Flags();
    const platform = await startLocalPlatform(settings.options);
    try {
      for (const template of templates) platform.admin.addSandboxTemplate(platform.defaultTenantId, template as never);
    } catch (err) {
      await platform.close();
      throw new UsageError(`${settings.templateSource}: ${templateProblem(err)}`);
    }
    const shutdown = () => {
      process.off('SIGINT', shutdown).off('SIGTERM', shutdown);
      process.once('SIGINT', () => process.exit(1)).once('SIGTERM', () => process.exit(1));
      void platform.close().then(() => process.exit(0));
    };
    process.on('SIGINT', shutdown).on('SIGTERM', shutdown);
    const host = settings.options.host ?? '127.0.0.1';
    if (!isLoopbackHost(host)) process.stderr.write(exposedWarning(host));
    process.stdout.write(`local platform ready at ${platform.url}\n`);
    process.stdout.write(
      settings.keysGiven
        ? 'dev api key: given with --api-key or AGENTPLATFORM_LOCAL_API_KEYS (not printed)\n'
        : `dev api key: ${platform.devApiKey}\n`,
    );
  } catch (err) {
    process.stderr.write(`agentplatform-local: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  }
}
