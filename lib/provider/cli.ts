/**
 * `npx agentplatform-provider install [--dir DIR]`: installs the provider launcher into DIR's implied local mirror
 * and writes DIR/.terraform.lock.hcl, so `terraform init` works there offline.
 */
import { relative, resolve } from 'node:path';
import { PROVIDER_SOURCE } from './constants';
import { installProvider } from '../install/provider';

const USAGE = `Usage: agentplatform-provider install [--dir DIR]

Installs the agentplatform terraform provider for the configuration in DIR (default: the current directory):
  DIR/terraform.d/plugins/...   the provider launcher, found by "terraform init" without any registry
  DIR/.terraform.lock.hcl       its checksum (entries of other providers are kept)
Run it again after upgrading this package.
`;

/** Runs the CLI; returns the exit code. */
export function main(argv: readonly string[], out: (text: string) => void = (t) => process.stdout.write(t)): number {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return 0;
  }
  if (command !== 'install') {
    process.stderr.write(`${command ? `Unknown command ${JSON.stringify(command)}.\n` : ''}${USAGE}`);
    return 2;
  }
  let dir = '.';
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--dir' && rest[i + 1] !== undefined) dir = rest[++i]!;
    else if (arg.startsWith('--dir=')) dir = arg.slice('--dir='.length);
    else {
      process.stderr.write(`Unexpected argument ${JSON.stringify(arg)}.\n${USAGE}`);
      return 2;
    }
  }
  const result = installProvider({ dir });
  const shown = (p: string): string => relative(process.cwd(), p) || '.';
  out(
    `Installed ${PROVIDER_SOURCE} ${result.version} for ${resolve(dir)}\n` +
      `  launcher:  ${shown(result.launcherPath)}\n` +
      `  lock file: ${shown(result.lockFilePath!)} (${result.hash})\n` +
      `Run "terraform init" there; no registry is needed.\n`,
  );
  return 0;
}
