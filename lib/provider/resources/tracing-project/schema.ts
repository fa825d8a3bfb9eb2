/**
 * The schema of `agentplatform_tracing_project`: a tracing project (a LangSmith "session"), the project runs are traced
 * into and bulk exports read from.
 */
import { attr, defineSchema, element, type SchemaModel } from '../../framework';
import { tenantIdAttribute } from '../shared/workspace';

/** The schema of `agentplatform_tracing_project`. */
export const tracingProjectSchema = defineSchema({
  description:
    'A tracing project: where runs are traced to (by its name or id), and what a bulk export reads (its `session_id`).',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'The project id (a UUID), a bulk export\'s `session_id`; `terraform import` takes it.' }),
    name: attr.string({ required: true, description: 'The project name, unique in the workspace. A change renames the project in place.' }),
    description: attr.string({ optional: true, description: 'A description of the project. Not sent when left out; a change is made in place.' }),
    metadata: attr.map(element.string, {
      optional: true,
      description: 'Key-value metadata of the project (the API\'s `extra.metadata`). Not sent when left out; a change is made in place.',
    }),
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the project was created (RFC 3339), as the platform says.' }),
    tenant_id: tenantIdAttribute('tracing project', 'the old one deleted in its own'),
  },
});

/** The attributes of `agentplatform_tracing_project` as handlers see them. */
export type TracingProjectModel = SchemaModel<typeof tracingProjectSchema>;
