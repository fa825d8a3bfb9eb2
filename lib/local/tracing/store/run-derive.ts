/**
 * What the trace store works out from the fields a run is posted or patched with, beyond the hierarchy of one run
 * (see runs.ts): the order a batch's runs are stored in, the totals of tokens and costs, and the status after a patch.
 */
import type { RunCreate, RunPatch } from '../../../api/schemas/tracing';
import { HttpError } from '../../errors';

/**
 * The runs of a batch, each after the runs of the batch it descends from (by `parent_run_id`), otherwise in the order
 * sent: tracing SDKs may send a child before its parent, and a child takes its trace and dotted order from its parent.
 * Every copy of an id sent twice is placed (the store keeps the first), and an ancestor is looked up by its first
 * copy; a cycle of parents ends the walk, so its runs are placed from the last one met back to the first.
 */
export function parentsFirst(posts: readonly RunCreate[]): RunCreate[] {
  const byId = new Map<string, RunCreate>();
  for (const post of posts) if (post.id && !byId.has(post.id)) byId.set(post.id, post);
  const placed = new Set<RunCreate>();
  const ordered: RunCreate[] = [];
  for (const post of posts) {
    // the run and its ancestors in the batch not placed yet, nearest first (a loop, not recursion: a chain may be long)
    const chain: RunCreate[] = [];
    const seen = new Set<RunCreate>();
    for (let at: RunCreate | undefined = post; at && !placed.has(at) && !seen.has(at); at = at.parent_run_id ? byId.get(at.parent_run_id) : undefined) {
      seen.add(at);
      chain.push(at);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      placed.add(chain[i]!);
      ordered.push(chain[i]!);
    }
  }
  return ordered;
}

type Total = 'total_tokens' | 'total_cost';

/**
 * A total from its parts (prompt and completion): null when both are; refused when the sum is too large to keep
 * exactly (tokens past 2^53, costs past the largest number), which would be stored as another number or as infinity.
 */
export function totalOf(run: string, field: Total, prompt: number | null | undefined, completion: number | null | undefined): number | null {
  if (prompt == null && completion == null) return null;
  const sum = (prompt ?? 0) + (completion ?? 0);
  if (field === 'total_tokens' ? !Number.isSafeInteger(sum) : !Number.isFinite(sum)) {
    throw new HttpError(400, `Run ${run}: ${field}, the sum of its prompt and completion parts, is too large to store`);
  }
  return sum;
}

/** The fields of a stored run that a patch's derived fields depend on. */
export interface PatchBase {
  readonly start_time: number;
  readonly end_time: number | null;
  readonly error: string | null;
  readonly total_tokens: number | null;
  readonly prompt_tokens: number | null;
  readonly completion_tokens: number | null;
  readonly total_cost: number | null;
  readonly prompt_cost: number | null;
  readonly completion_cost: number | null;
}

const PARTS = {
  total_tokens: ['prompt_tokens', 'completion_tokens'],
  total_cost: ['prompt_cost', 'completion_cost'],
} as const;

/**
 * The fields a patch changes without naming them, as a run posted with the patched fields would have them:
 * - a total, when the patch sets a part of it and not the total itself (usage usually comes with the run's end),
 *   unless the stored total was given rather than derived (it is not the sum of the stored parts): such a total may
 *   count more than its two parts, and is kept;
 * - the status, when the patch sets `error` or `end_time` and not `status`: `error` with an error, else `success`
 *   once the run has ended, else `pending` (so a patch that clears the error clears the error status too).
 */
export function derivedOnPatch(stored: PatchBase, input: RunPatch, endTime: number | null | undefined): Record<string, unknown> {
  const derived: Record<string, unknown> = {};
  const after = <K extends keyof PatchBase & keyof RunPatch>(key: K) => (input[key] !== undefined ? input[key] : stored[key]) as number | null;
  for (const total of ['total_tokens', 'total_cost'] as const) {
    const [prompt, completion] = PARTS[total];
    if (input[total] !== undefined || (input[prompt] === undefined && input[completion] === undefined)) continue;
    const wasDerived = stored[total] === null || stored[total] === (stored[prompt] ?? 0) + (stored[completion] ?? 0);
    if (wasDerived) derived[total] = totalOf(input.id, total, after(prompt), after(completion));
  }
  if (input.status === undefined && (input.error !== undefined || endTime !== undefined)) {
    const error = input.error !== undefined ? input.error : stored.error;
    const ended = endTime !== undefined ? endTime : stored.end_time;
    derived.status = error ? 'error' : ended !== null ? 'success' : 'pending';
  }
  return derived;
}
