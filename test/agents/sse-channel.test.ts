/**
 * The SSE body of a run stream: events as the run sends them, and while the run is silent a comment line every
 * `keepAliveMs`, so that clients and proxies that drop idle connections keep the stream; clients skip comments.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SseChannel } from '../../lib/local/agents/http/sse-channel';

const text = (chunk: Uint8Array | undefined) => Buffer.from(chunk ?? new Uint8Array()).toString('utf8');

test('a silent stream sends a comment every keepAliveMs, and events as they come', async () => {
  const channel = new SseChannel(new Set(['values']), false, 40);
  const reader = channel.body.getReader();
  channel.send('metadata', '{"run_id":"r1"}');
  const read: string[] = [text((await reader.read()).value)];
  const started = Date.now();
  read.push(text((await reader.read()).value));
  const silentFor = Date.now() - started;
  read.push(text((await reader.read()).value));
  channel.send('values', '{"n":1}');
  channel.close();
  read.push(text((await reader.read()).value));
  expect(await reader.read()).toEqual({ done: true, value: undefined });
  expect(read).toEqual(['event: metadata\ndata: {"run_id":"r1"}\n\n', ': keep-alive\n\n', ': keep-alive\n\n', 'event: values\ndata: {"n":1}\n\n']);
  expect(silentFor).toBeGreaterThanOrEqual(30);
  // what a client parses of it: the events alone
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(read.join(''));
  expect(events.map((event) => [event.event, event.data])).toEqual([
    ['metadata', '{"run_id":"r1"}'],
    ['values', '{"n":1}'],
  ]);
});
