/**
 * A `PATH` for terraform that holds terraform and nothing else (no `node`, no shell tools): a folder with a symlink
 * to the terraform found on this process's `PATH`. A provider that terraform runs with it needs no Node.js.
 */
import { accessSync, constants, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The terraform executable on this process's `PATH`. */
export function terraformExecutable(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'terraform');
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // not in this folder
    }
  }
  throw new Error('terraform is not on the PATH: these tests run the real terraform');
}

/** A new folder holding only a symlink to terraform, for the `PATH` terraform runs with. */
export function terraformOnlyPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'terraform-only-'));
  symlinkSync(terraformExecutable(), join(dir, 'terraform'));
  return dir;
}
