/**
 * The documentation pages of the deployment resource and the control plane data sources beyond what their schemas
 * give (examples in HCL, behaviour, import notes), for the provider's docs generator. Only the generator loads this module,
 * never the provider.
 */
import type { DocPageExtras } from '../../framework/docs';

const DEPLOYMENT_EXAMPLES = [
  `
variable "openai_api_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

# Built from a GitHub repository; apply returns once the revision is DEPLOYED.
resource "agentplatform_deployment" "agent" {
  name          = "support-agent"
  source        = "github"
  repo_url      = "https://github.com/acme/support-agent"
  repo_ref      = "main"
  build_on_push = true

  resource_spec = {
    min_scale = 1
    max_scale = 3
    cpu       = 1
    memory_mb = 2048
  }

  # Write-only: never in plan or state. Increment secrets_version to send new values.
  secrets = {
    OPENAI_API_KEY = var.openai_api_key
  }
  secrets_version = 1

  # After each new revision is DEPLOYED, one run must answer with this text, or the apply fails.
  smoke_test = {
    assistant_id    = "chat"
    input           = jsonencode({ messages = [{ role = "user", content = "ping" }] })
    expect_contains = "ping"
    timeout         = "1m"
  }

  timeouts = {
    create = "45m"
  }
}
`,
  `
# Runs a container image; apply returns without waiting for the revision.
resource "agentplatform_deployment" "image" {
  name              = "research-agent"
  source            = "external_docker"
  image_uri         = "registry.example.com/research-agent:1.4.2"
  deployment_type   = "dev"
  wait_for_deployed = false
}
`,
];

const DEPLOYMENT_IMPORT = `
Import a deployment by its id:

\`\`\`shell
terraform import agentplatform_deployment.agent 6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24
\`\`\`

or, with Terraform 1.5 or later, with an import block:

\`\`\`terraform
import {
  to = agentplatform_deployment.agent
  id = "6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24"
}
\`\`\`

A configuration that matches the deployment then plans no changes, unless its latest revision failed (\`revision_status\`
\`CREATE_FAILED\`, \`BUILD_FAILED\` or \`DEPLOY_FAILED\`): then, as for any deployment in state, the plan deploys its
source again as a new revision, with a warning. The settings only Terraform keeps are not on the
platform, so the import sets them as if the configuration left them out: no \`secrets_version\` (the platform never
returns secret values), no \`timeouts\`, and \`wait_for_deployed = true\`. Setting \`secrets_version\` then plans one
in-place update that sends \`secrets\` again (a new revision when they differ); setting \`timeouts\`, or
\`wait_for_deployed = false\`, one that only updates the state, with no request to the platform. With \`smoke_test\` set, the
plan after an import shows one in-place update that runs the check once (\`smoke_test_revision_id\` known after apply). The imported \`secret_names\` are the names the deployment has: \`secrets\` with other names plans an update
that sends them, with or without \`secrets_version\`.

A create that finds the name taken fails with the command to import the existing deployment (\`<name>\` standing
for the resource's name in the configuration). A replacement under \`create_before_destroy\` cannot take the name of the
deployment it replaces, which holds it until it is destroyed: give the replacement another name.

A create that gets no clear answer (terraform was interrupted, the request timed out, the connection broke or a 5xx
other than 503 came once the request was sent, or a success came whose body could not be read) may have created the
deployment all the same. Every create carries an \`Idempotency-Key\` derived from the configured settings, the same in
every apply, and names are unique, so the provider sends the same create again, after the platform's \`Retry-After\` or
a backoff, until an answer tells, within \`timeouts.create\`: a platform that honours the key answers with the
deployment the first request made; one that ignores it answers that the name is taken, and the deployment of that name
created since the first request went out, with the configured settings, is the one. It is kept in the state with a
warning, and the create goes on (it waits for \`DEPLOYED\`); a deployment of that name made otherwise is an error that
gives the command to import it. When nothing answers in time, the apply fails, and the next apply sends the same
create: the local platform answers it with the deployment the first one made ([convergence.md](../convergence.md)).
`;

const SMOKE_TEST_BEHAVIOUR = `
### Post-deploy check (\`smoke_test\`)

After an apply that leaves a new revision \`DEPLOYED\` (a create, an update that deploys a revision, an apply after a
push built one), the provider streams one run from the deployment's agent server, at its \`url\` with the provider's
API key: a stateless \`POST /runs/stream\` of \`assistant_id\` with \`input\`, in the \`values\` stream mode, which
keeps no thread behind. The check passes when the run ends without error within \`timeout\` and its final answer
contains \`expect_contains\`; the answer is the content of the last message of the final values (the text parts of a
content list), or the final values as JSON when they hold no message.

\`smoke_test_revision_id\` keeps the revision the check last passed on. The check runs again only when the plan shows
that attribute as \`(known after apply)\`: when the latest revision changes (also outside Terraform, as a refresh
sees it), when the check did not pass last time, and when \`smoke_test\` changes (its \`input\` compared as JSON, so a
reformatted text is no change). An apply without a change runs nothing.

A check that fails on an update fails the apply, naming the revision, the run and its error (the answer's start, when
it lacks \`expect_contains\`; the time limit, when the run outlasts it). The revision stays \`DEPLOYED\`: the
platform serves it whatever the check says. The state keeps the change with \`smoke_test_revision_id\` null, so the
next plan shows an in-place update that runs the check again, and a fixed check (or a fixed agent) passes there
without replacing anything. A check that fails on a create fails the apply too, and terraform marks the new
deployment tainted, as after a create whose wait fails: the next apply replaces it, or, after \`terraform untaint\`,
runs the check again on it in place. A check that cannot run (the revision is not \`DEPLOYED\`, with \`wait_for_deployed = false\`,
or the apply failed before it) is left for the next apply in the same way, with a warning when nothing else failed.
`;

const REVISIONS_EXAMPLE = `
# Every deployed revision of the agent, newest first, across all pages.
data "agentplatform_revisions" "deployed" {
  deployment_id = agentplatform_deployment.agent.id
  status        = ["DEPLOYED"]
  all           = true
}

output "deployed_commits" {
  value = [for r in data.agentplatform_revisions.deployed.revisions : r.source_revision_config.repo_commit_sha]
}
`;

const TEMPLATES_EXAMPLE = `
data "agentplatform_sandbox_templates" "all" {}

output "sandbox_images" {
  value = { for t in data.agentplatform_sandbox_templates.all.templates : t.name => t.image }
}
`;

const DEPLOYMENT_BEHAVIOUR = `
### Waiting for DEPLOYED

With \`wait_for_deployed\` (the default), create and every change that deploys a new revision wait, within \`timeouts\`,
until that revision is \`DEPLOYED\`; a failed revision fails the apply. A newer revision of the same source that takes
its place (new secrets, a push built) is waited for instead; one of another source, made outside Terraform meanwhile,
fails the apply, and the state records what that one deploys.

The wait polls quickly after each status change and less often while nothing changes. Once a revision has been waited
for, the provider remembers how long it took (in private state, never in a plan) and the next wait polls around that
time (and every quarter of it on the way, so a quicker build is seen soon too), so an apply returns soon after
\`DEPLOYED\` with a few polls.

### Failed revisions

When \`revision_status\` is one of the failed statuses (\`CREATE_FAILED\`, \`BUILD_FAILED\`, \`DEPLOY_FAILED\`), the next
plan deploys the same source again as a new revision, as an in-place update, with a warning.

### Secrets

\`secrets\` is write-only: the platform never returns the values, only their names (\`secret_names\`). The secrets are
sent on create, whenever \`secrets_version\` changes, and whenever their names differ from \`secret_names\`. Left out,
the deployment's secrets are left as they are; \`{}\` with a new \`secrets_version\` removes them all. The plan warns of
names, counts and lengths the platform may refuse.

When \`secrets\` is set and its names differ from \`secret_names\` (a name added to or removed from \`secrets\`, or the
secrets replaced outside Terraform), the plan shows \`secret_names\` changing to the configured names and the apply sends
\`secrets\` again, with no new \`secrets_version\`. A changed value cannot be seen: it needs a new \`secrets_version\`.
`;

/** Examples, behaviour and import notes of the deployment resource and the control plane data sources, by type name. */
export const DEPLOYMENT_DOC_PAGES: Readonly<Record<string, DocPageExtras>> = {
  agentplatform_deployment: { examples: DEPLOYMENT_EXAMPLES, importSection: DEPLOYMENT_IMPORT, behaviour: DEPLOYMENT_BEHAVIOUR + SMOKE_TEST_BEHAVIOUR },
  agentplatform_revisions: { examples: [REVISIONS_EXAMPLE] },
  agentplatform_sandbox_templates: { examples: [TEMPLATES_EXAMPLE] },
};
