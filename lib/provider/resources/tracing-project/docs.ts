/**
 * The documentation pages of `agentplatform_tracing_project` (resource and data source) beyond what their schemas
 * give, for the provider's docs generator. Only the generator loads this module, never the provider.
 */
import type { FamilyDocPages } from '../../framework/docs';

const RESOURCE_EXAMPLE = `
resource "agentplatform_tracing_project" "support" {
  name        = "support-agent"
  description = "Traces of the support agent in production"
  metadata = {
    team = "support"
    env  = "prod"
  }
}

# Exports of the project may be declared in the same configuration, before any run is traced into it.
resource "agentplatform_bulk_export" "support_daily" {
  destination_id = agentplatform_export_destination.s3.id
  session_id     = agentplatform_tracing_project.support.id
  start_time     = "2025-01-01T00:00:00Z"
  interval_hours = 24
}
`;

const DATA_SOURCE_EXAMPLE = `
# A project made outside this configuration (by the agents that trace into it, say).
data "agentplatform_tracing_project" "support" {
  name = "support-agent"
}

resource "agentplatform_bulk_export" "support_january" {
  destination_id = agentplatform_export_destination.s3.id
  session_id     = data.agentplatform_tracing_project.support.id
  start_time     = "2025-01-01T00:00:00Z"
  end_time       = "2025-02-01T00:00:00Z"
}
`;

const IMPORT = `
Import a project by its id:

\`\`\`shell
terraform import agentplatform_tracing_project.support 3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68
\`\`\`
`;

const BEHAVIOUR = `
The provider speaks LangSmith's tracing API (\`/api/v1/sessions\`): a project is created with \`name\`, \`description\`
and \`extra.metadata\` (only those the configuration sets), read by id, changed in place with \`PATCH\` (a rename too:
runs and exports refer to the project by id), and deleted on destroy. A change of \`metadata\` sends the project's
\`extra\` as the platform holds it with \`metadata\` replaced, so other keys a client keeps there stay.

Names are unique in a workspace: a create or rename to a name another project holds fails with that project's id, to
import it or to choose another name. The provider does not take over a project of the same name by itself, since it
may belong to something else (runs traced into it by name create it).

A create that gets no clear answer (a connection broken once the request was sent, a 5xx other than 503, an answer that
could not be read) may have made the project. The provider then looks the project up by its name, again and again for
up to a minute: one made since the request went out is the one this create made, and is kept in state with a warning.
Every create carries an \`Idempotency-Key\` derived from its settings, so the next apply's create is answered, by a
platform that honours the key (the local platform), with the project an unanswered one made
([convergence.md](../convergence.md)).

Destroy deletes the project; the platform deletes its runs with it (on the local platform, exports that name the
project and have not ended are cancelled too: see [local-platform.md](../local-platform.md#tracing-projects)). A project already gone counts as deleted.
`;

/** Examples, import notes and behaviour of the tracing project resource and data source, by type name. */
export const TRACING_PROJECT_DOC_PAGES: FamilyDocPages = {
  agentplatform_tracing_project: { examples: [RESOURCE_EXAMPLE], importSection: IMPORT, behaviour: BEHAVIOUR },
};

/** The data source's page (the same type name as the resource, in the data sources' folder). */
export const TRACING_PROJECT_DATA_SOURCE_DOC_PAGES: FamilyDocPages = {
  agentplatform_tracing_project: { examples: [DATA_SOURCE_EXAMPLE] },
};
