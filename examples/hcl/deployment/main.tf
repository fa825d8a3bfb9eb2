# An agent deployment with plain Terraform, against the local platform (or the real one).
#
#   node ../../../bin/agentplatform-local.js --port 8123         # prints the URL and a dev API key
#   export AGENTPLATFORM_CONTROL_PLANE_URL=http://127.0.0.1:8123
#   export AGENTPLATFORM_API_KEY=lp_...                          # the dev api key line
#   node ../../../bin/agentplatform-provider.js install --dir .  # the provider, offline, plus .terraform.lock.hcl
#   terraform init && terraform apply
#
# The local platform fails a revision on request: try repo_ref = "main#fail-build".

terraform {
  required_version = ">= 1.11"
  required_providers {
    agentplatform = { source = "agentplatform/agentplatform" }
  }
}

# Configured from AGENTPLATFORM_CONTROL_PLANE_URL and AGENTPLATFORM_API_KEY.
provider "agentplatform" {}

variable "openai_api_key" {
  description = "Passed to the agent as OPENAI_API_KEY; write-only, never stored in the state."
  type        = string
  sensitive   = true
  ephemeral   = true
  default     = "sk-local-placeholder"
}

resource "agentplatform_deployment" "agent" {
  name     = "hcl-example-agent"
  source   = "github"
  repo_url = "https://github.com/acme/support-agent"
  repo_ref = "main"

  resource_spec = {
    min_scale = 1
    max_scale = 2
  }

  secrets = {
    OPENAI_API_KEY = var.openai_api_key
  }
  secrets_version = 1

  # After each new revision is DEPLOYED, one run must give this answer, or the apply fails (the local fake model
  # answers "You said: <the last message>").
  smoke_test = {
    assistant_id    = "chat"
    input           = jsonencode({ messages = [{ role = "user", content = "ping" }] })
    expect_contains = "You said: ping"
  }
}

data "agentplatform_revisions" "agent" {
  deployment_id = agentplatform_deployment.agent.id
  all           = true
}

data "agentplatform_sandbox_templates" "all" {}

output "url" {
  value = agentplatform_deployment.agent.url
}

output "revision" {
  value = "${agentplatform_deployment.agent.latest_revision_id} (${agentplatform_deployment.agent.revision_status})"
}

output "revision_count" {
  value = length(data.agentplatform_revisions.agent.revisions)
}

output "sandbox_templates" {
  value = [for t in data.agentplatform_sandbox_templates.all.templates : t.name]
}
