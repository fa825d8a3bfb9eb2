/**
 * The waiters of `agentplatform_deployment` against the local platform over real HTTP: the adaptive poll schedule,
 * success (DEPLOYED, a superseding revision after SKIPPED or INTERRUPTED), failure, time limit, stop, transient
 * server errors, and deletion.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ControlPlaneClient } from '../../lib/api/control-plane';
import { createLogger } from '../../lib/provider/log';
import { revisionDurationMs, waitForDeletion, waitForRevision } from '../../lib/provider/resources/deployment/wait';
import { DEFAULT_POLL_SCHEDULE, EXPECTED_STEP_MAX_MS, EXPECTED_STEP_MIN_MS, PollInterval, UNREADABLE_POLLS_MAX, WaitError } from '../../lib/provider/resources/shared/poll';
import { startFaultProxy } from '../tracing/support/fault-proxy';
import { FAST_TIMINGS, TestPlatform, until } from './support/deployment-platform';

const log = createLogger(undefined);
const never = new AbortController().signal;
const github = (name: string, repoRef = 'main') => ({
  name,
  source: 'github' as const,
  source_config: { repo_url: 'https://github.com/acme/agent' },
  source_revision_config: { repo_ref: repoRef },
});

describe('PollInterval', () => {
  it('starts quick, grows by the factor up to the cap, and starts over when the status changes', () => {
    const interval = new PollInterval({ initialMs: 100, factor: 2, maxMs: 500 });
    expect([false, false, false, false, false].map((c) => interval.next(c))).toEqual([100, 200, 400, 500, 500]);
    expect(interval.next(true)).toBe(100);
    expect(interval.next(false)).toBe(200);
  });

  it('with an expected duration, sleeps until just past it, in steps of a quarter of it (2 s to 10 s), then polls quickly', () => {
    const schedule = { initialMs: 100, factor: 2, maxMs: 500 };
    const short = new PollInterval(schedule, 1000);
    expect(short.next(false, 0)).toBe(1100);
    expect(short.next(true, 1100)).toBe(100);
    expect(short.next(false, 1200)).toBe(200);
    // a revision that took 16 s last time: a quicker one is seen within 4 s of DEPLOYED
    const medium = new PollInterval(schedule, 16_000);
    expect([0, 4000, 8000, 12_000, 16_000].map((elapsed) => medium.next(false, elapsed))).toEqual([4000, 4000, 4000, 4000, 850]);
    const long = new PollInterval(schedule, 60_000);
    expect(long.next(false, 0)).toBe(EXPECTED_STEP_MAX_MS);
    expect(long.next(true, 10_000)).toBe(EXPECTED_STEP_MAX_MS);
    expect(long.next(false, 60_000)).toBe(3050);
    expect(long.next(false, 63_050)).toBe(100);
    expect(new PollInterval(schedule, 4000).next(false, 0)).toBe(EXPECTED_STEP_MIN_MS);
  });

  it('measures a deployed revision by the platform clock, and nothing else', () => {
    const revision = { status: 'DEPLOYED', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:01:30.250Z' };
    expect(revisionDurationMs(revision as never)).toBe(90_250);
    expect(revisionDurationMs({ ...revision, status: 'SKIPPED' } as never)).toBeUndefined();
    expect(revisionDurationMs({ ...revision, updated_at: 'garbage' } as never)).toBeUndefined();
  });

  it('defaults to 100 ms, x1.5, at most 5 s', () => {
    expect(DEFAULT_POLL_SCHEDULE).toEqual({ initialMs: 100, factor: 1.5, maxMs: 5000 });
  });
});

describe('waiting for revisions and deletions', () => {
  let fast: TestPlatform;
  let slow: TestPlatform;
  beforeAll(async () => {
    [fast, slow] = await Promise.all([
      TestPlatform.start(),
      TestPlatform.start({ ...FAST_TIMINGS, buildingMs: 600_000, deployingMs: 1_000, deleteDelayMs: 600_000 }),
    ]);
  });
  afterAll(() => Promise.all([fast.close(), slow.close()]));

  const polls = (lp: TestPlatform, revisionId: string) => lp.requests.filter((line) => line.startsWith(`GET `) && line.includes(`/revisions/${revisionId}`)).length;

  it('returns the DEPLOYED revision, polling a few times per status', async () => {
    const d = await fast.client.createDeployment(github(fast.uniqueName('ok')));
    const revision = await waitForRevision({ client: fast.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
    expect(revision).toMatchObject({ id: d.latest_revision_id, status: 'DEPLOYED' });
    // Six 20 ms steps: the quick polls after each change catch up without piling up requests.
    expect(polls(fast, d.latest_revision_id!)).toBeLessThanOrEqual(8);
  });

  it('expecting the revision to take as long as the last one, sleeps until then and sees DEPLOYED with one poll', async () => {
    const d = await fast.client.createDeployment(github(fast.uniqueName('expected')));
    const first = await waitForRevision({ client: fast.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
    const took = revisionDurationMs(first)!;
    expect(took).toBeGreaterThan(0);
    const next = await fast.client.updateDeployment(d.id, { source_revision_config: { repo_ref: 'release' } });
    // Room for a machine busy with other tests: the revision is surely DEPLOYED by the expected end.
    const expectedMs = took + 300;
    const started = Date.now();
    const second = await waitForRevision({ client: fast.client, deploymentId: d.id, revisionId: next.latest_revision_id!, timeoutMs: 10_000, signal: never, log, expectedMs });
    expect(second.status).toBe('DEPLOYED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(expectedMs);
    expect(polls(fast, next.latest_revision_id!)).toBe(1);
  });

  it('ends with the failed status, naming the revision', async () => {
    const d = await fast.client.createDeployment(github(fast.uniqueName('fail'), 'main#fail-deploy'));
    const failure = waitForRevision({ client: fast.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
    await expect(failure).rejects.toMatchObject({ reason: 'failed', lastStatus: 'DEPLOY_FAILED', revisionId: d.latest_revision_id, message: expect.stringContaining(`revision ${d.latest_revision_id}`) });
  });

  it('follows the newer revision of the same source when its own was SKIPPED (new secrets): it deploys what was asked for', async () => {
    const d = await fast.client.createDeployment(github(fast.uniqueName('skip')));
    const next = await fast.client.updateDeployment(d.id, { secrets: [{ name: 'TOKEN', value: 'rotated' }] });
    expect(next.latest_revision_id).not.toBe(d.latest_revision_id);
    expect((await fast.client.getRevision(d.id, d.latest_revision_id!)).status).toBe('SKIPPED');
    const revision = await waitForRevision({ client: fast.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
    expect(revision).toMatchObject({ id: next.latest_revision_id, status: 'DEPLOYED' });
  });

  it('ends as superseded when a newer revision of another source took its place: what was asked for is not deployed', async () => {
    const d = await fast.client.createDeployment(github(fast.uniqueName('other-source')));
    const next = await fast.client.updateDeployment(d.id, { source_revision_config: { repo_ref: 'next' } });
    const wait = waitForRevision({ client: fast.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
    await expect(wait).rejects.toMatchObject({
      reason: 'superseded',
      lastStatus: 'SKIPPED',
      revisionId: next.latest_revision_id,
      message: `revision ${d.latest_revision_id} of deployment ${d.id} was SKIPPED for revision ${next.latest_revision_id}, made outside this apply, which deploys repo_ref "next" instead of "main"`,
    });
  });

  it('fails when its revision was SKIPPED and none replaces it (the deployment is being deleted)', async () => {
    const d = await slow.client.createDeployment(github(slow.uniqueName('skip-delete')));
    await slow.client.deleteDeployment(d.id);
    const wait = waitForRevision({ client: slow.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
    await expect(wait).rejects.toMatchObject({
      reason: 'failed',
      lastStatus: 'SKIPPED',
      message: `revision ${d.latest_revision_id} of deployment ${d.id} was SKIPPED, and no newer revision replaces it (the deployment is AWAITING_DELETE)`,
    });
  });

  it('follows the newer revision of the same source when its own was INTERRUPTED (a redeploy)', async () => {
    const timings = { ...FAST_TIMINGS, deployingMs: 1_000 };
    const lp = await TestPlatform.start(timings);
    try {
      const d = await lp.client.createDeployment(github(lp.uniqueName('interrupt')));
      expect(await until(async () => (await lp.client.getRevision(d.id, d.latest_revision_id!)).status === 'DEPLOYING')).toBe(true);
      const next = await lp.client.updateDeployment(d.id, { source_revision_config: { repo_ref: 'main' } });
      const revision = await waitForRevision({ client: lp.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
      expect(revision).toMatchObject({ id: next.latest_revision_id, status: 'DEPLOYED' });
    } finally {
      await lp.close();
    }
  });

  it('gives up at the time limit, naming the last status', async () => {
    const d = await slow.client.createDeployment(github(slow.uniqueName('late')));
    const revisionId = d.latest_revision_id!;
    expect(await until(async () => (await slow.client.getRevision(d.id, revisionId)).status === 'BUILDING')).toBe(true);
    const wait = waitForRevision({ client: slow.client, deploymentId: d.id, revisionId, timeoutMs: 300, signal: never, log });
    await expect(wait).rejects.toThrow(new WaitError('timed-out', `timed out after 300ms waiting for revision ${revisionId} to be DEPLOYED; last status BUILDING`, 'BUILDING'));
  });

  it('stops at once when terraform asks the provider to stop', async () => {
    const d = await slow.client.createDeployment(github(slow.uniqueName('stop')));
    const stop = new AbortController();
    const wait = waitForRevision({ client: slow.client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 600_000, signal: stop.signal, log });
    // Two polls logged: the first one's answer has surely reached the waiter, which now sleeps before the third.
    expect(await until(async () => polls(slow, d.latest_revision_id!) > 1)).toBe(true);
    // that the stop cuts the sleep short, not the next poll, is shown in wait-stop.test.ts
    stop.abort();
    await expect(wait).rejects.toMatchObject({ reason: 'stopped', message: expect.stringContaining('because terraform is stopping; last status') });
  });

  it('waits through server errors the transport gave up on', async () => {
    const { server, url, failures } = await flakyProxy(fast.platform.url, 3);
    const client = new ControlPlaneClient({ baseUrl: url, auth: { kind: 'api-key', apiKey: fast.platform.devApiKey }, retry: { maxRetries: 0 } });
    try {
      const d = await fast.client.createDeployment(github(fast.uniqueName('flaky')));
      const revision = await waitForRevision({ client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
      expect(revision.status).toBe('DEPLOYED');
      expect(failures()).toBe(3);
    } finally {
      await client.close();
      server.close();
    }
  });

  it('polls through an answer it cannot read among good ones, and reports them when several come in a row', async () => {
    for (const [count, outcome] of [
      [UNREADABLE_POLLS_MAX - 1, 'deployed'],
      [UNREADABLE_POLLS_MAX, 'reported'],
    ] as const) {
      const { server, url, failures } = await flakyProxy(fast.platform.url, count, true);
      const client = new ControlPlaneClient({ baseUrl: url, auth: { kind: 'api-key', apiKey: fast.platform.devApiKey }, retry: { maxRetries: 0 } });
      try {
        const d = await fast.client.createDeployment(github(fast.uniqueName('garbled')));
        const wait = waitForRevision({ client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 10_000, signal: never, log });
        if (outcome === 'deployed') await expect(wait).resolves.toMatchObject({ status: 'DEPLOYED' });
        else await expect(wait).rejects.toMatchObject({ name: 'ResponseParseError', message: expect.stringContaining('not valid JSON') });
        expect(failures()).toBe(count);
      } finally {
        await client.close();
        server.close();
      }
    }
  });

  it("gives each poll the provider's request timeout: a poll that gets no answer is given up and polled again", async () => {
    const proxy = await startFaultProxy(fast.platform.url);
    // request_timeout = 500 ms
    const client = new ControlPlaneClient({ baseUrl: proxy.endpoint, auth: { kind: 'api-key', apiKey: fast.platform.devApiKey }, timeoutMs: 500, retry: { maxRetries: 0 } });
    try {
      const d = await fast.client.createDeployment(github(fast.uniqueName('hung-poll')));
      // the first poll of the revision gets no answer; the later ones pass
      proxy.setMode('hold-requests', `/revisions/${d.latest_revision_id}`, 'GET');
      const waiting = waitForRevision({ client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 60_000, signal: never, log });
      await until(async () => proxy.held === 1);
      proxy.setMode('pass');
      const revision = await waiting;
      expect(revision.status).toBe('DEPLOYED');
      // DEPLOYED was seen while the first poll still waited for its answer
      expect(proxy.held).toBe(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('waits until a deleted deployment is gone, or says it is still being deleted', async () => {
    const gone = await fast.client.createDeployment(github(fast.uniqueName('gone')));
    await fast.client.deleteDeployment(gone.id);
    await waitForDeletion({ client: fast.client, deploymentId: gone.id, timeoutMs: 10_000, signal: never, log });
    await expect(fast.client.getDeployment(gone.id)).rejects.toMatchObject({ status: 404 });

    const lingering = await slow.client.createDeployment(github(slow.uniqueName('lingering')));
    await slow.client.deleteDeployment(lingering.id);
    const wait = waitForDeletion({ client: slow.client, deploymentId: lingering.id, timeoutMs: 300, signal: never, log });
    await expect(wait).rejects.toMatchObject({
      reason: 'timed-out',
      message: `timed out after 300ms waiting for deployment ${lingering.id} to be deleted; last status AWAITING_DELETE`,
    });
  });
});

/** A loopback proxy that answers the first `count` revision GETs with 503, then forwards everything. */
/** A proxy whose first `count` revision polls get a 503 (or, with `garbled`, a 200 page that is no JSON). */
async function flakyProxy(target: string, count: number, garbled = false): Promise<{ server: Server; url: string; failures: () => number }> {
  let failed = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.includes('/revisions/') && failed < count) {
      failed++;
      if (garbled) res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to continue</body></html>');
      else res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"try again"}');
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection')) as Record<string, string>;
    void fetch(`${target}${req.url}`, { method: req.method, headers }).then(async (upstream) => {
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, failures: () => failed };
}
