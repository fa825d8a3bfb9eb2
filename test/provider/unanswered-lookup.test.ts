/**
 * The tries after an unanswered create (or of a delete): an idempotent request tried again through passing failures,
 * after the platform's `Retry-After` or a backoff, until it answers, until the deadline (the operation's timeout), a
 * few seconds once terraform stops, or a grace period after a look-up that found nothing; a failure that says the
 * search is over ends it at once; nothing is left behind on terraform's stop signal, which lives for the whole run.
 * Fake timers stand for the time limits: nothing here waits for real time.
 */
import { getEventListeners } from 'node:events';
import { BadRequestError, NetworkError, errorFromResponse } from '../../lib/api/errors';
import { NOTHING_FOUND_GRACE_MS, createKey, takeCreateKey, tryUntilAnswered, type LookupOptions } from '../../lib/provider/resources/shared/unanswered-create';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const where = { method: 'GET', url: 'http://platform.test/v2/deployments' };
const connectionLost = (): NetworkError => new NetworkError('network error: other side closed (UND_ERR_SOCKET)', { ...where, code: 'UND_ERR_SOCKET' });
const refused = (retryAfterMs: number) => errorFromResponse({ ...where, status: 503, retryAfterMs });

/** A look-up that hangs until its signal aborts, and says when that was (by the fake clock). */
const hanging = (options: LookupOptions): Promise<number> =>
  new Promise((_resolve, reject) => options.signal.addEventListener('abort', () => reject(connectionLost()), { once: true }));

test('failures are tried again until the object is found, each try one attempt, after the Retry-After the platform sends', async () => {
  const stop = new AbortController();
  const tries: number[] = [];
  const seen: LookupOptions[] = [];
  const started = Date.now();
  const answers = [() => Promise.reject(refused(2_000)), () => Promise.reject(connectionLost()), () => Promise.resolve('made')];
  const result = tryUntilAnswered({ stop: stop.signal, deadlineMs: started + 600_000 }, (options) => {
    tries.push(Date.now() - started);
    seen.push(options);
    return answers[tries.length - 1]!();
  });
  await jest.advanceTimersByTimeAsync(10_000);
  await expect(result).resolves.toEqual({ found: 'made' });
  expect(tries).toHaveLength(3);
  // the 503 asked for 2 s; the lost connection is followed by a backoff of at most 500 ms
  expect(tries[1]).toBe(2_000);
  expect(tries[2]! - tries[1]!).toBeLessThanOrEqual(500);
  expect(seen[0]).toMatchObject({ retry: false, timeoutMs: 30_000 });
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});

test('tries that keep failing end at the deadline, with the last failure', async () => {
  const stop = new AbortController();
  const started = Date.now();
  let tries = 0;
  const result = tryUntilAnswered({ stop: stop.signal, deadlineMs: started + 60_000 }, () => {
    tries += 1;
    return Promise.reject(connectionLost());
  });
  await jest.advanceTimersByTimeAsync(60_000);
  const ended = await result;
  expect(ended).toEqual({ listed: false, lastFailure: expect.any(NetworkError) });
  // backoff capped at 5 s: a try at least every 5 s for a minute
  expect(tries).toBeGreaterThanOrEqual(12);
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});

test('a look-up that finds nothing is tried again for a grace period, then the tries end', async () => {
  const stop = new AbortController();
  const started = Date.now();
  let tries = 0;
  const result = tryUntilAnswered({ stop: stop.signal, deadlineMs: started + 600_000 }, async () => {
    tries += 1;
    return null;
  });
  await jest.advanceTimersByTimeAsync(NOTHING_FOUND_GRACE_MS);
  await expect(result).resolves.toEqual({ listed: true, lastFailure: undefined });
  expect(tries).toBeGreaterThan(1);
});

test('a failure that is neither passing nor hiding a success ends the tries at once', async () => {
  const stop = new AbortController();
  const refusal = new BadRequestError('400 Bad Request: no', { ...where, status: 400 });
  await expect(tryUntilAnswered({ stop: stop.signal, deadlineMs: Date.now() + 600_000 }, () => Promise.reject(refusal))).rejects.toBe(refusal);
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});

test('terraform stopping while the tries run leaves them a few seconds', async () => {
  const stop = new AbortController();
  const result = tryUntilAnswered({ stop: stop.signal, deadlineMs: Date.now() + 600_000 }, hanging);
  await jest.advanceTimersByTimeAsync(1_000);
  const stoppedAt = Date.now();
  stop.abort();
  await jest.advanceTimersByTimeAsync(5_000);
  await expect(result).resolves.toMatchObject({ listed: false });
  expect(Date.now() - stoppedAt).toBe(5_000);
});

test('tries that start once terraform is stopping have a few seconds, and many leave no listener', async () => {
  const stop = new AbortController();
  for (let i = 0; i < 20; i++) await tryUntilAnswered({ stop: stop.signal, deadlineMs: Date.now() + 600_000 }, async () => i);
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  stop.abort();
  const started = Date.now();
  let ended = 0;
  const result = tryUntilAnswered({ stop: stop.signal, deadlineMs: started + 600_000 }, (options) =>
    hanging(options).finally(() => (ended = Date.now())),
  );
  await jest.advanceTimersByTimeAsync(5_000);
  await expect(result).resolves.toMatchObject({ listed: false });
  expect(ended - started).toBe(5_000);
});

test('the Idempotency-Key of a create is the same for the same settings, in any order, and differs with them', () => {
  const key = createKey('agentplatform_bulk_export', { session_id: 's', start_time: 't', export_fields: ['a', 'b'], filter: undefined });
  expect(createKey('agentplatform_bulk_export', { start_time: 't', export_fields: ['a', 'b'], session_id: 's' })).toBe(key);
  expect(key).toMatch(/^terraform-agentplatform_bulk_export-[A-Za-z0-9_-]{43}$/);
  for (const other of [
    createKey('agentplatform_bulk_export', { session_id: 's', start_time: 't', export_fields: ['b', 'a'] }),
    createKey('agentplatform_bulk_export', { session_id: 's', start_time: 'u', export_fields: ['a', 'b'] }),
    createKey('agentplatform_export_destination', { session_id: 's', start_time: 't', export_fields: ['a', 'b'] }),
  ]) {
    expect(other).not.toBe(key);
  }
});

test('a second create of the very same request in one process gets a key of its own', () => {
  const settings = { name: 'twin', source: 'github' };
  const first = takeCreateKey('agentplatform_deployment', settings);
  expect(first).toBe(createKey('agentplatform_deployment', settings));
  expect(takeCreateKey('agentplatform_deployment', settings)).toBe(`${first}-2`);
  expect(takeCreateKey('agentplatform_deployment', settings)).toBe(`${first}-3`);
});
