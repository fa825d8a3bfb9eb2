/** The `chat` graph: one `agent` node that answers the conversation with the fake model, streaming its tokens. */
import type { ChatModel } from '../engine/chat-model';
import { END, START, StateGraph, type CompiledGraph } from '../engine/graph';
import { appendMessages, type StateMessage } from '../engine/messages';

/** Builds the chat graph around `model`. */
export function buildChatGraph(model: ChatModel): CompiledGraph {
  return new StateGraph('chat', {
    messages: { reducer: (current, update) => appendMessages(current as StateMessage[], update), initial: () => [] },
  })
    .addNode('agent', async (state, context) => {
      const reply = await context.callModel(model, state.messages as StateMessage[], { tags: ['chat'] });
      return { messages: [reply] };
    })
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile();
}
