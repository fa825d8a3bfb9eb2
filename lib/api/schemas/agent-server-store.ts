/**
 * Zod schemas of the agent server's Store (long-term memory: JSON items under a namespace path and a key) and of its
 * `/info`, with the paths, bodies and answers of the LangGraph agent server API.
 */
import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/**
 * A namespace path: labels without periods (the SDK joins them with `.` in a query string), none empty. The
 * message is the one the LangGraph server answers.
 */
export const StoreNamespace = z
  .array(z.string().min(1, 'Namespace labels cannot be empty').refine((label) => !label.includes('.'), 'Namespace labels cannot contain periods'));

/** Body of `PUT /store/items`; `index` (fields to embed) is accepted and has no effect without vector search. */
export const StorePutItem = z.object({
  namespace: StoreNamespace.min(1),
  key: z.string().min(1),
  value: JsonObject,
  index: z.union([z.literal(false), z.array(z.string())]).nullish(),
  /** Minutes the item lives after it is written (or read with `refresh_ttl`); none when absent or null. */
  ttl: z.number().positive().nullish(),
});
export type StorePutItem = z.infer<typeof StorePutItem>;

/** Body of `DELETE /store/items`. */
export const StoreDeleteItem = z.object({ namespace: StoreNamespace.min(1), key: z.string().min(1) });
export type StoreDeleteItem = z.infer<typeof StoreDeleteItem>;

/** The comparison operators a search filter may give for a field. */
export const FILTER_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'] as const;

/** The `$` keys of a filter, at any depth, that are no operator. */
function unknownOperators(filter: Record<string, unknown>): string[] {
  return Object.entries(filter).flatMap(([key, value]) => [
    ...(key.startsWith('$') && !(FILTER_OPERATORS as readonly string[]).includes(key) ? [key] : []),
    ...(typeof value === 'object' && value !== null && !Array.isArray(value) ? unknownOperators(value as Record<string, unknown>) : []),
  ]);
}

/**
 * Body of `POST /store/items/search`: items whose namespace starts with `namespace_prefix` and whose value holds
 * every field of `filter` (a value, or an object of operators `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`).
 */
export const StoreSearchItems = z.object({
  namespace_prefix: StoreNamespace.default([]),
  filter: JsonObject.refine((filter) => unknownOperators(filter).length === 0, {
    error: (issue) => `Unsupported filter operator: ${unknownOperators(issue.input as Record<string, unknown>).join(', ')} (one of ${FILTER_OPERATORS.join(', ')})`,
  }).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  query: z.string().nullish(),
  refresh_ttl: z.boolean().nullish(),
});
export type StoreSearchItems = z.infer<typeof StoreSearchItems>;

/** Body of `POST /store/namespaces`: in `prefix` and `suffix`, the label `*` matches any one label. */
export const StoreListNamespaces = z.object({
  prefix: StoreNamespace.nullish(),
  suffix: StoreNamespace.nullish(),
  max_depth: z.number().int().min(1).nullish(),
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
});
export type StoreListNamespaces = z.infer<typeof StoreListNamespaces>;

/** An item as `GET /store/items` answers it (`null` when there is none). */
export const StoreItem = z.object({
  namespace: z.array(z.string()),
  key: z.string(),
  value: JsonObject,
  created_at: z.string(),
  updated_at: z.string(),
});
export type StoreItem = z.infer<typeof StoreItem>;

/** An item found by a search: `score` is the query's relevance, null without vector search. */
export const StoreSearchItem = StoreItem.extend({ score: z.number().nullish() });
export type StoreSearchItem = z.infer<typeof StoreSearchItem>;

export const StoreSearchItemsResponse = z.object({ items: z.array(StoreSearchItem) });
export const StoreListNamespacesResponse = z.object({ namespaces: z.array(z.array(z.string())) });

/** What `GET /info` answers: the server's version and which optional features it has. */
export const ServerInfo = z.object({
  version: z.string().optional(),
  flags: z.record(z.string(), z.boolean()).optional(),
  host: JsonObject.nullish(),
});
export type ServerInfo = z.infer<typeof ServerInfo>;
