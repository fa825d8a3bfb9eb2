/**
 * The `research` graph: `plan` derives search queries from the question; then, in one step, the
 * `research_subgraph` (nodes `search`, which reports progress as custom events, and `summarize`, which calls the
 * model) and `outline` run side by side; `report` answers with the model. It exercises subgraph namespaces, custom
 * events and several updates in one step.
 */
import type { ChatModel } from '../engine/chat-model';
import { END, START, StateGraph, type CompiledGraph, type StateSpec } from '../engine/graph';
import { FAKE_MODEL_CONFIG_SCHEMA } from '../engine/fake-chat-model';
import { MESSAGE_LIST_SCHEMA, appendMessages, makeMessage, messageText, type StateMessage } from '../engine/messages';

const text = { schema: { type: 'string' } };
const textList = { type: 'array', items: { type: 'string' } };
const config = { configurable: FAKE_MODEL_CONFIG_SCHEMA };
const appendList = (current: unknown, update: unknown): unknown[] => [
  ...((current as unknown[] | undefined) ?? []),
  ...(Array.isArray(update) ? update : [update]),
];

const RESEARCH_STATE: StateSpec = {
  messages: {
    reducer: (current, update) => appendMessages(current as StateMessage[], update),
    initial: () => [],
    schema: MESSAGE_LIST_SCHEMA,
  },
  topic: text,
  queries: { schema: textList },
  // The subgraph appends to the findings it was given and returns them all: the parent keeps that list as is.
  findings: { initial: () => [], schema: textList },
  summary: text,
  outline: { schema: textList },
};

/** Builds the research graph and its subgraph around `model`. */
export function buildResearchGraph(model: ChatModel): CompiledGraph {
  const subgraph = new StateGraph(
    'research_subgraph',
    {
      topic: text,
      queries: { schema: textList },
      findings: { reducer: appendList, initial: () => [], schema: textList },
      summary: text,
    },
    config,
  )
    .addNode('search', (state, context) => {
      const queries = state.queries as string[];
      const findings = queries.map((query, index) => {
        context.writeCustom({ stage: 'search', query, progress: (index + 1) / queries.length });
        return `${query}: ${query.split(' ').length} sources`;
      });
      return { findings };
    })
    .addNode('summarize', async (state, context) => {
      const findings = state.findings as string[];
      context.writeCustom({ stage: 'summarize', findings: findings.length });
      const prompt = makeMessage('human', `Summarize: ${findings.join('; ')}`);
      const summary = await context.callModel(model, [prompt], { tags: ['summary'] });
      return { summary: messageText(summary) };
    })
    .addEdge(START, 'search')
    .addEdge('search', 'summarize')
    .addEdge('summarize', END)
    .compile();

  return new StateGraph('research', RESEARCH_STATE, config)
    .addNode('plan', (state) => {
      const question = [...(state.messages as StateMessage[])].reverse().find((message) => message.type === 'human');
      const topic = question ? messageText(question) : '';
      return { topic, queries: [`${topic} overview`, `${topic} recent work`] };
    })
    .addSubgraph('research_subgraph', subgraph)
    .addNode('outline', (state) => ({
      outline: (state.queries as string[]).map((query, index) => `${index + 1}. ${query}`),
    }))
    .addNode('report', async (state, context) => {
      const reply = await context.callModel(model, state.messages as StateMessage[], { tags: ['report'] });
      return { messages: [reply] };
    })
    .addEdge(START, 'plan')
    .addEdge('plan', 'research_subgraph')
    .addEdge('plan', 'outline')
    .addEdge('research_subgraph', 'report')
    .addEdge('outline', 'report')
    .addEdge('report', END)
    .compile();
}
