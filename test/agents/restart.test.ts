/**
 * A run cut off by a stop of the platform is not lost: on the next start it runs again as attempt 2, from the
 * thread's state before it (its partial checkpoints are dropped, its input is not applied twice), unless the process
 * died during it too many times; its streams and joins are told that it has not ended.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentServerClient } from '../../lib/api/agent-server';
import { openDatabase } from '../../lib/local/db';
import { MAX_RUN_CRASHES } from '../../lib/local/agents/runtime/run-manager';
import { startAgentTestPlatform, type AgentTestPlatform } from './support/platform';
import { waitFor } from './support/wait';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-restart-'));
const dirs = [dataDir];
const started: AgentTestPlatform[] = [];

afterAll(async () => {
  for (const platform of started) await platform.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A platform on `dir` with a deployment and a run on a thread that is running (300 tokens, `delayMs` apart). */
async function runningRun(dir: string, name: string, delayMs: number) {
  const platform = await startAgentTestPlatform({ dataDir: dir });
  started.push(platform);
  const deployment = await platform.deploy(name);
  const client = platform.client(deployment);
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, {
    assistant_id: 'chat',
    input: { messages: [{ role: 'user', content: name }] },
    config: { configurable: { reply_tokens: 300, token_delay_ms: delayMs } },
  });
  await waitFor(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === 'running');
  return { platform, deployment, thread, run };
}

it('resumes a run that was running when the platform stopped', async () => {
  const { platform: first, deployment, thread, run } = await runningRun(dataDir, 'restartable', 1);
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

it('puts a run a stop cut off back in the queue, and fails a run the process died during too many times', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-attempts-'));
  dirs.push(dataDir);
  const { platform: first, deployment, thread, run } = await runningRun(dataDir, 'crashing', 5);
  await first.close();
  const db = openDatabase(dataDir);
  // a stop puts the run back in the queue itself: any number of restarts is no crash
  expect(db.prepare('SELECT status, attempt, crashes FROM agent_runs WHERE run_id = ?').get(run.run_id)).toEqual({ status: 'pending', attempt: 2, crashes: 0 });
  // as if the process had died during it at each of its starts but one (a run that kills the process each time)
  db.prepare(`UPDATE agent_runs SET status = 'running', crashes = ? WHERE run_id = ?`).run(MAX_RUN_CRASHES - 1, run.run_id);
  db.close();

  const next = await startAgentTestPlatform({ dataDir });
  started.push(next);
  const after = next.client({ ...deployment, url: `${next.url}/deployments/${deployment.id}` });
  expect(await after.runs.get(thread.thread_id, run.run_id)).toMatchObject({ status: 'error' });
  expect((await after.threads.get(thread.thread_id)).status).toBe('error');
  const error = next.db.prepare('SELECT error FROM agent_runs WHERE run_id = ?').pluck().get(run.run_id) as string;
  expect(JSON.parse(error)).toEqual({
    error: 'RunInterrupted',
    message: `The platform stopped unexpectedly while this run was running, ${MAX_RUN_CRASHES} times: it is not started again`,
  });
});

it('ends the streams of runs cut by a stop, running or queued, with an error that says so, not as finished runs end', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-shutdown-'));
  dirs.push(dataDir);
  const platform = await startAgentTestPlatform({ dataDir });
  started.push(platform);
  const deployment = await platform.deploy('stopping');
  // a client of its own, which the platform's close does not close first
  const client = new AgentServerClient({ baseUrl: deployment.url as string, auth: { kind: 'api-key', apiKey: platform.apiKey }, retry: { maxRetries: 0 } });
  const thread = await client.threads.create();
  const body = { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'long' }] }, config: { configurable: { reply_tokens: 300, token_delay_ms: 5 } } };
  const read = async (stream: AsyncGenerator<unknown>): Promise<unknown> => {
    try {
      for await (const chunk of stream) void chunk;
      return 'ended';
    } catch (error) {
      return error;
    }
  };
  const stateless = read(client.runs.stream(null, { ...body, stream_mode: 'messages-tuple' }));
  const onThread = read(client.runs.stream(thread.thread_id, { ...body, stream_mode: 'messages-tuple' }));
  await waitFor(async () => (await client.runs.list(thread.thread_id)).some((run) => run.status === 'running'));
  const queued = read(client.runs.stream(thread.thread_id, { ...body, stream_mode: 'messages-tuple' }));
  await waitFor(async () => (await client.runs.list(thread.thread_id)).length === 2);
  await platform.close();
  expect(await stateless).toMatchObject({
    name: 'AgentRunError',
    errorType: 'PlatformShutdown',
    serverMessage: 'The platform stopped during the run: a run without a thread is not run again',
  });
  expect(await onThread).toMatchObject({
    errorType: 'PlatformShutdown',
    serverMessage: 'The platform stopped during the run: it runs again when the platform starts (join it then)',
  });
  expect(await queued).toMatchObject({
    errorType: 'PlatformShutdown',
    serverMessage: 'The platform stopped while the run was queued: it runs when the platform starts (join it then)',
  });
  await client.close();
});

it('answers a join cut off by a stop that the run has not ended, rather than with values it has not finished', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-join-'));
  dirs.push(dataDir);
  const { platform, deployment, thread, run } = await runningRun(dataDir, 'joined', 5);
  const client = new AgentServerClient({ baseUrl: deployment.url as string, auth: { kind: 'api-key', apiKey: platform.apiKey }, retry: { maxRetries: 0 } });
  const queued = await client.runs.create(thread.thread_id, { assistant_id: 'chat', input: { messages: [{ role: 'user', content: 'next' }] } });
  const joins = [run, queued].map((r) => client.runs.join(thread.thread_id, r.run_id).catch((error: unknown) => error));
  // the joins reach the platform and wait (the run has 300 tokens 5 ms apart to go)
  await platform.waiting('run-end', run.run_id);
  await platform.waiting('run-end', queued.run_id);
  await platform.close();
  for (const answer of await Promise.all(joins)) {
    expect(answer).toMatchObject({ status: 503, message: expect.stringContaining('The platform stopped before the run ended: join it again once it has started') });
  }
  await client.close();
});
