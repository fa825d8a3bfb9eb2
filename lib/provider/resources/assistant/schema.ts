/**
 * The schema of `agentplatform_assistant`: a configured instance of a graph on a deployment's agent server. `config`,
 * `context` and `metadata` are free-form JSON objects, taken as JSON text (`jsonencode(...)`), compared by value.
 */
import { attr, defineSchema, type SchemaModel } from '../../framework';
import { isUuid } from '../../../api/ids';
import { canonicalJson } from '../shared/unanswered-create';
import { jsonObjectProblem, parseJsonObject, sameJson } from '../shared/json-object';

/** The object of metadata text with its null members left out: the agent server merges metadata, null removes nothing. */
export function metadataMembers(text: string): Record<string, unknown> | undefined {
  const object = parseJsonObject(text);
  return object && Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null));
}

/** Whether two metadata texts hold the same members, a member of null value counting as absent. */
export function sameMetadata(a: string, b: string): boolean {
  const [left, right] = [metadataMembers(a), metadataMembers(b)];
  return left !== undefined && right !== undefined ? canonicalJson(left) === canonicalJson(right) : a === b;
}

/*
 * `config`, `context` and `metadata` must hold JSON objects: no rule of the platform's, but the text is what the
 * provider parses to send, and the agent server's `POST /assistants` types all three as objects (LangGraph's OpenAPI).
 */

/** The attributes sent to the agent server (all but the computed ones), as the plan compares them. */
export const ASSISTANT_ARGUMENTS = ['graph_id', 'name', 'description', 'config', 'context', 'metadata'] as const;

/** The schema of `agentplatform_assistant`. */
export const assistantSchema = defineSchema({
  description:
    'An assistant: a graph of a deployment with its own configuration, which runs and crons name by `assistant_id`. ' +
    'It lives on the deployment\'s agent server (at the deployment\'s `url`), reached with the provider\'s API key.',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: '`<deployment_id>/<assistant_id>`, the id `terraform import` takes.' }),
    deployment_id: attr.string({
      required: true,
      requiresReplace: true,
      description: 'The deployment whose agent server holds the assistant.',
    }),
    graph_id: attr.string({ required: true, description: 'The graph the assistant runs, one the deployment serves. Changes in place (a new version).' }),
    name: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description: 'Name of the assistant. Left out, the agent server names it (LangGraph servers: `Untitled`); taking it out keeps the name. Changes in place.',
    }),
    description: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description: 'What the assistant is for. Default: none; taking it out keeps the description. Changes in place.',
    }),
    config: attr.string({
      optional: true,
      validate: jsonObjectProblem,
      sameValue: sameJson,
      description: 'Run configuration as a JSON object (`jsonencode`), e.g. `configurable`, `tags`, `recursion_limit`. Default: `{}`. Changes in place.',
    }),
    context: attr.string({
      optional: true,
      validate: jsonObjectProblem,
      sameValue: sameJson,
      description: 'Static context the graph reads at run time, as a JSON object (`jsonencode`). Default: `{}`. Changes in place.',
    }),
    metadata: attr.string({
      optional: true,
      validate: jsonObjectProblem,
      sameValue: sameMetadata,
      description: 'Metadata as a JSON object (`jsonencode`); a member of null value counts as absent. Default: `{}`. Changes in place.',
    }),
    assistant_id: attr.string({ computed: true, useStateForUnknown: true, description: 'The assistant id (a UUID) runs and crons name it by.' }),
    version: attr.number({ computed: true, description: 'The assistant\'s version: 1 on create, one more with every update.' }),
  },
});

/** The attributes of `agentplatform_assistant` as handlers see them. */
export type AssistantModel = SchemaModel<typeof assistantSchema>;

/** The parts of an import id, `<deployment_id>/<assistant_id>`, or undefined when it is not one. */
export function parseImportId(id: string): { deploymentId: string; assistantId: string } | undefined {
  const at = id.indexOf('/');
  const [deploymentId, assistantId] = [id.slice(0, at), id.slice(at + 1)];
  // spec: Deployment, `id` is a uuid; an assistant is named by its id or, for a graph's default one, the graph's
  if (at < 0 || !isUuid(deploymentId) || assistantId === '' || assistantId.includes('/')) return undefined;
  return { deploymentId, assistantId };
}
