/**
 * Statuses the provider does not know, as a newer platform may answer them (through the reshaping proxy, over real
 * HTTP): a revision in one is not final, so the wait goes on and, when its time runs out, names the status it last
 * saw. (A deployment in one is not being deleted: see reshaped-answers.test.ts, whose plans stay empty.)
 */
import { ControlPlaneClient } from '../../lib/api/control-plane';
import { createLogger } from '../../lib/provider/log';
import { waitForRevision } from '../../lib/provider/resources/deployment/wait';
import { FAST_TIMINGS, TestPlatform } from './support/deployment-platform';
import { UNKNOWN_VALUES, startReshapingProxy, type ReshapingProxy } from './support/reshaping-proxy';

const log = createLogger(undefined);
const never = new AbortController().signal;

let lp: TestPlatform;
let proxy: ReshapingProxy;
let client: ControlPlaneClient;

beforeAll(async () => {
  lp = await TestPlatform.start({ ...FAST_TIMINGS, buildingMs: 600_000 });
  proxy = await startReshapingProxy(lp.platform.url);
  client = new ControlPlaneClient({ baseUrl: proxy.url, auth: { kind: 'api-key', apiKey: lp.platform.devApiKey } });
});
afterAll(async () => {
  await client.close();
  await proxy.close();
  await lp.close();
});

test('a revision in a status the provider does not know is waited for, and the timeout names that status', async () => {
  const d = await client.createDeployment({
    name: lp.uniqueName('unknown-status'),
    source: 'github',
    source_config: { repo_url: 'https://github.com/acme/agent' },
  });
  const building = UNKNOWN_VALUES.revision!.BUILDING!;

  const wait = waitForRevision({ client, deploymentId: d.id, revisionId: d.latest_revision_id!, timeoutMs: 1500, signal: never, log });

  await expect(wait).rejects.toMatchObject({ reason: 'timed-out', lastStatus: building, message: expect.stringContaining(`last status ${building}`) });
});
