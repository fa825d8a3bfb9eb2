/**
 * Runs the real terraform binary in a temporary directory with the provider installed in its implied local mirror
 * (the compiled `dist/` provider, or a fixture built on it) and a hermetic environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installProvider, type InstallResult } from '../../../lib/install/provider';
import { newestSourceMtime } from '../../local/support/build';

const ROOT = join(__dirname, '..', '..', '..');
/** The compiled provider entry point. */
export const DIST_ENTRY = join(ROOT, 'dist', 'lib', 'provider', 'main.js');
/** The example provider (compiled framework plus a test resource). */
export const EXAMPLE_ENTRY = join(ROOT, 'test', 'provider', 'fixtures', 'example-provider.js');

let distChecked = false;

/**
 * Refuses a `dist/` older than the sources: terraform runs the compiled provider, and a test run alone (`npx jest`)
 * after a change to `lib/` would otherwise test the code from before it. `npm test` builds first.
 */
export function checkDistFresh(): void {
  if (distChecked) return;
  if (!existsSync(DIST_ENTRY)) throw new Error('dist/ is missing: run `npm run build` (npm test does) before these tests');
  if (statSync(DIST_ENTRY).mtimeMs < newestSourceMtime(join(ROOT, 'lib'))) {
    throw new Error('dist/ is older than lib/: run `npm run build` (npm test does), or these tests run the provider from before the change');
  }
  distChecked = true;
}

/** The result of one terraform command. */
export interface TerraformResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A configuration directory with the provider installed. */
export class TerraformDir {
  readonly env: NodeJS.ProcessEnv;
  readonly install: InstallResult;

  private constructor(
    readonly dir: string,
    entryPoint: string,
    extraEnv: NodeJS.ProcessEnv,
  ) {
    checkDistFresh();
    const cliConfig = join(dir, 'empty.tfrc');
    writeFileSync(cliConfig, '');
    this.env = {
      PATH: process.env.PATH,
      HOME: dir,
      CHECKPOINT_DISABLE: '1',
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_IN_AUTOMATION: '1',
      ...extraEnv,
    };
    this.install = installProvider({ dir, entryPoint });
  }

  /** A new directory; `entryPoint` is the provider program the launcher runs. */
  static create(entryPoint: string = DIST_ENTRY, extraEnv: NodeJS.ProcessEnv = {}): TerraformDir {
    return new TerraformDir(mkdtempSync(join(tmpdir(), 'tf-provider-')), entryPoint, extraEnv);
  }

  /** Writes a file of the configuration. */
  write(name: string, content: string): void {
    writeFileSync(join(this.dir, name), content);
  }

  /**
   * Starts terraform without waiting for it, in its own process group (as a shell would), so a test can send
   * Ctrl-C to the whole group: terraform and the provider it launched.
   */
  start(args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
    return spawn('terraform', [...args], { cwd: this.dir, env: { ...this.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  }

  /** Runs terraform to completion. */
  run(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<TerraformResult> {
    return collect(this.start(args, env));
  }

  /** Removes the directory. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Waits for a child's exit and returns its output. */
export function collect(child: ChildProcess): Promise<TerraformResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The `required_providers` block plus a provider block with the given body. */
export function providerConfig(body = ''): string {
  return `terraform {
  required_providers {
    agentplatform = { source = "agentplatform/agentplatform" }
  }
}

provider "agentplatform" {
${body}
}
`;
}

/** Whether a process exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until `check` is true or `timeoutMs` passes; returns the last result. */
export async function eventually(check: () => boolean, timeoutMs = 10_000, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return check();
}

/** PIDs of live processes whose environment contains `marker` (Linux /proc). */
export function processesWithEnv(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}
