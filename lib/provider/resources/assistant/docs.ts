/**
 * The documentation page of `agentplatform_assistant` beyond what its schema gives: examples in HCL, import notes and
 * its behaviour, for the provider's docs generator. Only the generator loads this module, never the provider.
 */
import type { DocPage } from '../../framework/docs';

const EXAMPLES = [
  `
# An assistant of the deployment's "agent" graph, with its own model settings.
resource "agentplatform_assistant" "support" {
  deployment_id = agentplatform_deployment.agent.id
  graph_id      = "agent"
  name          = "support"
  description   = "Answers support questions in English"

  config = jsonencode({
    configurable = { model = "gpt-4o-mini", temperature = 0.2 }
    tags         = ["support"]
  })
  context  = jsonencode({ language = "en" })
  metadata = jsonencode({ team = "support", owner = "platform" })
}

output "support_assistant_id" {
  value = agentplatform_assistant.support.assistant_id
}
`,
];

const IMPORT = `
Import an assistant by its deployment's id and its own, joined by a slash:

\`\`\`shell
terraform import agentplatform_assistant.support 6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24/2b7e4c1a-9d3f-4a8e-b6c5-1f0e2d3c4b5a
\`\`\`

or, with Terraform 1.5 or later, with an import block:

\`\`\`terraform
import {
  to = agentplatform_assistant.support
  id = "6f1c2a8e-0d2b-4f7e-9a51-3c0e7b9d1a24/2b7e4c1a-9d3f-4a8e-b6c5-1f0e2d3c4b5a"
}
\`\`\`

On an agent server that names a graph's default assistant by the graph's id (the local platform's does), a graph id in
place of the assistant's id imports that assistant. A configuration that matches the assistant then plans no changes; \`config\`, \`context\` and \`metadata\`
that the assistant holds empty are imported as null (left out).
`;

const BEHAVIOUR = `
The assistant lives on the deployment's agent server: the provider reads the deployment's \`url\` from the control plane
and sends the provider's API key in \`X-Api-Key\`. A deployment with no URL yet (none of its revisions DEPLOYED) is an
error: refer to \`agentplatform_deployment.<name>.id\`, so that the assistant waits for the deployment's apply.

The agent server's API is followed as LangGraph's is known to take it: \`POST /assistants\` to create,
\`PATCH /assistants/{id}\` to change (every change is a new \`version\`), \`GET\` to read and \`DELETE\` to destroy.
\`config\`, \`context\` and \`metadata\` are JSON objects written with \`jsonencode\`, compared by value: the same object
in other text plans nothing. The agent server replaces \`config\` and \`context\` on a change (taken out, they are sent
as \`{}\`), but merges \`metadata\`: a member taken out is sent as null, and a member of null value counts as absent.
\`name\` and \`description\` taken out of the configuration keep their values.

Every create names the assistant: its \`assistant_id\` is derived from the create's \`Idempotency-Key\` (the deployment
and the configured settings), and the create asks for \`if_exists: "do_nothing"\`. A create whose answer is lost (a
timeout, a dropped connection, a 5xx once the request was sent) is sent again, within five minutes, until an answer
comes: the agent server answers with the assistant the first request made, and nothing is made twice
([convergence.md](../convergence.md)). When nothing answers in time, the apply fails and the next one sends the same
create. An assistant of that id found with other settings (made by an earlier apply and changed since) is updated to the
configured ones. Two assistants of the very same settings on one deployment, declared in two configurations, are one
assistant: give them different names.

A refresh that finds the assistant gone (404, confirmed by a search of the same agent server), or its deployment gone,
removes it from the state, and the next apply creates it again. Destroy deletes it.
`;

/** The doc page of `agentplatform_assistant`, by type name. */
export const ASSISTANT_DOC_PAGES: Readonly<Record<string, Omit<DocPage, 'kind' | 'typeName' | 'schema'>>> = {
  agentplatform_assistant: { examples: EXAMPLES, importSection: IMPORT, behaviour: BEHAVIOUR },
};
