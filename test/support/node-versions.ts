/**
 * The Node.js versions the project is tested with besides the one running the tests: installed on first use from
 * the npm registry by scripts/ci/node-version.sh (which pins each version) into the repository's `.cache/node/`.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

export type NodeMajor = 22 | 24;

export interface NodeRuntime {
  /** The installed package: `bin/node`, and `include/node`, the headers to build native addons against. */
  readonly home: string;
  /** Its `node` executable. */
  readonly node: string;
  /** A `PATH` whose first `node` is this one (npm and npx then run on it too). */
  readonly path: string;
}

export function nodeRuntime(major: NodeMajor): NodeRuntime {
  const script = resolve(__dirname, '..', '..', 'scripts', 'ci', 'node-version.sh');
  const home = execFileSync('bash', [script, String(major)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const bin = join(home, 'bin');
  return { home, node: join(bin, 'node'), path: `${bin}:${process.env.PATH ?? ''}` };
}
