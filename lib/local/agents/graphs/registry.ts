/**
 * The built-in graphs and how a deployment's `graph_config_path` chooses among them: a file named `chat.*` serves
 * the `chat` graph, `research.*` the `research` graph, and any other path (or none, as with `langgraph.json`)
 * serves both.
 */
import type { CompiledGraph } from '../engine/graph';
import { FakeChatModel } from '../engine/fake-chat-model';
import { buildChatGraph } from './chat';
import { buildResearchGraph } from './research';

const model = new FakeChatModel();

/** Every built-in graph, by graph id. */
export const BUILT_IN_GRAPHS: ReadonlyMap<string, CompiledGraph> = new Map([
  ['chat', buildChatGraph(model)],
  ['research', buildResearchGraph(model)],
]);

/** The graph ids a deployment serves, given its `graph_config_path`. */
export function graphIdsForConfigPath(graphConfigPath: string | null | undefined): string[] {
  const fileName = (graphConfigPath ?? '').split(/[\\/]/).pop() ?? '';
  const stem = fileName.replace(/\.[^.]*$/, '');
  return BUILT_IN_GRAPHS.has(stem) ? [stem] : [...BUILT_IN_GRAPHS.keys()];
}
