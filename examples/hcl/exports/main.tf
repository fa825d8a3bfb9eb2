# Trace exports with plain Terraform: a destination bucket, a daily scheduled export of a tracing project, a one-off
# backfill of one day waited for until it is Completed, and the runs (rows, Parquet files) of that backfill. Against
# the local platform with any S3-compatible store, or the real platform with Amazon S3 (leave endpoint_url out).
#
#   node ../../../bin/agentplatform-local.js --port 8123          # prints the URL and a dev API key
#   node ../../../bin/agentplatform-local.js s3 --port 4568       # an S3 server: endpoint_url=http://127.0.0.1:4568,
#                                                                 # bucket agent-traces, access key id S3RVER, any secret
#   export AGENTPLATFORM_TRACING_URL=http://127.0.0.1:8123
#   export AGENTPLATFORM_API_KEY=lp_...                           # the dev api key line
#   export TF_VAR_access_key_id=... TF_VAR_secret_access_key=...  # may s3:PutObject on the bucket's prefix
#   node ../../../bin/agentplatform-provider.js install --dir .   # the provider, offline, plus .terraform.lock.hcl
#   terraform init
#   terraform apply -var session_id=<tracing project id> -var endpoint_url=<S3 API address> \
#     -var schedule_start=2025-06-01T00:00:00Z -var backfill_day=2025-05-31

terraform {
  required_version = ">= 1.11"
  required_providers {
    agentplatform = { source = "agentplatform/agentplatform" }
  }
}

# Configured from AGENTPLATFORM_TRACING_URL and AGENTPLATFORM_API_KEY.
provider "agentplatform" {}

variable "session_id" {
  description = "Id of the tracing project to export (a deployment's runs are traced into the project named after it)."
  type        = string
}

variable "bucket_name" {
  description = "The bucket the Parquet files go to."
  type        = string
  default     = "agent-traces"
}

variable "endpoint_url" {
  description = "S3 API address of an S3-compatible store; null for Amazon S3."
  type        = string
  default     = null
}

variable "region" {
  description = "Region of the bucket (Amazon S3)."
  type        = string
  default     = null
}

variable "access_key_id" {
  description = "Access key the platform writes with; write-only, never stored in the state."
  type        = string
  ephemeral   = true
}

variable "secret_access_key" {
  description = "Secret of the access key; write-only, never stored in the state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "schedule_start" {
  description = "Start of the daily schedule (UTC); each day is exported 10 minutes after it ends."
  type        = string
}

variable "backfill_day" {
  description = "The day (YYYY-MM-DD, UTC) exported once, before the schedule starts."
  type        = string
}

resource "agentplatform_export_destination" "archive" {
  display_name = "agent trace archive"
  bucket_name  = var.bucket_name
  prefix       = "traces"
  endpoint_url = var.endpoint_url
  region       = var.region

  # Increment credentials_version to rotate the keys in place.
  credentials = {
    access_key_id     = var.access_key_id
    secret_access_key = var.secret_access_key
  }
  credentials_version = 1
}

# One export per day, without the bulky inputs and outputs. Destroy also cancels the days still in progress.
resource "agentplatform_bulk_export" "daily" {
  destination_id            = agentplatform_export_destination.archive.id
  session_id                = var.session_id
  start_time                = var.schedule_start
  interval_hours            = 24
  export_fields             = ["id", "trace_id", "parent_run_id", "name", "run_type", "start_time", "end_time", "status", "total_tokens", "total_cost"]
  cancel_spawned_on_destroy = true
}

# The day before, once: root runs only, typed columns; apply waits until the files are written.
resource "agentplatform_bulk_export" "backfill" {
  destination_id      = agentplatform_export_destination.archive.id
  session_id          = var.session_id
  start_time          = "${var.backfill_day}T00:00:00Z"
  end_time            = timeadd("${var.backfill_day}T00:00:00Z", "24h")
  filter              = "eq(is_root, true)"
  format_version      = "v2_beta"
  wait_for_completion = true

  timeouts = {
    create = "30m"
  }
}

data "agentplatform_bulk_export_runs" "backfill" {
  export_id = agentplatform_bulk_export.backfill.id
}

output "destination_id" {
  value = agentplatform_export_destination.archive.id
}

output "schedule" {
  value = "${agentplatform_bulk_export.daily.id} (${agentplatform_bulk_export.daily.status})"
}

output "backfill_rows" {
  value = sum(concat([0], [for r in data.agentplatform_bulk_export_runs.backfill.runs : r.rows_exported]))
}

output "backfill_files" {
  value = flatten([for r in data.agentplatform_bulk_export_runs.backfill.runs : r.files])
}
