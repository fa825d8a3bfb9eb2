/**
 * Every run is traced into the tracing project named after its deployment: a root run, a child per node (a
 * subgraph's nodes under the subgraph node), an llm run per model call with token counts and costs, summed upward.
 */
import type { AgentServerClient } from '../../lib/api/agent-server';
import type { DeploymentRecord as Deployment } from '../../lib/api/schemas/control-plane';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

let platform: AgentTestPlatform;
let deployment: Deployment;
let client: AgentServerClient;

beforeAll(async () => {
  platform = await startAgentTestPlatform();
  deployment = await platform.deploy('traced-agent');
  client = platform.client(deployment);
});
afterAll(() => platform.close());

interface TraceRow {
  id: string;
  tenant_id: string;
  session_id: string;
  trace_id: string;
  parent_run_id: string | null;
  name: string;
  run_type: string;
  status: string;
  is_root: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
  first_token_time: number | null;
}

const traceOf = async (runId: string): Promise<TraceRow[]> => {
  await waitFor(() => platform.db.prepare('SELECT 1 FROM trace_runs WHERE id = ?').get(runId));
  return platform.db.prepare('SELECT * FROM trace_runs WHERE trace_id = ?').all(runId) as TraceRow[];
};

it('a research run is traced as a tree in the project named after the deployment', async () => {
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, {
    assistant_id: 'research',
    input: { messages: [{ role: 'user', content: 'trace trees' }] },
  });
  await client.runs.join(thread.thread_id, run.run_id);
  const rows = await traceOf(run.run_id);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const nameOf = (id: string | null) => (id ? byId.get(id)?.name : null);

  const project = platform.db
    .prepare('SELECT name, tenant_id FROM tracing_sessions WHERE id = ?')
    .get(rows[0].session_id);
  expect(project).toEqual({ name: deployment.name, tenant_id: deployment.tenant_id });

  const root = byId.get(run.run_id) as TraceRow;
  expect(root).toMatchObject({
    name: 'research',
    run_type: 'chain',
    parent_run_id: null,
    is_root: 1,
    status: 'success',
  });
  const edges = rows
    .filter((row) => row.id !== root.id)
    .map((row) => `${nameOf(row.parent_run_id)} > ${row.name} (${row.run_type})`)
    .sort();
  expect(edges).toEqual([
    'report > fake-chat-model (llm)',
    'research > outline (chain)',
    'research > plan (chain)',
    'research > report (chain)',
    'research > research_subgraph (chain)',
    'research_subgraph > search (chain)',
    'research_subgraph > summarize (chain)',
    'summarize > fake-chat-model (llm)',
  ]);

  const llmRuns = rows.filter((row) => row.run_type === 'llm');
  for (const llm of llmRuns) {
    expect(llm.completion_tokens).toBeGreaterThan(0);
    expect(llm.prompt_tokens).toBeGreaterThan(0);
    expect(llm.total_tokens).toBe(llm.prompt_tokens + llm.completion_tokens);
    expect(llm.total_cost).toBeCloseTo(llm.prompt_cost + llm.completion_cost, 12);
    expect(llm.total_cost).toBeGreaterThan(0);
    expect(llm.first_token_time).not.toBeNull();
  }
  const sum = (field: keyof TraceRow) => llmRuns.reduce((total, row) => total + (row[field] as number), 0);
  expect(root.total_tokens).toBe(sum('total_tokens'));
  expect(root.completion_tokens).toBe(sum('completion_tokens'));
  expect(root.total_cost).toBeCloseTo(sum('total_cost'), 12);
  const subgraph = rows.find((row) => row.name === 'research_subgraph') as TraceRow;
  expect(subgraph.total_tokens).toBe(llmRuns.find((row) => nameOf(row.parent_run_id) === 'summarize')?.total_tokens);

  // The completion tokens of the reply are the ones the thread's last message reports.
  const state = await client.threads.getState(thread.thread_id);
  const reply = state.values.messages?.at(-1) as unknown as { usage_metadata: { output_tokens: number } };
  expect(llmRuns.find((row) => nameOf(row.parent_run_id) === 'report')?.completion_tokens).toBe(
    reply.usage_metadata.output_tokens,
  );
});

it('a failed run is traced with its error', async () => {
  let runId = '';
  const consume = async () => {
    for await (const chunk of client.runs.stream(null, {
      assistant_id: 'chat',
      input: { messages: [{ role: 'user', content: 'x' }] },
      config: { configurable: { model_error: 'no capacity' } },
    })) {
      if (chunk.mode === 'metadata') runId = chunk.data.run_id;
    }
  };
  await expect(consume()).rejects.toThrow('no capacity');
  const rows = await traceOf(runId);
  expect(rows.find((row) => row.id === runId)).toMatchObject({ status: 'error', error: 'FakeModelError: no capacity' });
  expect(rows.find((row) => row.name === 'agent')).toMatchObject({ status: 'error' });
});
