/**
 * The files of a data dir that are the platform's own, the lock that keeps one platform per data dir, and `--reset`.
 *
 * Two platforms on one data dir would each believe they own it: a `--reset` by the second deletes the database from
 * under the first, which goes on answering with writes that are lost. So a platform holds `platform.lock` (its pid)
 * while it runs; a lock whose process is gone (a crash, SIGKILL) is taken over.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DATABASE_FILE } from './db';

/** The lock file of a running platform: its process id. */
export const LOCK_FILE = 'platform.lock';

/** The files the platform makes in a data dir (see db.ts, secret-box.ts, platform.ts), and nothing else. */
const OWN_FILE = new RegExp(
  `^(${[DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, `${DATABASE_FILE}-journal`, 'secret.key', 'dev-api-key', LOCK_FILE]
    .map((name) => name.replace(/[.-]/g, '\\$&'))
    .join('|')})(\\.\\d+\\.partial)?$`,
);

/** Data dirs locked by this process (a second platform of the same process is refused too). */
const lockedHere = new Set<string>();

/** Whether a process with this pid runs (a process of another user counts: it exists). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data dir's lock; returns its release. Throws, naming the process and the lock file, when another
 * platform holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  if (lockedHere.has(file)) throw new Error(`the data dir ${dataDir} is in use by another platform of this process`);
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
    }
    const holder = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && processRuns(holder)) {
      throw new Error(
        `the data dir ${dataDir} is in use by process ${holder}: stop that platform, or choose another --data-dir ` +
          `(if process ${holder} is not a local platform, delete ${file})`,
      );
    }
    // left by a platform that did not stop cleanly
    fs.rmSync(file, { force: true });
  }
  lockedHere.add(file);
  return () => {
    if (!lockedHere.delete(file)) return;
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file, { force: true });
    } catch {
      // the directory is gone (a test removed it): nothing to release
    }
  };
}

/**
 * Empties a data dir for `--reset`, under its lock: only the platform's own files are deleted, and a directory that
 * holds anything else is refused whole, so a mistyped `--data-dir` (the working directory, a project) never loses a
 * file.
 */
export function resetDataDir(dataDir: string): void {
  if (!fs.existsSync(dataDir)) return;
  const entries = fs.readdirSync(dataDir);
  const foreign = entries.filter((entry) => !OWN_FILE.test(entry));
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? `, and ${foreign.length - 5} more` : '');
    throw new Error(`refusing to reset ${dataDir}: it holds files the platform did not make (${shown}); choose the platform's own data dir`);
  }
  for (const entry of entries) if (entry !== LOCK_FILE) fs.rmSync(path.join(dataDir, entry), { force: true });
}
