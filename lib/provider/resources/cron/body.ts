/**
 * The cron's requests from the plan: what the configuration sets, and the create key in the metadata. The agent
 * server does not promise to honour `Idempotency-Key`, so the key also rides in the cron's metadata, where a search by
 * metadata finds what an unanswered create made (see find.ts); the state's `metadata` never shows it.
 */
import type { CronCreate, CronUpdate } from '../../../api/schemas/agent-server-crons';
import { parseJsonObject } from '../shared/json-object';
import type { CronModel } from './schema';

/** The metadata key that carries a cron's create key. */
export const CREATE_KEY_FIELD = 'agentplatform_create_key';

/** A JSON attribute's object; undefined when it is not set. */
const objectOf = (text: string | null): Record<string, unknown> | undefined => (text === null ? undefined : parseJsonObject(text));

/** What the create asks for, as the create key is derived from it (the key itself left out). */
export function createSettings(planned: CronModel) {
  return {
    deployment_id: planned.deployment_id,
    assistant_id: planned.assistant_id,
    thread_id: planned.thread_id ?? undefined,
    schedule: planned.schedule,
    input: objectOf(planned.input),
    config: objectOf(planned.config),
    metadata: objectOf(planned.metadata),
  };
}

/** The create request: the configured fields, and the metadata with the create key. */
export function createBody(planned: CronModel, key: string): CronCreate {
  const input = objectOf(planned.input);
  const config = objectOf(planned.config);
  return {
    assistant_id: planned.assistant_id,
    schedule: planned.schedule,
    ...(input !== undefined ? { input } : {}),
    ...(config !== undefined ? { config } : {}),
    metadata: { ...objectOf(planned.metadata), [CREATE_KEY_FIELD]: key },
  };
}

/** The update request: the fields that changed (a field left out keeps its value on the agent server). */
export function updateBody(prior: CronModel, planned: CronModel): CronUpdate {
  const body: { -readonly [K in keyof CronUpdate]: CronUpdate[K] } = {};
  if (planned.schedule !== prior.schedule) body.schedule = planned.schedule;
  if (planned.input !== prior.input) body.input = objectOf(planned.input) ?? null;
  if (planned.config !== prior.config) body.config = objectOf(planned.config) ?? {};
  if (planned.metadata !== prior.metadata) body.metadata = objectOf(planned.metadata) ?? {};
  return body;
}

/** The cron's metadata as the state shows it: without the create key. */
export function userMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const { [CREATE_KEY_FIELD]: _key, ...rest } = metadata;
  return rest;
}
