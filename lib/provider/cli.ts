/**
 * `agentplatform-provider`: the ways to install the provider. `mirror` makes a provider mirror from a release
 * directory (lib/install/mirror.ts); `install` puts the launcher into a configuration's implied local mirror and
 * writes its lock file (lib/install/provider.ts).
 */
import { relative, resolve } from 'node:path';
import { PROVIDER_ADDRESS, PROVIDER_SOURCE } from './constants';
import { installProvider } from '../install/provider';
import { mirrorConfiguration, mirrorRelease } from '../install/mirror';

const USAGE = `Usage: agentplatform-provider mirror --release DIR --dir MIRROR [--url URL]
       agentplatform-provider install [--dir DIR]

Three ways to install the agentplatform terraform provider, in this order:

1. A provider mirror, from a release (the zips of the provider's executables, which need no Node.js, and the
   network mirror's documents: what "npm run release:provider" writes into dist/release/<version>/):
     agentplatform-provider mirror --release DIR --dir MIRROR [--url URL]
   checks the release (every zip it lists is there, with its SHA-256), copies its zips and <version>.json into
   MIRROR/${PROVIDER_ADDRESS}/,
   lists every version that folder holds in its index.json (several releases can share one mirror), and prints
   terraform's CLI configuration for MIRROR as a filesystem mirror and, served by an HTTPS server at URL (ending
   in "/"), as a network mirror.
2. A private registry (HCP Terraform, Terraform Enterprise): upload the release's zips, its SHA256SUMS, the sums'
   GPG signature and its manifest through the registry's API for provider versions and platforms.
3. The launcher, for cdktf apps and machines with Node.js 20 or later:
     agentplatform-provider install [--dir DIR]
   for the configuration in DIR (default: the current directory) writes
     DIR/terraform.d/plugins/...   the provider launcher, found by "terraform init" without any registry
     DIR/.terraform.lock.hcl       its checksum (entries of other providers are kept)
   Run it again after upgrading this package.
`;

/** What each option takes, said when it is given without a value. */
const OPTION_VALUES: Readonly<Record<string, string>> = {
  dir: 'a directory, e.g. --dir infra',
  release: 'the release directory, e.g. --release dist/release/0.1.0',
  url: 'the URL that serves the mirror directory, e.g. --url https://mirror.example.com/providers/',
};

/** The options of a command, each `--name VALUE` or `--name=VALUE`; an error message when the arguments are not that. */
function parseOptions(args: readonly string[], allowed: readonly string[], dirOptional: boolean): Map<string, string> | string {
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = allowed.find((option) => arg === `--${option}` || arg.startsWith(`--${option}=`));
    if (name === undefined) return `Unexpected argument ${JSON.stringify(arg)}.`;
    const value = arg === `--${name}` ? args[++i] : arg.slice(`--${name}=`.length);
    if (value === undefined || value === '') {
      return `--${name} needs ${OPTION_VALUES[name]}${name === 'dir' && dirOptional ? ' (leave it out for the current directory)' : ''}.`;
    }
    options.set(name, value);
  }
  return options;
}

/** Runs the CLI; returns the exit code. */
export function main(argv: readonly string[], out: (text: string) => void = (t) => process.stdout.write(t)): number {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return 0;
  }
  if (command !== 'install' && command !== 'mirror') {
    process.stderr.write(`${command ? `Unknown command ${JSON.stringify(command)}.\n` : ''}${USAGE}`);
    return 2;
  }
  const options = parseOptions(rest, command === 'install' ? ['dir'] : ['release', 'dir', 'url'], command === 'install');
  if (typeof options === 'string') {
    process.stderr.write(`${options}\n${USAGE}`);
    return 2;
  }
  try {
    return command === 'install' ? install(options.get('dir') ?? '.', out) : mirror(options, out);
  } catch (err) {
    // a release that is not whole, a directory that cannot be written, a package that is not built: the message
    // says what to do, no stack
    process.stderr.write(`agentplatform-provider ${command}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

function mirror(options: Map<string, string>, out: (text: string) => void): number {
  const release = options.get('release');
  const dir = options.get('dir');
  const url = options.get('url');
  if (!release || !dir) {
    process.stderr.write(`mirror needs --release (the release directory) and --dir (the mirror directory).\n${USAGE}`);
    return 2;
  }
  if (url !== undefined && !/^https:\/\/[^/]+(\/.*)?\/$/.test(url)) {
    process.stderr.write(`--url must be an https:// URL ending in "/" (terraform asks a network mirror over HTTPS only); got ${JSON.stringify(url)}.\n`);
    return 2;
  }
  const result = mirrorRelease({ release, dir });
  const lines = result.copied.map(
    ({ version, platforms, replaced }) =>
      `Mirrored ${PROVIDER_SOURCE} ${version} (${platforms.join(', ')})${replaced ? ', replacing the one there with other hashes (lock files that recorded them refuse it now)' : ''}\n`,
  );
  out(
    `${lines.join('')}  into ${result.providerDir}\n  which now holds ${result.versions.join(', ')}\n\n` +
      'Put one of these blocks into terraform\'s CLI configuration (~/.terraformrc, %APPDATA%\\terraform.rc on Windows, ' +
      'or the file TF_CLI_CONFIG_FILE names):\n\n' +
      mirrorConfiguration(result.dir, url),
  );
  return 0;
}

function install(dir: string, out: (text: string) => void): number {
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
