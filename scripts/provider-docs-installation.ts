/**
 * The installation section of docs/provider.md (written by scripts/generate-provider-docs.ts): the three ways to
 * install the provider, mirror first. test/release/mirror-install.test.ts runs its mirror blocks as they stand, with
 * only the placeholders in angle brackets filled in, so keep them literal commands and configuration.
 */
import { PROVIDER_ADDRESS, PROVIDER_EXECUTABLE_PREFIX, PROVIDER_SOURCE, PROVIDER_TYPE_NAME, PROVIDER_VERSION } from '../lib/provider/constants';
import { NODE_PACKAGES } from './release/node-packages';

const V = PROVIDER_VERSION;
const EXE = PROVIDER_EXECUTABLE_PREFIX;
const ADDRESS = PROVIDER_ADDRESS;
const PLATFORMS = Object.keys(NODE_PACKAGES);
const PLATFORM_LIST = PLATFORMS.map((p) => `\`${p}\``).join(', ');
const PLATFORM_FLAGS = PLATFORMS.map((p) => `-platform=${p}`).join(' ');

/** The section, from its `## Installation` heading to the blank line before the next section. */
export const INSTALLATION_SECTION = `## Installation

Terraform 1.11 or later (for write-only secrets) installs the provider in one of three ways. The first two need no
Node.js where terraform runs (HCP Terraform and Terraform Enterprise runs, CI runners, Windows); the third is for cdktf
apps and developer machines that have Node.js. In the commands, replace each placeholder in angle brackets
(\`<mirror dir>\`).

### 1. A provider mirror, from the release artifacts

The provider is released as one executable per platform
(${PLATFORM_LIST}): a Node.js single executable application,
which carries its own Node.js. Build the release in a clone of this repository (the only place that needs Node.js):

\`\`\`sh
npm ci
npm run release:provider    # writes dist/release/${V}/
\`\`\`

The build downloads each platform's official Node.js from the npm registry once (kept in \`.cache/release/\`).
\`dist/release/${V}/\` then holds:

- \`${EXE}_${V}_<os>_<arch>.zip\`, one per platform, holding the executable
  \`${EXE}_v${V}\` (\`.exe\` on Windows);
- \`${EXE}_${V}_SHA256SUMS\`, \`${EXE}_${V}_manifest.json\`
  (plugin protocol 6.0) and, when the release is given a GPG key (\`npm run release:provider -- --gpg-key <key id>\`,
  with \`--gpg-home <dir>\` for another keyring), the sums' detached signature
  \`${EXE}_${V}_SHA256SUMS.sig\`;
- \`index.json\` and \`${V}.json\`: a network mirror's documents, with the \`h1:\` and \`zh:\` hashes of each zip.

\`npm run release:provider -- --platforms linux_amd64,darwin_arm64\` builds only the platforms named.

A mirror is a folder holding the provider in terraform's layout,
\`<mirror dir>/${ADDRESS}/\`. Add the release to one (the versions already there stay):

\`\`\`sh
node bin/agentplatform-provider.js mirror --release dist/release/${V} --dir <mirror dir>
\`\`\`

The command copies the zips and \`${V}.json\`, rewrites \`index.json\` to list every version the folder holds, and
prints the CLI configuration blocks below for that folder. Where Node.js is missing, copying makes a mirror of one
version:

\`\`\`sh
mkdir -p <mirror dir>/${ADDRESS}
cp dist/release/${V}/*.zip dist/release/${V}/index.json dist/release/${V}/${V}.json <mirror dir>/${ADDRESS}/
\`\`\`

Terraform finds the mirror through its CLI configuration file: \`~/.terraformrc\` (\`%APPDATA%\\terraform.rc\` on
Windows), or the file \`TF_CLI_CONFIG_FILE\` names. A **filesystem mirror** is the folder itself, on the machine
terraform runs on (or a copy of it, in a CI image):

\`\`\`hcl
provider_installation {
  filesystem_mirror {
    path    = "<mirror dir>"
    include = ["${ADDRESS}"]
  }
  direct {
    exclude = ["${ADDRESS}"]
  }
}
\`\`\`

A **network mirror** is the folder served by any static HTTPS server, so that
\`https://<mirror host>/${ADDRESS}/index.json\` is its \`index.json\`. Terraform needs
HTTPS with a certificate it trusts (on Linux, \`SSL_CERT_FILE\` names the certificates to trust instead of the
system's):

\`\`\`hcl
provider_installation {
  network_mirror {
    url     = "https://<mirror host>/"
    include = ["${ADDRESS}"]
  }
  direct {
    exclude = ["${ADDRESS}"]
  }
}
\`\`\`

\`direct\` keeps every other provider coming from its registry. Then, in the configuration
(\`source = "${PROVIDER_SOURCE}"\`, as in the example above), record the hashes of every platform in
\`.terraform.lock.hcl\` (and commit it), and initialise. From a filesystem mirror:

\`\`\`sh
export TF_CLI_CONFIG_FILE=<cli config file>   # unless the block is in the default file
terraform providers lock -fs-mirror=<mirror dir> ${PLATFORM_FLAGS}
terraform init
\`\`\`

From a network mirror:

\`\`\`sh
export TF_CLI_CONFIG_FILE=<cli config file>   # unless the block is in the default file
terraform providers lock -net-mirror=https://<mirror host>/ ${PLATFORM_FLAGS}
terraform init
\`\`\`

(Name only the platforms the release holds.) The lock file then holds one \`h1:\` hash per platform, the ones
\`${V}.json\` lists, and every \`terraform init\` checks the provider it installs against it. \`terraform init\` alone
installs the provider as well, but records the hash of its own platform only, and warns so.

### 2. A private registry (HCP Terraform, Terraform Enterprise)

A private registry serves the provider under the organization's name: configurations require it as
\`source = "app.terraform.io/<organization>/${PROVIDER_TYPE_NAME}"\` (Terraform Enterprise: its host name instead of
\`app.terraform.io\`), and runs install it with no CLI configuration. The registry takes the same release, signed:
make a signing key once, and build the release with it.

\`\`\`sh
gpg --batch --passphrase '' --quick-generate-key 'agentplatform provider releases' rsa4096 sign never
gpg --list-secret-keys --keyid-format long    # the key id: the 16 hex digits after "rsa4096/"
npm run release:provider -- --gpg-key <key id>
\`\`\`

Then publish it through the registry's API, as HCP Terraform documents it ("Publishing private providers"), with an
API token of a team that may manage the private registry in \`TOKEN\` and the organization's name in \`ORG\` (the
commands use \`curl\` and \`jq\`):

\`\`\`sh
cd dist/release/${V}
API=https://app.terraform.io/api    # Terraform Enterprise: https://<host>/api
KEY_ID=<key id>
PROVIDER=$API/v2/organizations/$ORG/registry-providers/private/$ORG/${PROVIDER_TYPE_NAME}
post() { curl -sSf -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/vnd.api+json' --data "$2" "$1"; }
# once: the public key and the provider
post $API/registry/private/v2/gpg-keys "$(jq -n --arg ns "$ORG" --arg key "$(gpg --armor --export $KEY_ID)" \\
  '{data: {type: "gpg-keys", attributes: {namespace: $ns, "ascii-armor": $key}}}')"
post $API/v2/organizations/$ORG/registry-providers "$(jq -n --arg ns "$ORG" \\
  '{data: {type: "registry-providers", attributes: {name: "${PROVIDER_TYPE_NAME}", namespace: $ns, "registry-name": "private"}}}')"
# each release: the version, whose answer links the uploads of the sums and their signature
VERSION=$(post $PROVIDER/versions "$(jq -n --arg key "$KEY_ID" \\
  '{data: {type: "registry-provider-versions", attributes: {version: "${V}", "key-id": $key, protocols: ["6.0"]}}}')")
curl -sSf -T ${EXE}_${V}_SHA256SUMS "$(echo "$VERSION" | jq -r '.data.links["shasums-upload"]')"
curl -sSf -T ${EXE}_${V}_SHA256SUMS.sig "$(echo "$VERSION" | jq -r '.data.links["shasums-sig-upload"]')"
# then each platform: its entry (os, arch, the zip's name and its SHA-256 from the sums), then the zip
for platform in ${PLATFORMS.join(' ')}; do
  zip=${EXE}_${V}_$platform.zip
  shasum=$(awk -v zip="$zip" '$2 == zip { print $1 }' ${EXE}_${V}_SHA256SUMS)
  upload=$(post $PROVIDER/versions/${V}/platforms "$(jq -n --arg os "\${platform%_*}" --arg arch "\${platform#*_}" \\
    --arg filename "$zip" --arg shasum "$shasum" \\
    '{data: {type: "registry-provider-platforms", attributes: {os: $os, arch: $arch, shasum: $shasum, filename: $filename}}}')" |
    jq -r '.data.links["provider-binary-upload"]')
  curl -sSf -T "$zip" "$upload"
done
\`\`\`

Terraform then installs the provider from the registry as from any other: it checks the sums' signature against the
key and each zip against the sums, and records in \`.terraform.lock.hcl\` the \`zh:\` hashes of every platform (from the
signed sums) and the \`h1:\` hash of its own.

### 3. The launcher, for cdktf apps and developer machines with Node.js

Here the provider is a Node.js program (Node.js 20.18.1 or later, 22 or 24) that terraform finds in the
configuration's implied local mirror, with no registry and no CLI configuration:

\`\`\`sh
node_modules/.bin/agentplatform-provider install --dir path/to/configuration   # where the package is installed
cd path/to/configuration && terraform init
\`\`\`

The command comes with the package: run it from the \`node_modules/.bin\` of the folder that installed the package
(\`npm exec -- agentplatform-provider install …\` there finds it in the same place), or by its path,
\`node <path to the package>/bin/agentplatform-provider.js install --dir .\`; in a clone of this repository,
\`node bin/agentplatform-provider.js install --dir path/to/configuration\`. Never run it anywhere else as
\`npx agentplatform-provider\`: the package is not on the npm registry, and npx would fetch whatever package of that
name the registry holds, without asking in CI.

The command writes the launcher to \`terraform.d/plugins/${ADDRESS}/<version>/<os>_<arch>/\`,
the place of the provider's entry point to \`terraform.d/agentplatform-provider-entry\` (its path relative to
\`terraform.d\`), and the launcher's checksum to \`.terraform.lock.hcl\` (entries of other providers are kept). Run it
again after upgrading the package, or after moving the configuration. cdktf stacks get all three at synth, from the
\`AgentPlatformProvider\` construct, which can also put a release's executable there instead
([constructs.md](constructs.md#agentplatformprovider)).

The launcher is a small \`sh\` script that names no path (unless the install is given one for Node.js): it runs the
entry point named in \`terraform.d/agentplatform-provider-entry\` of terraform's working directory (so the provider of
the checkout terraform runs in, also when terraform's plugin cache shares one launcher between checkouts and between
configurations at any depth), with \`node\` on the \`PATH\` terraform runs with, or the Node.js that
\`AGENTPLATFORM_NODE\` names. So every configuration, checkout and CI machine gets the same hash, and
\`.terraform.lock.hcl\` can be committed. The hash pins the launcher, not where it points (the entry file) nor the
provider's code, which \`package-lock.json\` pins. Without Node.js, terraform shows the launcher's message
("agentplatform provider: node (Node.js 20 or later) not found …").
`;
