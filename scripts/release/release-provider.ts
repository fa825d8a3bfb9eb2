/**
 * `npm run release:provider`: builds the provider release (scripts/release/build-release.ts) and prints one line
 * per zip with its size.
 */
import { parseArgs } from 'node:util';
import { buildRelease, RELEASE_PLATFORMS } from './build-release';

const USAGE = `Usage: npm run release:provider -- [options]

Builds the provider's executables for every platform, zipped, with SHA256SUMS, the registry manifest and the
network mirror's index.json and <version>.json, into dist/release/<version>/.

Options:
  --platforms LIST   comma-separated platforms to build (default: all: ${RELEASE_PLATFORMS.join(',')})
  --out DIR          the release folder, replaced by the build (default: dist/release/<version>)
  --gpg-key ID       sign the SHA256SUMS with this GPG key (a detached binary signature, ..._SHA256SUMS.sig)
  --gpg-home DIR     the GnuPG home folder of that key (default: gpg's own)
  --help             print this text
`;

async function main(argv: readonly string[]): Promise<number> {
  let values: { platforms?: string; out?: string; 'gpg-key'?: string; 'gpg-home'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        platforms: { type: 'string' },
        out: { type: 'string' },
        'gpg-key': { type: 'string' },
        'gpg-home': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const release = await buildRelease({
    platforms: values.platforms?.split(',').map((platform) => platform.trim()).filter((platform) => platform !== ''),
    outDir: values.out,
    gpgKey: values['gpg-key'],
    gpgHome: values['gpg-home'],
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`release ${release.version} written to ${release.dir}${release.signature ? ' (checksums signed)' : ''}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`release:provider: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
