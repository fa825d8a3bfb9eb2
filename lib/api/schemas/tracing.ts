/**
 * Zod schemas of the trace-data API used by bulk export: tracing projects (sessions) and run ingestion
 * (`POST /api/v1/runs/batch`). Runs carry every exportable field of the platform's run format.
 */
import { z } from 'zod';

/**
 * An id a client chooses, kept in its canonical (lower-case) form: the platform reads ids in paths that way, so a run
 * or project created with an upper-case id is found again.
 */
const clientId = z.guid().transform((id) => id.toLowerCase());

/**
 * A JSON object, kept as the request's JSON parser made it: `z.record` would copy it key by key, and the copy's
 * `__proto__` key would set the copy's prototype instead (the key silently lost). Anything else is refused as a
 * record is (pydantic's `dict_type`).
 */
const jsonObject = z.custom<Record<string, unknown>>().superRefine((value, ctx) => {
  const plain = typeof value === 'object' && value !== null && [Object.prototype, null].includes(Object.getPrototypeOf(value));
  if (!plain) ctx.addIssue({ code: 'invalid_type', expected: 'record', input: value });
});

/**
 * Body of `POST /api/v1/sessions`, the fields of LangSmith's `createProject`: `extra` holds `metadata` (an object) and
 * anything else a client keeps there. `start_time` and the other fields LangSmith clients may send are ignored.
 */
export const SessionCreate = z.object({
  id: clientId.optional(),
  name: z.string().min(1),
  description: z.string().nullish(),
  extra: jsonObject.nullish(),
});
export type SessionCreate = z.input<typeof SessionCreate>;

/** Body of `PATCH /api/v1/sessions/{id}`, the fields of LangSmith's `updateProject`: each field sent replaces the stored one. */
export const SessionUpdate = z.object({
  name: z.string().min(1).optional(),
  description: z.string().nullish(),
  extra: jsonObject.nullish(),
});
export type SessionUpdate = z.input<typeof SessionUpdate>;

/**
 * A tracing project as the platform answers it: `id` is what a bulk export needs; the rest may be left out (read
 * tolerantly, as `tolerant.ts` says). Names are unique within a workspace.
 */
export const Session = z.object({
  id: z.string(),
  tenant_id: z.string().optional(),
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  /** LangSmith's `extra`: `metadata` and what else a client keeps; read as it comes. */
  extra: z.unknown().optional(),
  start_time: z.string().optional(),
  created_at: z.string().optional(),
});
export type Session = z.infer<typeof Session>;

/** A tracing project as the local platform answers it: every field. */
export const SessionRecord = z.object({
  id: z.guid(),
  tenant_id: z.guid(),
  name: z.string(),
  description: z.string().nullable(),
  extra: z.record(z.string(), z.unknown()).nullable(),
  start_time: z.string(),
  created_at: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;
export const SessionList = z.array(Session);

const timestamp = z.union([z.string(), z.number()]);

/** Fields a run may be created with; ids and hierarchy fields the caller omits are derived by the platform. */
export const RunCreate = z.object({
  id: clientId.optional(),
  name: z.string().min(1),
  run_type: z.string().min(1),
  start_time: timestamp,
  end_time: timestamp.nullish(),
  session_id: clientId.nullish(),
  session_name: z.string().min(1).nullish(),
  trace_id: clientId.nullish(),
  parent_run_id: clientId.nullish(),
  dotted_order: z.string().nullish(),
  reference_example_id: clientId.nullish(),
  status: z.string().nullish(),
  trace_tier: z.string().nullish(),
  inputs: jsonObject.nullish(),
  outputs: jsonObject.nullish(),
  error: z.string().nullish(),
  extra: jsonObject.nullish(),
  events: z.array(jsonObject).nullish(),
  tags: z.array(z.string()).nullish(),
  feedback_stats: jsonObject.nullish(),
  total_tokens: z.number().int().nonnegative().nullish(),
  prompt_tokens: z.number().int().nonnegative().nullish(),
  completion_tokens: z.number().int().nonnegative().nullish(),
  total_cost: z.number().nonnegative().nullish(),
  prompt_cost: z.number().nonnegative().nullish(),
  completion_cost: z.number().nonnegative().nullish(),
  first_token_time: timestamp.nullish(),
});
export type RunCreate = z.input<typeof RunCreate>;

/** Fields a later patch may set on an ingested run (usually its end). */
export const RunPatch = RunCreate.pick({
  end_time: true,
  status: true,
  outputs: true,
  error: true,
  extra: true,
  events: true,
  tags: true,
  feedback_stats: true,
  total_tokens: true,
  prompt_tokens: true,
  completion_tokens: true,
  total_cost: true,
  prompt_cost: true,
  completion_cost: true,
  first_token_time: true,
}).extend({ id: clientId });
export type RunPatch = z.input<typeof RunPatch>;

/** Body of `POST /api/v1/runs/batch`. */
export const RunsBatch = z.object({
  post: z.array(RunCreate).default([]),
  patch: z.array(RunPatch).default([]),
});
export type RunsBatch = z.input<typeof RunsBatch>;

/** Answer of `POST /api/v1/runs/batch` (HTTP 202): how many runs were created and patched. */
export const RunsBatchResult = z.object({
  created: z.number().int(),
  patched: z.number().int(),
});
export type RunsBatchResult = z.infer<typeof RunsBatchResult>;
