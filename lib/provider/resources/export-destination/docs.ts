/**
 * The documentation pages of `agentplatform_export_destination` beyond what its schema gives (examples in HCL,
 * behaviour, import notes), for the provider's docs generator. Only the generator loads this module, never the provider.
 */
import type { DocPageExtras } from '../../framework/docs';

const DESTINATION_EXAMPLES = [
  `
variable "export_access_key_id" {
  type      = string
  ephemeral = true
}

variable "export_secret_access_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

# An Amazon S3 bucket; the key needs s3:PutObject on the prefix (ExportBucket grants it).
resource "agentplatform_export_destination" "s3" {
  display_name = "trace archive"
  bucket_name  = "acme-trace-archive"
  prefix       = "agents/support"
  region       = "eu-west-1"

  # Write-only: never in plan or state. Increment credentials_version to rotate the keys in place.
  credentials = {
    access_key_id     = var.export_access_key_id
    secret_access_key = var.export_secret_access_key
  }
  credentials_version = 1
}
`,
  `
# A bucket of an S3-compatible store, written with the platform host's environment credentials (self-hosted).
resource "agentplatform_export_destination" "ceph" {
  display_name             = "on-prem archive"
  bucket_name              = "traces"
  endpoint_url             = "https://rgw.internal.example.com"
  include_bucket_in_prefix = true
}
`,
];

const DESTINATION_IMPORT = `
Import a destination by its id:

\`\`\`shell
terraform import agentplatform_export_destination.s3 0b7e4a6c-3f21-4d8e-9c55-2a1f6e9b3d70
\`\`\`

The platform never returns credentials, so the imported state has no \`credentials_version\`: a configuration that sets
one plans one in-place update that sends \`credentials\` again (validated by the platform like a rotation). A
configuration with no \`credentials\` for a destination that holds keys plans no change, with a warning that the
platform keeps using them; \`terraform apply -replace\` makes a destination of the host's credentials instead.

The platform has no API to delete a destination: \`terraform destroy\` removes it from the state and says so in a
warning; it stays in the workspace. So a create that gets no clear answer (\`timeouts.create\` ran out, terraform was
interrupted, the connection broke or a 5xx other than 503 came once the request was sent, or a success came whose body
could not be read) is not sent again: the provider lists the destinations, again and again within \`timeouts.create\`,
and the one created since the request went out with the same name, bucket and prefix is kept in the state, with a
warning. Several, or none, are an error that names them apart from older ones. Every create carries an
\`Idempotency-Key\` derived from the settings, so the next apply's create is answered, by a platform that honours the
key (the local platform), with the destination an unanswered one made ([convergence.md](../convergence.md)).
`;

const DESTINATION_BEHAVIOUR = `
### Credentials

\`credentials\` is write-only: the platform never returns the keys, only the names of their fields (\`credentials_keys\`).
They are sent on create, whenever \`credentials_version\` changes (a rotation in place, which the platform validates
first), and when the platform holds other fields than the configured ones (keys changed outside Terraform): the plan
then shows \`credentials_keys\` changing to the configured fields. Any other change plans \`credentials_keys\` as they
are. The keys need s3:PutObject on the prefix (ExportBucket grants it).

Left out, the platform uses its host's environment credentials (self-hosted installations). Removing them later (with a
new \`credentials_version\`) replaces the destination, because the platform cannot switch one to environment
credentials.

### Workspace

A destination that moves to another workspace (see [Workspaces](../provider.md#workspaces)) is made anew there, and the
old one is left on the platform, as a destroy leaves it: the platform cannot delete destinations.
`;

/** The doc pages of the export destination, by type name. */
export const DESTINATION_DOC_PAGES: Readonly<Record<string, DocPageExtras>> = {
  agentplatform_export_destination: { examples: DESTINATION_EXAMPLES, importSection: DESTINATION_IMPORT, behaviour: DESTINATION_BEHAVIOUR },
};
