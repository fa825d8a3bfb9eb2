/**
 * Request bodies of `agentplatform_tracing_project` from the plan, and the project's attributes from the platform's
 * answer. The bodies are LangSmith's (`createProject`, `updateProject`): metadata rides in `extra.metadata`.
 */
import type { Session, SessionCreate, SessionUpdate } from '../../../api/schemas/tracing';
import { given } from '../../framework';
import { workspaceId } from '../shared/workspace';
import type { TracingProjectModel } from './schema';

type Metadata = Record<string, string>;
type Extra = Record<string, unknown>;

const isObject = (value: unknown): value is Extra => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The create request: the name, and the description and metadata only when the configuration sets them. */
export function createBody(planned: Pick<TracingProjectModel, 'name' | 'description' | 'metadata'>): SessionCreate {
  return {
    name: planned.name,
    ...(planned.description !== null ? { description: planned.description } : {}),
    ...(planned.metadata !== null ? { extra: { metadata: planned.metadata } } : {}),
  };
}

/**
 * The update request: the fields that changed. `extra` is replaced whole by the API, so it is sent as the platform
 * holds it (`current`) with `metadata` replaced, or left out when the configuration no longer sets any.
 */
export function updateBody(planned: TracingProjectModel, prior: TracingProjectModel, current: Session): SessionUpdate {
  const body: SessionUpdate = {};
  if (planned.name !== prior.name) body.name = planned.name;
  if (planned.description !== prior.description) body.description = planned.description;
  if (!sameMetadata(planned.metadata, prior.metadata)) {
    const { metadata: _held, ...rest } = isObject(current.extra) ? current.extra : {};
    const extra = planned.metadata === null ? rest : { ...rest, metadata: planned.metadata };
    body.extra = Object.keys(extra).length ? extra : null;
  }
  return body;
}

/** Metadata as the platform holds it: values that are not strings as their JSON text; null when there is none. */
export function metadataOf(session: Pick<Session, 'extra'>): Metadata | null | undefined {
  if (session.extra === undefined) return undefined;
  const metadata = isObject(session.extra) ? session.extra.metadata : undefined;
  if (!isObject(metadata)) return null;
  return Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
}

const sameMetadata = (a: Metadata | null, b: Metadata | null): boolean => JSON.stringify(sorted(a ?? {})) === JSON.stringify(sorted(b ?? {}));
const sorted = (m: Metadata): [string, string][] => Object.entries(m).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));

/**
 * The state of a project as the API answers it. What the answer leaves out keeps its value in `base` (the plan, or
 * the prior state); no description or no metadata where the configuration had none (or an empty one) is no change.
 */
export function toModel(session: Session, base: TracingProjectModel): TracingProjectModel {
  const metadata = metadataOf(session);
  const description = session.description;
  return {
    id: session.id,
    name: given(session.name, base.name),
    description: description === undefined || ((description ?? '') === '' && (base.description ?? '') === '') ? base.description : description,
    metadata: metadata === undefined || (metadata === null && sameMetadata(base.metadata, null)) || sameMetadata(metadata, base.metadata) ? base.metadata : metadata,
    created_at: given(session.created_at ?? session.start_time, base.created_at),
    tenant_id: session.tenant_id ? workspaceId(session.tenant_id) : base.tenant_id,
  };
}
