/**
 * The lookup after an unanswered create: one time limit for all of it, a few seconds once terraform stops (before the
 * lookup or while it runs), and nothing left behind on terraform's stop signal, which lives for the whole run.
 * Fake timers stand for the time limits: nothing here waits for real time.
 */
import { getEventListeners } from 'node:events';
import { withLookup, type LookupOptions } from '../../lib/provider/resources/unanswered-create';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** A lookup that hangs until its signal aborts, and says when that was (by the fake clock). */
const hanging = (options: LookupOptions): Promise<number> =>
  new Promise((resolve) => options.signal.addEventListener('abort', () => resolve(Date.now()), { once: true }));

test('a lookup ends after 30 s, each request one attempt, and leaves no listener on the stop signal', async () => {
  const stop = new AbortController();
  const started = Date.now();
  const seen: LookupOptions[] = [];
  const ended = withLookup(stop.signal, (options) => {
    seen.push(options);
    return hanging(options);
  });
  await jest.advanceTimersByTimeAsync(30_000);
  expect((await ended) - started).toBe(30_000);
  expect(seen[0]).toMatchObject({ retry: false, timeoutMs: 30_000 });
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});

test('terraform stopping while the lookup runs leaves it a few seconds', async () => {
  const stop = new AbortController();
  const ended = withLookup(stop.signal, hanging);
  await jest.advanceTimersByTimeAsync(1_000);
  const stoppedAt = Date.now();
  stop.abort();
  await jest.advanceTimersByTimeAsync(5_000);
  expect((await ended) - stoppedAt).toBe(5_000);
});

test('a lookup that starts once terraform is stopping has a few seconds, and many lookups leave no listener', async () => {
  const stop = new AbortController();
  for (let i = 0; i < 20; i++) await withLookup(stop.signal, async () => i);
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  stop.abort();
  const started = Date.now();
  const ended = withLookup(stop.signal, hanging);
  await jest.advanceTimersByTimeAsync(5_000);
  expect((await ended) - started).toBe(5_000);
});
