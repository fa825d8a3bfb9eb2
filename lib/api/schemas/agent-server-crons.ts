/**
 * Zod schemas of the agent server's crons (runs on a schedule): the record the local platform keeps, what a create,
 * an update, a count and a search take, and a cron as a client reads it.
 */
import { z } from 'zod';
import { RunnableConfig } from './agent-server';

const JsonObject = z.record(z.string(), z.unknown());

/** A cron as the local platform keeps and answers it. */
export const Cron = z.object({
  cron_id: z.string(),
  assistant_id: z.string(),
  thread_id: z.string().nullable(),
  schedule: z.string(),
  payload: JsonObject,
  metadata: JsonObject,
  end_time: z.string().nullable(),
  next_run_date: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Cron = z.infer<typeof Cron>;

export const CronCreate = z.object({
  assistant_id: z.string().min(1),
  schedule: z.string().min(1),
  input: JsonObject.nullable().optional(),
  config: RunnableConfig.optional(),
  metadata: JsonObject.optional(),
  end_time: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type CronCreate = z.infer<typeof CronCreate>;

/**
 * A cron as a client reads it: only its id is required, since the agent server's cron model has grown fields over
 * its versions (`enabled`, `timezone`, `user_id`); the others are read when answered.
 */
export const CronAnswer = z.object({
  cron_id: z.string(),
  assistant_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  schedule: z.string().nullish(),
  payload: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
  end_time: z.string().nullish(),
  next_run_date: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type CronAnswer = z.infer<typeof CronAnswer>;

/**
 * `PATCH /runs/crons/{cron_id}`: what the agent server lets a cron change (the SDK's `crons.update`); the assistant
 * and the thread are fixed. A field left out keeps its value; `metadata` replaces the cron's metadata as a whole.
 */
export const CronUpdate = z.object({
  schedule: z.string().min(1).optional(),
  input: JsonObject.nullable().optional(),
  config: RunnableConfig.optional(),
  metadata: JsonObject.optional(),
  end_time: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type CronUpdate = z.infer<typeof CronUpdate>;

/** The filters of `POST /runs/crons/count`, as of a search. */
export const CronCount = z.object({
  /** An assistant's id, or a graph id for the graph's default assistant. */
  assistant_id: z.string().optional(),
  thread_id: z.guid().optional(),
  /** Crons whose metadata holds each of these pairs. */
  metadata: JsonObject.optional(),
});
export type CronCount = z.infer<typeof CronCount>;

export const CronSearch = CronCount.extend({
  limit: z.number().int().min(1).max(1000).optional(),
  offset: z.number().int().min(0).optional(),
});
export type CronSearch = z.infer<typeof CronSearch>;
