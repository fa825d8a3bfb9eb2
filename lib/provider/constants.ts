/**
 * Names shared by the provider runtime and by code that only refers to the provider (the constructs, the installer).
 * This module loads nothing but `node:fs` and `node:path`: importing it never pulls in the provider runtime.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Terraform type name of the provider: the prefix of every resource type (`agentplatform_deployment`). */
export const PROVIDER_TYPE_NAME = 'agentplatform';

/** Registry host of the provider address. */
export const PROVIDER_HOSTNAME = 'registry.terraform.io';

/** Namespace of the provider address. */
export const PROVIDER_NAMESPACE = 'agentplatform';

/** Source address users write in `required_providers` (`source = "agentplatform/agentplatform"`). */
export const PROVIDER_SOURCE = `${PROVIDER_NAMESPACE}/${PROVIDER_TYPE_NAME}`;

/** Fully qualified provider address, as `.terraform.lock.hcl` and the plugin mirror spell it. */
export const PROVIDER_ADDRESS = `${PROVIDER_HOSTNAME}/${PROVIDER_SOURCE}`;

/** Name of the plugin executable terraform looks for, without the version suffix. */
export const PROVIDER_EXECUTABLE_PREFIX = `terraform-provider-${PROVIDER_TYPE_NAME}`;

/** The packages this file ships in: the repository's own, and the construct packages built from it. */
const PACKAGE_NAMES: readonly string[] = ['cdktf-agent-platform', '@agentplatform/cdktf', '@agentplatform/cdktn'];

/**
 * Root folder of this package (the one holding its `package.json`), found from this file's own location so that it
 * is the same whether the code runs from `lib/` (TypeScript), from `dist/lib/` (compiled) or from a construct
 * package (compiled by jsii, or bundled with the provider).
 */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && PACKAGE_NAMES.includes((JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name ?? '')) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of ${PACKAGE_NAMES.join(' or ')} above ${__dirname}`);
    dir = parent;
  }
}

/**
 * Set by the release bundle (esbuild `define`): a single executable has no package.json beside it.
 * Everywhere else the identifier is undeclared, and `typeof` of it is `'undefined'`.
 */
declare const AGENTPLATFORM_PROVIDER_VERSION: string | undefined;

/** Version of the provider: fixed in the release executable, else the package version from `package.json`. */
export const PROVIDER_VERSION: string =
  typeof AGENTPLATFORM_PROVIDER_VERSION === 'string'
    ? AGENTPLATFORM_PROVIDER_VERSION
    : (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
