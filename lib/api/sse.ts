/**
 * Server-Sent Events read from a streaming response body with `eventsource-parser`: an async generator of
 * `{event, data}` messages. Ending the iteration early (break, return, throw) destroys the body, which closes the
 * connection.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Readable } from 'node:stream';

/** One SSE message: its event name (`message` when the server sent none) and its data text. */
export interface SseMessage {
  /** The `event:` field. */
  readonly event: string;
  /** The `data:` lines joined by newlines. */
  readonly data: string;
  /** The `id:` field, when sent. */
  readonly id?: string;
}

/** Yields the messages of an SSE body as they arrive; the body is destroyed when the iteration ends. */
export async function* readServerSentEvents(body: Readable & AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) =>
      ready.push({ event: message.event ?? 'message', data: message.data, id: message.id }),
  });
  const decoder = new TextDecoder();
  try {
    for await (const bytes of body) {
      parser.feed(decoder.decode(bytes, { stream: true }));
      for (let index = 0; index < ready.length; index += 1) yield ready[index];
      ready.length = 0;
    }
    parser.feed(decoder.decode());
    yield* ready;
  } finally {
    if (!body.destroyed) body.destroy();
  }
}
