#!/bin/bash
# Runs the tests on another Node.js version: jest itself, and every node the tests start (the local platform, and the
# provider terraform launches, which takes the first node on the PATH), run on the pinned Node 22 or 24 that
# node-version.sh installs. Native addons compiled against V8 are built for that Node into .cache/node/<major>/addons,
# a copy, and loaded from there (native-addons.cjs): node_modules stays built for the Node it was installed with.
# That is better-sqlite3, and the node-pty of cdktf-cli (which the tests run) for a Node it ships no prebuilt addon for
# (24); Node-API addons (snappy's) load on any version as they are.
# Without jest arguments it runs the construct, provider and local platform suites.
# Usage: bash scripts/ci/other-node.sh 22|24 [jest arguments]
set -euo pipefail

major=${1:?usage: other-node.sh 22|24 [jest arguments]}
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

home=$(bash scripts/ci/node-version.sh "$major")
export PATH="$home/bin:$PATH"
version=$(node --version)

# npm's own node-gyp (the one `npm rebuild` uses), found beside npm-cli.js
npm_cli=$(readlink -f "$(command -v npm)")
node_gyp="$(dirname "$npm_cli")/../node_modules/node-gyp/bin/node-gyp.js"
[ -f "$node_gyp" ] || { echo "other-node: npm's node-gyp is not at $node_gyp" >&2; exit 1; }

modules=$(cd node_modules && pwd -P)
addons="$root/.cache/node/$major/addons"
# node-pty's own loader takes prebuilds/<platform>-<arch>/node.abi<ABI>.node when there is one
pty=@cdktf/node-pty-prebuilt-multiarch
pty_prebuilt=$(node -p "const os = require('node:os'); require('node:fs').existsSync(
  '$modules/$pty/prebuilds/' + os.platform() + '-' + os.arch() + '/node.abi' + process.versions.modules + '.node')")
packages=(better-sqlite3)
[ "$pty_prebuilt" = true ] || packages+=("$pty")
for package in "${packages[@]}"; do
  source="$modules/$package"
  copy="$addons/$package"
  built_for="$version $(node -p "require('$source/package.json').version")"
  if [ "$(cat "$copy/.built-for" 2>/dev/null)" != "$built_for" ]; then
    echo "other-node: building $package for Node $version" >&2
    rm -rf "$copy"
    mkdir -p "$copy"
    (cd "$source" && tar --exclude=./build -cf - .) | (cd "$copy" && tar -xf -)
    # node-gyp takes npm_config_* variables over its arguments (`npm run` sets them from npm's configuration, which
    # may name another Node's headers); the compiler's output goes to a log, shown only if the build fails
    log="$addons/${package//\//+}.build.log"
    (cd "$copy" && npm_config_nodedir="$home" NPM_CONFIG_NODEDIR="$home" \
      node "$node_gyp" rebuild --release --nodedir="$home" >"$log" 2>&1) || {
      tail -n 40 "$log" >&2
      exit 1
    }
    echo "$built_for" > "$copy/.built-for"
  fi
done

export NODE_OPTIONS="${NODE_OPTIONS:-} --require \"$root/scripts/ci/native-addons.cjs\""
# test/provider/node-version.test.ts checks that jest and the processes it starts run on this version
export AGENTPLATFORM_TEST_NODE="$version"
echo "other-node: jest on Node $version ($home/bin/node)" >&2
[ $# -gt 0 ] || set -- test/constructs test/provider test/local
exec node node_modules/jest/bin/jest.js "$@"
