/**
 * The time limit of the provider's waits holds however often V8 collects garbage. A limit made of
 * `AbortSignal.any([stop, AbortSignal.timeout(ms)])` did not: nothing else held the timeout signal, Node 20 collected
 * it, and the combined signal never aborted, so an apply waited past `timeouts.create` until Ctrl-C.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BulkExportClient } from '../../lib/api/bulk-export';
import type { ControlPlaneClient } from '../../lib/api/control-plane';
import { createLogger } from '../../lib/provider/log';
import { waitForExport } from '../../lib/provider/resources/bulk-export/wait';
import { waitForRevision } from '../../lib/provider/resources/deployment/wait';
import { WaitError } from '../../lib/provider/resources/shared/poll';
import { within } from './support/within';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const log = createLogger(undefined);
const never = new AbortController().signal;
const schedule = { initialMs: 20, factor: 1, maxMs: 20 };

test('waitForExport ends at its time limit while the garbage collector runs at every poll', async () => {
  const client = {
    getExport: async () => {
      gc();
      return { id: 'e', status: 'Running' };
    },
  } as unknown as BulkExportClient;
  const outcome = await within(5_000, waitForExport({ client, exportId: 'e', timeoutMs: 300, signal: never, log, schedule }));
  expect(outcome).toEqual({ kind: 'timed-out', lastStatus: 'Running' });
});

test('waitForRevision ends at its time limit while the garbage collector runs at every poll', async () => {
  const client = {
    getRevision: async () => {
      gc();
      return { id: 'r', status: 'BUILDING' };
    },
  } as unknown as ControlPlaneClient;
  const waiting = waitForRevision({ client, deploymentId: 'd', revisionId: 'r', timeoutMs: 300, signal: never, log, schedule }).catch((err: unknown) => err);
  const outcome = await within(5_000, waiting);
  expect(outcome).toBeInstanceOf(WaitError);
  expect(outcome).toMatchObject({ reason: 'timed-out', lastStatus: 'BUILDING' });
});
