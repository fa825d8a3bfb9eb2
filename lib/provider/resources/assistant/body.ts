/**
 * `agentplatform_assistant`'s requests from the plan, and its state from the agent server's answers. Only what the
 * configuration sets is sent; `config`, `context` and `metadata` left out are the agent server's `{}`.
 */
import { createHash } from 'node:crypto';
import type { AssistantAnswer as Assistant, AssistantCreate, AssistantUpdate } from '../../../api/schemas/agent-server';
import { given } from '../../framework';
import { canonicalJson } from '../shared/unanswered-create';
import { parseJsonObject, sameJson } from '../shared/json-object';
import { metadataMembers, sameMetadata, type AssistantModel } from './schema';

/** The object of a JSON attribute (checked at validate), or undefined when it is null. */
const objectOf = (text: string | null): Record<string, unknown> | undefined => (text === null ? undefined : parseJsonObject(text));

/** The create's settings: what the configuration sets, without the id and `if_exists` the create adds. */
export function createSettings(planned: AssistantModel): Omit<AssistantCreate, 'assistant_id' | 'if_exists'> {
  return {
    graph_id: planned.graph_id,
    ...(planned.name !== null ? { name: planned.name } : {}),
    ...(planned.description !== null ? { description: planned.description } : {}),
    ...(planned.config !== null ? { config: objectOf(planned.config) } : {}),
    ...(planned.context !== null ? { context: objectOf(planned.context) } : {}),
    ...(planned.metadata !== null ? { metadata: metadataMembers(planned.metadata) } : {}),
  };
}

/**
 * The id of the assistant a create asks for, from its `Idempotency-Key`: the same in every apply of the same
 * configuration, so that the create sent again after a lost answer names the assistant the first one made (and,
 * with `if_exists: "do_nothing"`, gets it back instead of a second one). A UUID of version 8 (RFC 9562: custom).
 */
export function assistantIdOf(createKey: string): string {
  const bytes = createHash('sha256').update(createKey).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The `PATCH` body of a change from `prior` to `planned`: the arguments that changed. A `config` or `context` taken
 * out is sent as `{}` (the agent server replaces them); `metadata` is merged by the agent server, so a member taken
 * out is sent as null. Empty when nothing the agent server holds changes.
 */
export function updateBody(planned: AssistantModel, prior: AssistantModel): AssistantUpdate {
  const body: Record<string, unknown> = {};
  if (planned.graph_id !== prior.graph_id) body.graph_id = planned.graph_id;
  if (planned.name !== null && planned.name !== prior.name) body.name = planned.name;
  if (planned.description !== null && planned.description !== prior.description) body.description = planned.description;
  for (const key of ['config', 'context'] as const) {
    if (!sameObject(planned[key], prior[key], sameJson)) body[key] = objectOf(planned[key]) ?? {};
  }
  if (!sameObject(planned.metadata, prior.metadata, sameMetadata)) {
    const next = planned.metadata === null ? {} : metadataMembers(planned.metadata)!;
    const removed = Object.keys(metadataMembers(prior.metadata ?? '{}') ?? {}).filter((key) => !(key in next));
    body.metadata = { ...Object.fromEntries(removed.map((key) => [key, null])), ...next };
  }
  return body as AssistantUpdate;
}

/** Whether two values of a JSON attribute hold the same object, null counting as `{}`. */
export function sameObject(a: string | null, b: string | null, same: (a: string, b: string) => boolean): boolean {
  return same(a ?? '{}', b ?? '{}');
}

/** A JSON attribute's state from the answer: the base's value when the answer leaves it out or both are empty. */
function jsonState(answered: Record<string, unknown> | undefined, base: string | null): string | null {
  if (answered === undefined) return base;
  const empty = Object.keys(answered).length === 0;
  return empty && base === null ? null : canonicalJson(answered);
}

/** The state of an assistant as the agent server answers it; what the answer leaves out keeps `base`'s value. */
export function toModel(a: Assistant, base: Pick<AssistantModel, 'deployment_id'> & Partial<AssistantModel>): AssistantModel {
  return {
    id: `${base.deployment_id}/${a.assistant_id}`,
    deployment_id: base.deployment_id,
    assistant_id: a.assistant_id,
    // the spec shows no field of an assistant but its id: a field left out (or null) keeps what was known
    graph_id: a.graph_id ?? base.graph_id ?? '',
    name: given(a.name ?? undefined, base.name ?? null),
    description: given(a.description, base.description ?? null),
    config: jsonState(a.config ?? undefined, base.config ?? null),
    context: jsonState(a.context ?? undefined, base.context ?? null),
    metadata: jsonState(withoutNulls(a.metadata ?? undefined), base.metadata ?? null),
    version: given(a.version ?? undefined, base.version ?? null),
  };
}

/** Metadata with its null members left out (what a member taken out leaves on the agent server). */
function withoutNulls(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return metadata && Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null));
}
