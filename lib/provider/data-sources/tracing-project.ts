/**
 * `agentplatform_tracing_project`: a tracing project of the provider's workspace, found by its name.
 */
import { attr, defineDataSource, defineSchema, element, type DataSourceReadRequest, type SchemaModel } from '../framework';
import { bulkExportClient } from '../resources/shared/bulk-export-client';
import { metadataOf } from '../resources/tracing-project/body';
import { noProjectNamed } from '../resources/tracing-project/messages';

/** The schema of the `agentplatform_tracing_project` data source. */
export const tracingProjectDataSchema = defineSchema({
  description:
    'A tracing project of the provider\'s workspace, by its name: its `id` is what a bulk export takes as `session_id`. ' +
    'A name no project has is an error.',
  attributes: {
    name: attr.string({ required: true, description: 'The project name (names are unique in a workspace).' }),
    id: attr.string({ computed: true, description: 'The project id (a UUID).' }),
    description: attr.string({ computed: true, description: 'The project description; null when it has none.' }),
    metadata: attr.map(element.string, { computed: true, description: 'The project metadata (the API\'s `extra.metadata`); null when it has none.' }),
    created_at: attr.string({ computed: true, description: 'When the project was created (RFC 3339).' }),
  },
});

/** The attributes of the `agentplatform_tracing_project` data source. */
export type TracingProjectDataModel = SchemaModel<typeof tracingProjectDataSchema>;

async function read({ config, ctx, signal }: DataSourceReadRequest<typeof tracingProjectDataSchema>): Promise<TracingProjectDataModel> {
  const session = await bulkExportClient(ctx).findSessionByName(config.name, { signal });
  // the API filters by name; an answer of another name (a platform that ignores the filter) is not this project
  if (!session || (session.name !== undefined && session.name !== config.name)) throw noProjectNamed(config.name);
  return {
    name: config.name,
    id: session.id,
    description: session.description ?? null,
    metadata: metadataOf(session) ?? null,
    created_at: session.created_at ?? session.start_time ?? null,
  };
}

export default defineDataSource({ typeName: 'agentplatform_tracing_project', schema: tracingProjectDataSchema, read });
