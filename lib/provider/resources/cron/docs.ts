/**
 * The doc page of `agentplatform_cron` beyond what its schema gives: examples in HCL, its behaviour, and how to
 * import one. Only the docs generator loads this module, never the provider.
 */

const EXAMPLES = [
  `
# Every weekday at 09:00 UTC, a stateless run of the graph "agent"'s default assistant.
resource "agentplatform_cron" "morning_digest" {
  deployment_id = agentplatform_deployment.agent.id
  assistant_id  = "agent"
  schedule      = "0 9 * * mon-fri"

  input = jsonencode({
    messages = [{ role = "user", content = "Summarise yesterday's tickets." }]
  })
  metadata = jsonencode({ team = "support" })
}
`,
  `
variable "watcher_assistant_id" {
  type = string
}

variable "watch_thread_id" {
  type = string
}

# Every 15 minutes, a run of an assistant on one thread (runs queue on it).
resource "agentplatform_cron" "watch" {
  deployment_id = agentplatform_deployment.agent.id
  assistant_id  = var.watcher_assistant_id
  thread_id     = var.watch_thread_id
  schedule      = "*/15 * * * *"

  config = jsonencode({ configurable = { region = "eu" } })
}
`,
];

const BEHAVIOUR = `
The cron lives on the agent server of its deployment, reached at the deployment's \`url\` with the provider's API key:
the deployment must be served (a revision DEPLOYED) before a cron is created, which referring to
\`agentplatform_deployment.<name>.id\` (with \`wait_for_deployed\`, the default) ensures.

\`schedule\` is checked at plan: five fields, each within its range (minute 0-59, hour 0-23, day of month 1-31, month
1-12 or \`jan\`-\`dec\`, day of week 0-7 or \`sun\`-\`sat\`); an error names the field. A field in a syntax the provider
does not read (\`L\`, \`W\`, \`#\`, \`?\`, which an agent server may accept) is a warning instead, and the agent server
decides at apply. \`input\`, \`config\` and
\`metadata\` are JSON objects written with \`jsonencode\`: the same object written otherwise plans no change.

A change of \`schedule\`, \`input\`, \`config\` or \`metadata\` is one update (\`PATCH /runs/crons/{cron_id}\`); a new
schedule sets \`next_run_date\` anew. The agent server merges metadata, so removing a key replaces the cron.
\`assistant_id\` may name a graph (its default assistant) or an assistant by id: the plan asks the agent server
which assistant each name means, and only another assistant replaces the cron.

Every create carries an \`Idempotency-Key\` derived from the configured settings, and the same key in the cron's
metadata (\`agentplatform_create_key\`, never shown in \`metadata\`). Before creating, the provider searches the
deployment's crons for that key: a cron made by an earlier create whose answer was lost (and not changed since) is
taken into state rather than made twice. A create that gets no clear answer is followed by the same search, retried for up to two minutes.

The agent server has no read of one cron: a refresh searches the deployment's crons (those of the thread, when it has
one). A cron that is no longer there, or whose deployment is gone, is removed from state, and the next apply creates
it again. Destroy deletes it; one already gone counts as deleted.
`;

const IMPORT = `
Import a cron by its deployment's id and its own, separated by a slash:

\`\`\`shell
terraform import agentplatform_cron.morning_digest 6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24/1ef3cefa-4c09-6926-96d0-3dc97fd5e39b
\`\`\`

The import reads the assistant's id as the agent server answers it: a configuration that names the assistant by its
graph plans one in-place update that records the name, with no request to the agent server.
`;

/** The doc page of the cron resource, by type name. */
export const CRON_DOC_PAGES: Readonly<Record<string, { readonly examples: readonly string[]; readonly behaviour?: string; readonly importSection?: string }>> = {
  agentplatform_cron: { examples: EXAMPLES, behaviour: BEHAVIOUR, importSection: IMPORT },
};
