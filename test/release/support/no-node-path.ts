/**
 * A `PATH` on which terraform is found and Node.js is not, as on an HCP Terraform runner or a CI image without it:
 * a folder holding only a symlink to the machine's terraform.
 */
import { accessSync, constants, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
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

/**
 * Makes `dir` hold one symlink, `terraform`, to the terraform of this process's `PATH`, and returns `dir`: the whole
 * `PATH` for terraform. Throws when terraform is not installed (CI must have it).
 */
export function terraformOnlyPath(dir: string): string {
  const terraform = resolveOnPath('terraform', process.env.PATH);
  if (!terraform) throw new Error('terraform is not on the PATH: these tests run the real terraform');
  mkdirSync(dir, { recursive: true });
  symlinkSync(realpathSync(terraform), join(dir, 'terraform'));
  return dir;
}
