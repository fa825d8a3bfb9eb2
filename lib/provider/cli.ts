/**
 * `agentplatform-provider install [--dir DIR]`: installs the provider launcher into DIR's implied local mirror
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
    const value = arg === '--dir' ? rest[++i] : arg.startsWith('--dir=') ? arg.slice('--dir='.length) : undefined;
    if (arg !== '--dir' && value === undefined) {
      process.stderr.write(`Unexpected argument ${JSON.stringify(arg)}.\n${USAGE}`);
      return 2;
    }
    if (value === undefined || value === '') {
      process.stderr.write(`--dir needs a directory, e.g. --dir infra (leave it out for the current directory).\n${USAGE}`);
      return 2;
    }
    dir = value;
  }
  let result: ReturnType<typeof installProvider>;
  try {
    result = installProvider({ dir });
  } catch (err) {
    // a directory that cannot be written, a package that is not built: the message says what to do, no stack
    process.stderr.write(`agentplatform-provider install: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const shown = (p: string): string => relative(process.cwd(), p) || '.';
  out(
    `Installed ${PROVIDER_SOURCE} ${result.version} for ${resolve(dir)}\n` +
      `  launcher:  ${shown(result.launcherPath)}\n` +
      `  lock file: ${shown(result.lockFilePath!)} (${result.hash})\n` +
      `Run "terraform init" there; no registry is needed.\n`,
  );
  return 0;
}
