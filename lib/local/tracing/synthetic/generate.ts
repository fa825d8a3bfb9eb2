/**
 * Synthetic traces for demos and benchmarks: trees of a `chain` root with `llm` and `tool` children, spread evenly
 * over a time range, with token counts, costs and inputs/outputs of a chosen size. Content comes from a seeded
 * generator, so the same options give the same text (ids are random).
 */
import { randomUUID } from 'node:crypto';
import type { RunStore, StoredRun } from '../store/runs';
import { formatDottedTimestamp } from '../store/time';

/** Options of `generateSyntheticRuns`. */
export interface SyntheticRunsOptions {
  /** Workspace that owns the runs. */
  readonly tenantId: string;
  /** Project the runs belong to. */
  readonly sessionId: string;
  /** Number of runs (not traces) to create. */
  readonly count: number;
  /** Start of the range, epoch microseconds (inclusive). */
  readonly startMicros: number;
  /** End of the range, epoch microseconds (exclusive). */
  readonly endMicros: number;
  /**
   * Approximate bytes of JSON in `inputs` plus `outputs` of each run.
   * @default 1024
   */
  readonly payloadBytes?: number;
  /**
   * Seed of the text generator.
   * @default 1
   */
  readonly seed?: number;
  /**
   * Runs inserted per transaction.
   * @default 10000
   */
  readonly batchSize?: number;
}

/** The shape of one trace: a root and its children, in start order. */
const TRACE_SHAPE = [
  { name: 'AgentExecutor', run_type: 'chain' },
  { name: 'ChatModel', run_type: 'llm' },
  { name: 'search_tool', run_type: 'tool' },
  { name: 'ChatModel', run_type: 'llm' },
] as const;

const WORDS = (
  'agent answer bucket cache context deploy export feature graph history index judge ' +
  'latency memory model node output parquet query retry schema stream token trace update vector window'
).split(' ');
const PROMPT_COST_PER_TOKEN = 0.000_003;
const COMPLETION_COST_PER_TOKEN = 0.000_015;

/** A small deterministic PRNG (mulberry32); the tests' seeded cases use it too, so that a failing one can be replayed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(random: () => number, bytes: number): string {
  const words: string[] = [];
  let length = 0;
  while (length < bytes) {
    const word = WORDS[Math.floor(random() * WORDS.length)];
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

/** The runs of one trace whose root starts at `rootStart`; `size` (1–4) children-first truncation of the shape. */
function* traceRuns(options: SyntheticRunsOptions, random: () => number, rootStart: number, size: number): Generator<StoredRun> {
  const half = Math.max(8, Math.floor((options.payloadBytes ?? 1024) / 2) - 24);
  const rootId = randomUUID();
  const rootSegment = `${formatDottedTimestamp(rootStart)}${rootId}`;
  const children: StoredRun[] = [];
  let childStart = rootStart + 1_000;
  for (const step of TRACE_SHAPE.slice(1, size)) {
    const id = randomUUID();
    const duration = 50_000 + Math.floor(random() * 2_000_000);
    const isLlm = step.run_type === 'llm';
    const prompt = isLlm ? 50 + Math.floor(random() * 2000) : null;
    const completion = isLlm ? 10 + Math.floor(random() * 500) : null;
    children.push(
      storedRun(options, {
        id,
        trace_id: rootId,
        parent_run_id: rootId,
        parent_run_ids: `["${rootId}"]`,
        name: step.name,
        run_type: step.run_type,
        start_time: childStart,
        end_time: childStart + duration,
        is_root: 0,
        dotted_order: `${rootSegment}.${formatDottedTimestamp(childStart)}${id}`,
        inputs: JSON.stringify({ input: sentence(random, half) }),
        outputs: JSON.stringify({ output: sentence(random, half) }),
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: isLlm ? prompt! + completion! : null,
        prompt_cost: isLlm ? prompt! * PROMPT_COST_PER_TOKEN : null,
        completion_cost: isLlm ? completion! * COMPLETION_COST_PER_TOKEN : null,
        total_cost: isLlm ? prompt! * PROMPT_COST_PER_TOKEN + completion! * COMPLETION_COST_PER_TOKEN : null,
        first_token_time: isLlm ? childStart + Math.floor(duration / 4) : null,
      }),
    );
    childStart += duration + 1_000;
  }
  const sum = (pick: (run: StoredRun) => number | null) =>
    children.reduce<number | null>((total, run) => (pick(run) === null ? total : (total ?? 0) + pick(run)!), null);
  yield storedRun(options, {
    id: rootId,
    trace_id: rootId,
    parent_run_id: null,
    parent_run_ids: '[]',
    name: TRACE_SHAPE[0].name,
    run_type: TRACE_SHAPE[0].run_type,
    start_time: rootStart,
    end_time: childStart,
    is_root: 1,
    dotted_order: rootSegment,
    inputs: JSON.stringify({ question: sentence(random, half) }),
    outputs: JSON.stringify({ answer: sentence(random, half) }),
    prompt_tokens: sum((run) => run.prompt_tokens),
    completion_tokens: sum((run) => run.completion_tokens),
    total_tokens: sum((run) => run.total_tokens),
    prompt_cost: sum((run) => run.prompt_cost),
    completion_cost: sum((run) => run.completion_cost),
    total_cost: sum((run) => run.total_cost),
    first_token_time: children.find((run) => run.first_token_time !== null)?.first_token_time ?? null,
  });
  yield* children;
}

type VaryingFields = Omit<
  StoredRun,
  'tenant_id' | 'session_id' | 'reference_example_id' | 'status' | 'trace_tier' | 'error' | 'extra' | 'events' | 'tags' | 'feedback_stats'
>;

function storedRun(options: SyntheticRunsOptions, fields: VaryingFields): StoredRun {
  return {
    ...fields,
    tenant_id: options.tenantId,
    session_id: options.sessionId,
    reference_example_id: null,
    status: 'success',
    trace_tier: 'longlived',
    error: null,
    extra: JSON.stringify({ metadata: { source: 'synthetic', ls_model_name: fields.run_type === 'llm' ? 'fake-chat' : null } }),
    events: fields.run_type === 'llm' ? JSON.stringify([{ name: 'new_token', time: fields.start_time }]) : '[]',
    tags: JSON.stringify(fields.is_root ? ['synthetic', 'root'] : ['synthetic']),
    feedback_stats: fields.is_root ? JSON.stringify({ correctness: { n: 1, avg: 1 } }) : null,
  };
}

/** Every synthetic run, in batches, without holding more than one batch in memory. */
export function* syntheticRunBatches(options: SyntheticRunsOptions): Generator<StoredRun[]> {
  const random = prng(options.seed ?? 1);
  const traces = Math.ceil(options.count / TRACE_SHAPE.length);
  const spacing = (options.endMicros - options.startMicros) / Math.max(1, traces);
  const batchSize = options.batchSize ?? 10_000;
  let remaining = options.count;
  let batch: StoredRun[] = [];
  for (let trace = 0; trace < traces; trace++) {
    const size = Math.min(TRACE_SHAPE.length, remaining);
    remaining -= size;
    batch.push(...traceRuns(options, random, Math.floor(options.startMicros + trace * spacing), size));
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Inserts `count` synthetic runs; returns how many were created. */
export function generateSyntheticRuns(runs: RunStore, options: SyntheticRunsOptions): number {
  let created = 0;
  for (const batch of syntheticRunBatches(options)) created += runs.insertStored(batch);
  return created;
}
