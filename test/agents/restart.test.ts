/**
 * A run cut off by a stop of the platform is not lost: on the next start it runs again as attempt 2, from the
 * thread's state before it (its partial checkpoints are dropped, its input is not applied twice).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-restart-'));
const started: AgentTestPlatform[] = [];

afterAll(async () => {
  for (const platform of started) await platform.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('resumes a run that was running when the platform stopped', async () => {
  const first = await startAgentTestPlatform({ dataDir });
  started.push(first);
  const deployment = await first.deploy('restartable');
  const client = first.client(deployment);
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, {
    assistant_id: 'chat',
    input: { messages: [{ role: 'user', content: 'survive' }] },
    config: { configurable: { reply_tokens: 300, token_delay_ms: 1 } },
  });
  await waitFor(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === 'running');
  await first.close();

  const second = await startAgentTestPlatform({ dataDir });
  started.push(second);
  // The new process listens on another port: the deployment's address moves with it.
  const resumed = second.client({ ...deployment, url: `${second.url}/deployments/${deployment.id}` });
  const joined = resumed.runs.joinStream(thread.thread_id, run.run_id);
  const metadata = (await joined.next()).value;
  await joined.return(undefined);
  expect(metadata).toMatchObject({ mode: 'metadata', data: { run_id: run.run_id, attempt: 2 } });

  const values = await resumed.runs.join(thread.thread_id, run.run_id);
  expect((await resumed.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
  expect(values.messages?.map((message) => message.type)).toEqual(['human', 'ai']);
});
