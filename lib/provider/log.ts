/**
 * Provider logs. Terraform shows a plugin's stderr only when `TF_LOG`/`TF_LOG_PROVIDER` is set, and reads the level
 * of each line from its `[LEVEL]` prefix; lines below the configured level are not even written.
 * Never log a secret: callers pass values that are already safe to show.
 */
import { writeSync } from 'node:fs';

/** Log levels, most verbose first, as Terraform names them. */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A leveled logger writing `[LEVEL] message` lines. */
export interface Logger {
  /** Whether lines of this level are written at all (to skip building expensive messages). */
  enabled(level: LogLevel): boolean;
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * The least verbose level that is written, from `TF_LOG_PROVIDER` (wins) or `TF_LOG`; `undefined` when neither is
 * set (nothing is written). `JSON` and unrecognised values mean TRACE, as Terraform itself treats them.
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel | undefined {
  const raw = (env.TF_LOG_PROVIDER || env.TF_LOG || '').trim().toUpperCase();
  if (!raw || raw === 'OFF') return undefined;
  return (LOG_LEVELS as readonly string[]).includes(raw) ? (raw as LogLevel) : 'TRACE';
}

/** A logger writing to a file descriptor (stderr by default), filtered by `level`. */
export function createLogger(level: LogLevel | undefined = logLevelFromEnv(), fd = 2): Logger {
  const threshold = level === undefined ? LOG_LEVELS.length : LOG_LEVELS.indexOf(level);
  const enabled = (l: LogLevel): boolean => LOG_LEVELS.indexOf(l) >= threshold;
  const write = (l: LogLevel, message: string): void => {
    if (!enabled(l)) return;
    // One prefix per line: terraform attributes unprefixed continuation lines to the DEBUG level.
    const text = message
      .split('\n')
      .map((line) => `[${l}] provider.agentplatform: ${line}\n`)
      .join('');
    try {
      writeSync(fd, text);
    } catch {
      // stderr closed by terraform: there is nobody left to tell.
    }
  };
  return {
    enabled,
    trace: (m) => write('TRACE', m),
    debug: (m) => write('DEBUG', m),
    info: (m) => write('INFO', m),
    warn: (m) => write('WARN', m),
    error: (m) => write('ERROR', m),
  };
}
