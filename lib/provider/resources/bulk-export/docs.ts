/**
 * The documentation pages of `agentplatform_bulk_export` and the `agentplatform_bulk_export_runs` data source beyond
 * what their schemas give (examples in HCL, import notes), for the provider's docs generator. Only the generator loads
 * this module, never the provider.
 */
import type { DocPageExtras } from '../../framework/docs';

const EXPORT_EXAMPLES = [
  `
# A one-off export of January, waited for until it is Completed.
resource "agentplatform_bulk_export" "january" {
  destination_id      = agentplatform_export_destination.s3.id
  session_id          = "3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68"
  start_time          = "2025-01-01T00:00:00Z"
  end_time            = "2025-02-01T00:00:00Z"
  filter              = "and(eq(run_type, \\"llm\\"), eq(is_root, true))"
  export_fields       = ["id", "trace_id", "name", "start_time", "end_time", "status", "total_tokens", "total_cost"]
  format_version      = "v2_beta"
  wait_for_completion = true

  timeouts = {
    create = "2h"
  }
}
`,
  `
# A scheduled export: one export per day, each 10 minutes after its day ends. Destroy cancels the schedule and the
# spawned exports still in progress.
resource "agentplatform_bulk_export" "daily" {
  destination_id            = agentplatform_export_destination.s3.id
  session_id                = "3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68"
  start_time                = "2025-01-01T00:00:00Z"
  interval_hours            = 24
  cancel_spawned_on_destroy = true
}
`,
];

const EXPORT_IMPORT = `
Import an export by its id:

\`\`\`shell
terraform import agentplatform_bulk_export.january 6d2c8f0a-91b3-4e7d-a5c4-0f3b2e1d9a87
\`\`\`

The platform does not know Terraform's own settings (\`wait_for_completion\`, \`cancel_spawned_on_destroy\`,
\`timeouts\`): a configuration that matches the export and leaves them at their defaults plans no change; one that
sets them otherwise plans an in-place update that sets them in the state and calls no API.

An export cancelled outside Terraform (for example with \`PATCH /api/v1/bulk-exports/<id>\`) cannot be restarted: the
next plan warns and replaces it. The replacement's destroy of the cancelled export still cancels, with
\`cancel_spawned_on_destroy\`, the exports it spawned that are not finished.

Creating (or replacing) a scheduled export whose \`start_time\` lies whole intervals in the past exports each of those
intervals at once, and again when a replaced export had exported them: the plan warns, with the number of intervals
due at once, and the apply goes ahead whatever their number. The platform spawns an export of each and runs them as
its capacity allows (15 exports of a workspace at a time; the others wait in its queue, in status \`Created\`).
A one-off export whose \`end_time\` is more than 10 minutes after the platform's time is warned of: its runs write the
runs stored when they execute, later ones would be missed, and the platform may refuse it; so is a range of more than
1000 UTC days, which the local platform refuses. Intervals and ends are judged by the platform's clock, as the
\`Date\` of its last answer to the provider shows it (the refresh before a replacement), else by this machine's.
A one-off export that ended \`Failed\` or \`TimedOut\`
while Terraform waited for it stays in the state, tainted, so the next apply replaces it.

A create that gets no clear answer (\`request_timeout\` ran out, terraform was interrupted, the connection broke or a
5xx other than 503 came once the request was sent, or a success came whose body could not be read) may have created
the export all the same. It is not sent again; the provider lists the exports, again and again (after the platform's
\`Retry-After\` or a backoff) within \`timeouts.create\`, a few seconds once terraform is stopping: the one created
since the request went out with exactly the configured settings is kept in the state, with a warning. Several, or none,
are an error that names them and says how to import or cancel them. Every create carries an \`Idempotency-Key\`
derived from the settings, so the next apply's create is answered, by a platform that honours the key (the local
platform), with the export an unanswered one made, rather than leaving a second export (a schedule that spawns)
outside the state ([convergence.md](../convergence.md)).
`;

const RUNS_EXAMPLE = `
data "agentplatform_bulk_export_runs" "january" {
  export_id = agentplatform_bulk_export.january.id
}

output "exported_rows" {
  # the 0 keeps sum() defined while there are no runs yet (a schedule before its first interval)
  value = sum(concat([0], [for r in data.agentplatform_bulk_export_runs.january.runs : r.rows_exported]))
}

output "parquet_files" {
  value = flatten([for r in data.agentplatform_bulk_export_runs.january.runs : r.files])
}
`;

const EXPORT_BEHAVIOUR = `
### Waiting for completion

With \`wait_for_completion\`, the create of a one-off export waits, within \`timeouts.create\`, until the export is
\`Completed\`; \`Failed\` fails the apply with the run errors, \`TimedOut\` with what to change in the export. Without
waiting, a refresh that finds the export \`Failed\` or \`TimedOut\` while the state holds it in progress warns with the
run errors, at every plan until an apply (or \`terraform apply -refresh-only\`) records the status.
`;

/** Examples, behaviour and import notes of the bulk export and its runs data source, by type name. */
export const EXPORT_DOC_PAGES: Readonly<Record<string, DocPageExtras>> = {
  agentplatform_bulk_export: { examples: EXPORT_EXAMPLES, importSection: EXPORT_IMPORT, behaviour: EXPORT_BEHAVIOUR },
  agentplatform_bulk_export_runs: { examples: [RUNS_EXAMPLE] },
};
