# The GitOps example (examples/gitops, cdktf) in plain HCL: an agent deployed from GitHub on every push to main, and
# its traces exported every day to an S3 bucket made for them, written by an IAM user whose policy allows exactly
# the export permissions (see docs/constructs.md, ExportBucket) on the export prefix.
#
#   export AGENTPLATFORM_API_KEY=... AGENTPLATFORM_CONTROL_PLANE_URL=... AGENTPLATFORM_TRACING_URL=...
#   export TF_VAR_openai_api_key=... TF_VAR_tracing_project_id=...  # and AWS credentials
#   node ../../../bin/agentplatform-provider.js install --dir .     # the provider, offline, plus .terraform.lock.hcl
#   terraform init && terraform apply                               # hashicorp/aws comes from the registry

terraform {
  required_version = ">= 1.11"
  required_providers {
    agentplatform = { source = "agentplatform/agentplatform" }
    aws           = { source = "hashicorp/aws", version = ">= 6.0" }
  }
}

variable "aws_region" {
  description = "Region of the export bucket."
  type        = string
  default     = "eu-west-1"
}

variable "openai_api_key" {
  description = "Passed to the agent as OPENAI_API_KEY; write-only, never stored in plan or state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "tracing_project_id" {
  description = "Id of the tracing project \"support-agent\" (the platform traces the deployment's runs there)."
  type        = string
}

# Every whole day from here to now is exported at once when the schedule is made: start from today, say.
variable "export_start" {
  description = "Start of the first day exported (ISO 8601, e.g. 2026-01-01T00:00:00Z); the days before it are not exported."
  type        = string
}

provider "aws" {
  region = var.aws_region
}

# Configured from the AGENTPLATFORM_* environment variables.
provider "agentplatform" {}

locals {
  export_prefix = "agent-traces"
}

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

  secrets = {
    OPENAI_API_KEY = var.openai_api_key
  }
  secrets_version = 1
}

# The bucket: public access blocked, encrypted, ACLs off, exported files expiring after 90 days.
resource "aws_s3_bucket" "traces" {
  bucket_prefix = "agentplatform-exports-"
}

resource "aws_s3_bucket_public_access_block" "traces" {
  bucket                  = aws_s3_bucket.traces.bucket
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_server_side_encryption_configuration" "traces" {
  bucket = aws_s3_bucket.traces.bucket
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_ownership_controls" "traces" {
  bucket = aws_s3_bucket.traces.bucket
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "traces" {
  bucket = aws_s3_bucket.traces.bucket
  rule {
    id     = "agentplatform-exports"
    status = "Enabled"
    filter {
      prefix = "${local.export_prefix}/"
    }
    expiration {
      days = 90
    }
    abort_incomplete_multipart_upload {
      days_after_initiation = 7
    }
  }
}

# The writer: exactly the export actions, on the export prefix only (the validation objects under tmp/ included).
resource "aws_iam_user" "exporter" {
  name = "agentplatform-export-support-agent"
}

resource "aws_iam_access_key" "exporter" {
  user = aws_iam_user.exporter.name
}

resource "aws_iam_user_policy" "exporter" {
  name_prefix = "agentplatform-export-"
  user        = aws_iam_user.exporter.name
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid      = "AgentPlatformBulkExport"
      Effect   = "Allow"
      Action   = ["s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload"]
      Resource = ["${aws_s3_bucket.traces.arn}/${local.export_prefix}/*"]
      }, {
      # the platform deletes only the test object it writes when the destination is created
      Sid      = "AgentPlatformDestinationTestObject"
      Effect   = "Allow"
      Action   = ["s3:DeleteObject"]
      Resource = ["${aws_s3_bucket.traces.arn}/${local.export_prefix}/tmp/*"]
    }]
  })
}

resource "agentplatform_export_destination" "traces" {
  display_name = "support-agent traces"
  bucket_name  = aws_s3_bucket.traces.bucket
  prefix       = local.export_prefix
  region       = aws_s3_bucket.traces.region

  credentials = {
    access_key_id     = aws_iam_access_key.exporter.id
    secret_access_key = aws_iam_access_key.exporter.secret
  }
  credentials_version = 1

  # The platform validates the destination by writing with these keys: the policy must exist first.
  depends_on = [aws_iam_user_policy.exporter]
}

resource "agentplatform_bulk_export" "daily" {
  destination_id            = agentplatform_export_destination.traces.id
  session_id                = var.tracing_project_id
  start_time                = var.export_start
  interval_hours            = 24
  export_fields             = ["id", "trace_id", "parent_run_id", "name", "run_type", "start_time", "end_time", "status", "total_tokens", "total_cost"]
  filter                    = "eq(is_root, true)"
  cancel_spawned_on_destroy = true
}

output "url" {
  value = agentplatform_deployment.agent.url
}

output "revision" {
  value = agentplatform_deployment.agent.latest_revision_id
}

output "bucket" {
  value = aws_s3_bucket.traces.bucket
}
