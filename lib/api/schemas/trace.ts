/**
 * The trace run record and its exportable fields (area B of the platform API). One table drives the bulk export's
 * `export_fields` check, the Parquet columns, the filter language's field names and the stored run record's schema.
 */
import { z } from 'zod';
import { EXPORTABLE_FIELD_NAMES, parseIsoInstant, type ExportableFieldName } from './trace-fields';

export * from './trace-fields';

/** Zod schema of one `export_fields` entry. */
export const ExportableFieldNameSchema = z.enum(EXPORTABLE_FIELD_NAMES as [ExportableFieldName, ...ExportableFieldName[]]);

const IsoTimestamp = z.string().refine((value) => !Number.isNaN(parseIsoInstant(value)), {
  message: 'expected an ISO 8601 timestamp',
});
const JsonObject = z.record(z.string(), z.unknown());

/** The kinds of run the platform records; other names are accepted, these are the documented ones. */
export const RUN_TYPES = ['chain', 'llm', 'tool', 'retriever', 'embedding', 'prompt', 'parser'] as const;

/**
 * A stored run record with every exportable field. Timestamps are ISO 8601 strings; JSON fields are objects (or,
 * for `events`, an array); lists are arrays.
 */
export const TraceRun = z.object({
  id: z.guid(),
  tenant_id: z.guid(),
  session_id: z.guid(),
  trace_id: z.guid(),
  parent_run_id: z.guid().nullable(),
  parent_run_ids: z.array(z.guid()),
  reference_example_id: z.guid().nullable(),
  name: z.string(),
  run_type: z.string(),
  start_time: IsoTimestamp,
  end_time: IsoTimestamp.nullable(),
  status: z.string(),
  is_root: z.boolean(),
  dotted_order: z.string(),
  trace_tier: z.string().nullable(),
  inputs: JsonObject,
  outputs: JsonObject.nullable(),
  error: z.string().nullable(),
  extra: JsonObject.nullable(),
  events: z.array(JsonObject).nullable(),
  tags: z.array(z.string()),
  feedback_stats: JsonObject.nullable(),
  total_tokens: z.number().int().nonnegative().nullable(),
  prompt_tokens: z.number().int().nonnegative().nullable(),
  completion_tokens: z.number().int().nonnegative().nullable(),
  total_cost: z.number().nullable(),
  prompt_cost: z.number().nullable(),
  completion_cost: z.number().nullable(),
  first_token_time: IsoTimestamp.nullable(),
});
export type TraceRun = z.infer<typeof TraceRun>;
