/** Runs `bin/agentplatform-local.js` as a child process and reads its ready lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI_BIN, REPO_ROOT } from './build';

/** A running CLI. */
export interface CliProcess {
  child: ChildProcess;
  /** From the ready line. */
  url: string;
  /** The rest of the dev key line. */
  keyLine: string;
  /** Everything printed on stdout so far. */
  stdout: () => string;
  /** Everything printed on stderr so far. */
  stderr: () => string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
}

const READY = /^local platform ready at (http:\/\/\S+:\d+)$/m;
const KEY = /^dev api key: (.+)$/m;

/** The environment of a child: no inherited AGENTPLATFORM_LOCAL_* settings. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AGENTPLATFORM_LOCAL_')),
  );
  return { ...env, ...extra };
}

/** Starts the CLI; resolves once both ready lines are printed, rejects if it exits first. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = childEnv()): Promise<CliProcess> {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI not ready in time; stdout: ${out} stderr: ${err}`));
    }, 30_000);
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = READY.exec(out);
      const key = KEY.exec(out);
      if (ready && key) {
        clearTimeout(timer);
        resolve({ child, url: ready[1], keyLine: key[1], stdout: () => out, stderr: () => err, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited (${code}) before it was ready; stdout: ${out} stderr: ${err}`));
    });
  });
}

/** Runs the CLI to its end (for runs that are expected to fail at start). */
export async function runCliToEnd(args: string[], env: NodeJS.ProcessEnv = childEnv()) {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}
