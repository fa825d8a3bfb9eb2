/** The `chat` graph: one `agent` node that answers the conversation with the fake model, streaming its tokens. */
import type { ChatModel } from '../engine/chat-model';
import { END, START, StateGraph, type CompiledGraph } from '../engine/graph';
import { FAKE_MODEL_CONFIG_SCHEMA } from '../engine/fake-chat-model';
import { MESSAGE_LIST_SCHEMA, appendMessages, type StateMessage } from '../engine/messages';

/** Builds the chat graph around `model`. */
export function buildChatGraph(model: ChatModel): CompiledGraph {
  const messages = {
    reducer: (current: unknown, update: unknown) => appendMessages(current as StateMessage[], update),
    initial: () => [],
    schema: MESSAGE_LIST_SCHEMA,
  };
  return new StateGraph('chat', { messages }, { configurable: FAKE_MODEL_CONFIG_SCHEMA })
    .addNode('agent', async (state, context) => {
      const reply = await context.callModel(model, state.messages as StateMessage[], { tags: ['chat'] });
      return { messages: [reply] };
    })
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile();
}
