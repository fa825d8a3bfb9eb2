/**
 * The files of a data dir that are the platform's own, the lock that keeps one platform per data dir, and `--reset`.
 *
 * Two platforms on one data dir would each believe they own it: a `--reset` by the second deletes the database from
 * under the first, which goes on answering with writes that are lost. So a platform holds a lock on
 * `platform.lock` while it runs, one the system releases when the process ends (a crash, SIGKILL included).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DEV_API_KEY_FILE } from './auth';
import { DATABASE_FILE } from './db';

/** The lock file of the data dir (a small SQLite database), locked by the platform that runs on it. */
export const LOCK_FILE = 'platform.lock';

/** The files the platform makes in a data dir (see db.ts, secret-box.ts, auth.ts), besides their partial files. */
const OWN_FILES = [
  DATABASE_FILE,
  `${DATABASE_FILE}-wal`,
  `${DATABASE_FILE}-shm`,
  `${DATABASE_FILE}-journal`,
  'secret.key',
  DEV_API_KEY_FILE,
  LOCK_FILE,
  `${LOCK_FILE}-journal`,
];

/** The platform's own files, partial ones included, and nothing else. */
const OWN_FILE = new RegExp(`^(${OWN_FILES.map((name) => name.replace(/[.-]/g, '\\$&')).join('|')})(\\.\\d+\\.partial)?$`);

/**
 * The lock files this process holds, by device and inode: a second platform of the same process is refused too,
 * whatever path it names the directory by (a symlink, another case on a case-insensitive file system, a bind mount),
 * before anything opens the file. Closing any descriptor of a file drops the POSIX locks its process holds on it,
 * SQLite's included. Process-wide, should two copies of this module be loaded.
 */
const lockedHere: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for('agentplatform.local.lockedDataDirs')] ??= new Set<string>()) as Set<string>;

/** The device and inode of an existing file, without opening it; undefined when there is none. */
function fileIdentity(file: string): string | undefined {
  try {
    const { dev, ino } = fs.statSync(file, { bigint: true });
    return `${dev}:${ino}`;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs (a process of another user counts: it exists). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** Where a SQLite file's header keeps its `user_version` (4 bytes, big-endian): the lock's holder writes its pid there. */
const USER_VERSION_OFFSET = 60;

/**
 * What a lock file says of its holder: the pid a platform wrote into it (0 when none yet), or, in a lock file of an
 * earlier version of the platform (a text file), the pid it holds. Read with plain file reads, never through SQLite.
 * Never called by the process that holds the lock: closing any descriptor of a file drops the POSIX locks its process
 * holds on it.
 */
function recordedHolder(file: string): number {
  const content = fs.readFileSync(file);
  if (content.length >= USER_VERSION_OFFSET + 4 && content.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) {
    return content.readUInt32BE(USER_VERSION_OFFSET);
  }
  const pid = Number.parseInt(content.toString('utf8'), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
}

/** How long a start waits for the lock file's locks: a lock held by a running platform is still held after it. */
const LOCK_WAIT_MS = 1_000;

const isBusy = (err: unknown): boolean => (err as { code?: string }).code?.startsWith('SQLITE_BUSY') === true;
/** A lock file that SQLite cannot read: one of an earlier version (text), or one damaged (a disk full, a crash). */
const isNotADatabase = (err: unknown): boolean => ['SQLITE_NOTADB', 'SQLITE_CORRUPT'].includes((err as { code?: string }).code ?? '');

/**
 * Holds the lock file through SQLite: an exclusive lock of a connection in `locking_mode = EXCLUSIVE`, which the
 * system releases when the connection closes or the process ends, however it ends. The holder's pid goes into the
 * file's header, for the message of a start that is refused. Undefined when another process holds it.
 */
function holdLockFile(file: string): Database.Database | undefined {
  // created the owner's alone (SQLite takes an empty file for an empty database); an existing one is not opened here
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // a second to wait: a starter that lost keeps a shared lock until it closes, and the winner's commit waits for it
  const db = new Database(file, { timeout: LOCK_WAIT_MS });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN IMMEDIATE');
    db.pragma(`user_version = ${process.pid}`);
    // in exclusive locking mode the lock outlives the transaction, up to the connection's close
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db.close();
    if (isBusy(err)) return undefined;
    throw err;
  }
}

/**
 * Takes the data dir's lock; returns its release. Throws, naming the process and the lock file, when another
 * platform holds it. The lock is the system's (see {@link holdLockFile}), not the file's presence: a platform that
 * did not stop (a crash, SIGKILL) holds nothing, so its data dir is free at once, and two platforms that start
 * together cannot both take it. The file stays after the release: deleting it could delete the lock of the platform
 * that took it meanwhile.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(fs.realpathSync(dataDir), LOCK_FILE);
  const inUseHere = (): boolean => {
    const identity = fileIdentity(file);
    return identity !== undefined && lockedHere.has(identity);
  };
  if (inUseHere()) throw new Error(`the data dir ${dataDir} is in use by another platform of this process`);
  let held: Database.Database | undefined;
  try {
    held = holdLockFile(file);
  } catch (err) {
    if (!isNotADatabase(err)) throw err;
    // the text lock of an earlier version of the platform: refused while its process runs, else replaced (so is a
    // damaged lock file, which no process can hold)
    const pid = recordedHolder(file);
    if (pid > 0 && pid !== process.pid && processRuns(pid)) {
      throw new Error(
        `the data dir ${dataDir} is in use by process ${pid}: stop that platform, or choose another --data-dir ` +
          `(if process ${pid} is not a local platform, delete ${file})`,
      );
    }
    // emptied in place, never deleted: a platform starting at the same time may already hold the new lock on it, and
    // then keeps it (this process's attempt is refused as busy)
    fs.truncateSync(file, 0);
    fs.chmodSync(file, 0o600);
    held = holdLockFile(file);
  }
  if (!held) {
    // the pid is the holder's once it has written it (at once after taking the lock)
    const pid = recordedHolder(file);
    const holder = pid > 0 && processRuns(pid) ? `process ${pid}` : 'another process';
    throw new Error(`the data dir ${dataDir} is in use by ${holder}: stop that platform, or choose another --data-dir`);
  }
  const identity = fileIdentity(file)!;
  lockedHere.add(identity);
  const lock = held;
  return () => {
    if (!lockedHere.delete(identity)) return;
    lock.close();
  };
}

/**
 * Makes a data dir and the platform's files in it their owner's alone (0700, 0600), as a new data dir is: one made by
 * an earlier version kept the modes of the umask (0755, 0644), which let other users of the machine read the trace
 * inputs and outputs of the database. Only what this process's user owns is changed, and a change the system refuses
 * (a file system without modes, a read-only mount) is left out: the platform runs as before. Returns the paths of
 * what it changed.
 */
export function restrictToOwner(dataDir: string): string[] {
  const changed: string[] = [];
  const restrict = (file: string, mode: number): void => {
    try {
      const stat = fs.statSync(file);
      if ((stat.mode & 0o777) === mode || stat.uid !== process.getuid?.()) return;
      fs.chmodSync(file, mode);
      changed.push(file);
    } catch {
      // missing, or not ours to change: as it was
    }
  };
  restrict(dataDir, 0o700);
  for (const name of OWN_FILES) restrict(path.join(dataDir, name), 0o600);
  return changed;
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
