/**
 * A `PATH` on which terraform is found and Node.js is not, as on an HCP Terraform runner or a CI image without it:
 * a folder holding only a symlink to the terraform of this process's `PATH`. A provider terraform runs with it
 * needs no Node.js.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The executable `name` resolves to on `pathValue`, as a shell's lookup finds it, or undefined. */
export function resolveOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** The terraform executable on this process's `PATH`; throws when there is none (CI must have it). */
export function terraformExecutable(): string {
  const terraform = resolveOnPath('terraform', process.env.PATH);
  if (!terraform) throw new Error('terraform is not on the PATH: these tests run the real terraform');
  return realpathSync(terraform);
}

/** Makes `dir` (default: a new temporary folder) hold only a symlink to terraform, and returns it: the whole `PATH`. */
export function terraformOnlyPath(dir?: string): string {
  const folder = dir ?? mkdtempSync(join(tmpdir(), 'terraform-only-'));
  mkdirSync(folder, { recursive: true });
  symlinkSync(terraformExecutable(), join(folder, 'terraform'));
  return folder;
}
