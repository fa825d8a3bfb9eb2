/** The retries of refused keys while new keys propagate: how many fit, what is thrown, and that Ctrl-C ends the wait. */
import { RefusedAfterPropagation, whileKeysPropagate } from '../../lib/provider/resources/shared/key-propagation';

const refusal = (detail: string) => Object.assign(new Error(detail), { status: 400, body: { detail } });

test('a refusal of new keys is tried again while an attempt still fits, then thrown as standing, with the time waited', async () => {
  const times: number[] = [];
  const started = Date.now();
  const outcome = await whileKeysPropagate(
    async (left) => {
      times.push(Date.now() - started);
      expect(left).toBeGreaterThan(0);
      throw refusal('Access denied');
    },
    { timeLimitMs: 2_500, log: () => undefined },
  ).catch((err: unknown) => err);
  // attempts at 0 and 1 s; the next (after 2 s more) would leave no time to answer within 2.5 s
  expect(times).toHaveLength(2);
  expect(outcome).toBeInstanceOf(RefusedAfterPropagation);
  expect((outcome as RefusedAfterPropagation).interrupted).toBe(false);
  // the one wait of 1 s (timers may fire a few milliseconds early against Date.now())
  expect((outcome as RefusedAfterPropagation).waitedMs).toBeGreaterThanOrEqual(900);
});

test('other failures, and a refusal when no retry fits at all, are thrown as they are', async () => {
  const other = Object.assign(new Error('Bucket is not valid'), { status: 400, body: { detail: 'Bucket is not valid' } });
  await expect(whileKeysPropagate(() => Promise.reject(other), { timeLimitMs: 60_000, log: () => undefined })).rejects.toBe(other);
  const denied = refusal('Key ID you provided does not exist');
  await expect(whileKeysPropagate(() => Promise.reject(denied), { timeLimitMs: 500, log: () => undefined })).rejects.toBe(denied);
});

test('keys that reach the store during the retries succeed, and each wait is logged', async () => {
  let attempts = 0;
  const lines: string[] = [];
  const value = await whileKeysPropagate(
    async () => {
      attempts += 1;
      if (attempts < 2) throw refusal('Key ID you provided does not exist');
      return 'made';
    },
    { timeLimitMs: 60_000, log: (line) => lines.push(line) },
  );
  expect([value, attempts]).toEqual(['made', 2]);
  expect(lines).toEqual(['the platform refused the keys (Key ID you provided does not exist); new keys take seconds to reach the store: trying again in 1s']);
});

test('terraform stopping the wait ends it at once, said as interrupted', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  let attempts = 0;
  const outcome = await whileKeysPropagate(
    () => {
      attempts += 1;
      return Promise.reject(refusal('Access denied'));
    },
    { timeLimitMs: 60_000, signal: controller.signal, log: () => undefined },
  ).catch((err: unknown) => err);
  // stopped during the first wait: no second attempt
  expect(attempts).toBe(1);
  expect(outcome).toBeInstanceOf(RefusedAfterPropagation);
  expect((outcome as RefusedAfterPropagation).interrupted).toBe(true);
});
