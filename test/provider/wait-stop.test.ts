/**
 * Terraform's stop (StopProvider) ends the provider's waits while they sleep between two polls, not at the next poll:
 * the polls here are a minute apart, and the wait must end well before.
 */
import type { BulkExportClient } from '../../lib/api/bulk-export';
import type { ControlPlaneClient } from '../../lib/api/control-plane';
import { createLogger } from '../../lib/provider/log';
import { waitForExport } from '../../lib/provider/resources/bulk-export/wait';
import { waitForRevision } from '../../lib/provider/resources/deployment/wait';
import { WaitError } from '../../lib/provider/resources/shared/poll';
import { within } from './support/within';

const log = createLogger(undefined);
/** A minute between polls, the first one included. */
const schedule = { initialMs: 60_000, factor: 1, maxMs: 60_000 };

test('waitForExport ends while it sleeps after a poll when terraform stops', async () => {
  const stop = new AbortController();
  let polls = 0;
  const client = {
    getExport: async () => {
      polls += 1;
      // stopped right after this poll: the wait is about to sleep a minute
      setImmediate(() => stop.abort());
      return { id: 'e', status: 'Running' };
    },
  } as unknown as BulkExportClient;
  const outcome = await within(10_000, waitForExport({ client, exportId: 'e', timeoutMs: 600_000, signal: stop.signal, log, schedule }));
  expect(outcome).toEqual({ kind: 'stopped', lastStatus: 'Running' });
  expect(polls).toBe(1);
});

test('waitForRevision ends while it sleeps before its next poll when terraform stops', async () => {
  const stop = new AbortController();
  let polls = 0;
  const client = {
    getRevision: async () => {
      polls += 1;
      return { id: 'r', status: 'BUILDING' };
    },
  } as unknown as ControlPlaneClient;
  const waiting = waitForRevision({ client, deploymentId: 'd', revisionId: 'r', timeoutMs: 600_000, signal: stop.signal, log, schedule }).catch(
    (err: unknown) => err,
  );
  // the first poll also waits a minute: the stop comes during that sleep
  setImmediate(() => stop.abort());
  const outcome = await within(10_000, waiting);
  expect(outcome).toBeInstanceOf(WaitError);
  expect(outcome).toMatchObject({ reason: 'stopped', message: expect.stringContaining('because terraform is stopping; no status seen yet') });
  expect(polls).toBe(0);
});
