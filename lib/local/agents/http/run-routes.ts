/**
 * Routes of runs: background and streaming runs on threads, stateless streaming runs, joining a run's stream
 * (no replay) or its end, and cancellation. Streams are Server-Sent Events whose first event is `metadata`
 * (`run_id`, `attempt`) and whose `Content-Location` names the run.
 */
import type { Context, Hono } from 'hono';
import { RUN_STATUSES, RunCreate, StreamMode, type Assistant, type Run } from '../../../api/schemas/agent-server';
import { HttpError } from '../../errors';
import { RequestValidator } from '../../validation';
import { queryParam } from '../../query-params';
import type { RunStream } from '../runtime/run-stream';
import { deploymentPath, type AgentServerDeps, type AgentServerEnv } from './env';
import { checkSelection, selectFields } from './field-selection';
import { checkInputMessages, checkRunConfig } from './request-checks';
import { pathUuid, readBody } from './request-readers';
import { SseChannel } from './sse-channel';

type AgentContext = Context<AgentServerEnv>;

/** The fields a run list may be narrowed to (`cancel_reason`, which the SDK may ask for, is one no local run has). */
const RUN_SELECT_FIELDS = [
  'run_id',
  'thread_id',
  'assistant_id',
  'created_at',
  'updated_at',
  'status',
  'metadata',
  'kwargs',
  'multitask_strategy',
  'cancel_reason',
] as const;

/** How one SSE response attaches to a run. */
interface StreamOptions {
  readonly runId: string;
  readonly attempt: number;
  readonly stream: RunStream | undefined;
  readonly modes: readonly StreamMode[];
  readonly subgraphs: boolean;
  /** Path of the run, sent as `Content-Location`. */
  readonly location: string;
  /** Called when the client disconnects before the run ended. */
  readonly onDisconnect?: () => void;
}

/** The SSE response of a run: `metadata` first, then the run's chunks as they come, closed when the run ends. */
function streamResponse(c: AgentContext, options: StreamOptions): Response {
  const channel = new SseChannel(new Set(options.modes), options.subgraphs);
  channel.send('metadata', JSON.stringify({ run_id: options.runId, attempt: options.attempt }));
  if (options.stream) {
    const detach = options.stream.subscribe(channel);
    channel.onDisconnect(() => {
      detach();
      options.onDisconnect?.();
    });
  } else {
    channel.close();
  }
  return c.body(channel.body, 200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Location': options.location,
  });
}

/**
 * What a wait for a stateless run answers once it has ended: its last `values` (a stateless run keeps no thread
 * to read them from), or its error.
 */
function statelessResult(stream: RunStream | undefined): Promise<unknown> {
  return new Promise((resolve) => {
    let values = '{}';
    let error: string | undefined;
    // the stream lets its subscribers go as the run ends: nothing to detach
    stream?.subscribe({
      modes: new Set<StreamMode>(['values']),
      subgraphs: false,
      send: (event, json) => {
        if (event === 'values') values = json;
        else if (event === 'error') error = json;
      },
      close: () => {
        resolve(error === undefined ? JSON.parse(values) : { __error__: JSON.parse(error) });
      },
    });
    if (!stream) resolve({});
  });
}

/**
 * Calls `stop` when the request's client goes away, at once if it has already; returns the function that forgets
 * it (the request's signal is aborted only when the connection closes before the response has gone out).
 */
function whenClientGone(c: AgentContext, stop: () => void): () => void {
  const signal = c.req.raw.signal;
  if (signal.aborted) {
    stop();
    return () => undefined;
  }
  signal.addEventListener('abort', stop, { once: true });
  return () => signal.removeEventListener('abort', stop);
}

/**
 * The modes of one `stream_mode` query value: comma-separated, or a JSON array (as the SDK's joinStream sends a list:
 * `stream_mode=["values","updates"]`).
 */
function modeParamValues(value: string): string[] {
  if (value.trimStart().startsWith('[')) {
    try {
      const list: unknown = JSON.parse(value);
      if (Array.isArray(list)) return list.map(String);
    } catch {
      // not JSON after all: read as a comma-separated list, whose bad items are named in the 422
    }
  }
  return value.split(',');
}

/** `stream_mode` of a request as a list; `values` when absent. */
function modesOf(streamMode: RunCreate['stream_mode'] | unknown): StreamMode[] {
  if (Array.isArray(streamMode)) return [...new Set(streamMode as StreamMode[])];
  return [typeof streamMode === 'string' ? (streamMode as StreamMode) : 'values'];
}

/**
 * Reads a run body into the request's validator: input messages are checked and given ids, so a retried run never
 * duplicates them, and the built-in model's settings are checked. Throws every problem of the request (its path
 * too) as one 422.
 */
async function readRunBody(c: AgentContext, validator: RequestValidator): Promise<RunCreate> {
  const body = await readBody(c, validator, RunCreate);
  const checked = body && checkRunBody(validator, body, ['body']);
  validator.throwIfFailed();
  return checked as RunCreate;
}

/**
 * A run body's input messages and model settings checked into `validator` (problems at `loc`), its messages given
 * ids; the body with them.
 */
export function checkRunBody(validator: RequestValidator, body: RunCreate, loc: (string | number)[]): RunCreate {
  const messages = checkInputMessages(validator, body.input, [...loc, 'input']);
  checkRunConfig(validator, body.config, [...loc, 'config']);
  return messages === undefined ? body : { ...body, input: { ...body.input, messages } };
}

/** The assistant a run names (by id, or a served graph's id), whose graph the deployment serves; 404 otherwise. */
export function runAssistant(c: AgentContext, assistants: AgentServerDeps['assistants'], assistantId: string): Assistant {
  const deployment = c.get('deployment');
  const assistant = assistants.resolve(deployment.id, assistantId, deployment.graphIds);
  if (!deployment.graphIds.includes(assistant.graph_id)) {
    throw new HttpError(404, `Graph ${assistant.graph_id} of assistant ${assistantId} is not served by this deployment`);
  }
  return assistant;
}

/** Registers the run routes. */
export function registerRunRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { assistants, threads, runs, manager, arrivals, onArrival } = deps;
  const assistantOf = (c: AgentContext, body: RunCreate): Assistant => runAssistant(c, assistants, body.assistant_id);
  const runPath = (c: AgentContext, threadId: string | null, runId: string) =>
    `${deploymentPath(c.get('deployment').id)}${threadId ? `/threads/${threadId}` : ''}/runs/${runId}`;
  /** The stream of a run created by this request, in the modes its body asks for. */
  const newRunStream = (run: Run, body: RunCreate) => ({
    runId: run.run_id,
    attempt: 1,
    stream: manager.liveStream(run.run_id),
    modes: modesOf(body.stream_mode),
    subgraphs: body.stream_subgraphs ?? false,
  });
  /** The thread and run ids of a run's path, their problems recorded in the request's validator. */
  const runIdsOf = (c: AgentContext, validator: RequestValidator) => {
    const threadId = pathUuid(validator, c, 'threadId');
    const runId = pathUuid(validator, c, 'runId');
    return { threadId, runId };
  };

  /**
   * Creates a run on the path's thread and answers with `respond` in the same turn (a stream attaches before the run
   * starts). Runs of a thread are decided and queued in the order their requests arrived (see ArrivalLine): the
   * request takes its place before its body is read.
   */
  const createOnThread = async (
    c: AgentContext,
    respond: (run: Run, body: RunCreate, threadId: string) => Response | Promise<Response>,
  ): Promise<Response> => {
    const deployment = c.get('deployment');
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const place = validator.failed ? undefined : arrivals.arrive(`${deployment.id}/${threadId}`);
    if (place) onArrival?.(deployment.id, threadId);
    try {
      const body = await readRunBody(c, validator);
      await place?.turn();
      return respond(manager.createThreadRun(deployment, threadId, assistantOf(c, body), body), body, threadId);
    } finally {
      place?.leave();
    }
  };

  app.post('/threads/:threadId/runs', (c) => createOnThread(c, (run) => c.json(run)));

  app.get('/threads/:threadId/runs', (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const limit = validator.intQuery('limit', queryParam(c, 'limit'), { min: 1, max: 1000, fallback: 10 });
    const offset = validator.intQuery('offset', queryParam(c, 'offset'), {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
    });
    const statuses = validator.enumListQuery('status', queryParam(c, 'status'), RUN_STATUSES);
    // the fields to answer, repeated as the SDK sends a list (`select=run_id&select=status`)
    const select = c.req.queries('select');
    checkSelection(validator, select, RUN_SELECT_FIELDS, ['query', 'select'], false);
    validator.throwIfFailed();
    threads.assertExists(c.get('deployment').id, threadId);
    const page = runs.list(c.get('deployment').id, threadId, limit, offset, statuses?.length ? statuses : undefined);
    return c.json(page.map((run) => selectFields(run, select)));
  });

  app.get('/threads/:threadId/runs/:runId', (c) => {
    const validator = new RequestValidator();
    const { threadId, runId } = runIdsOf(c, validator);
    validator.throwIfFailed();
    return c.json(runs.get(c.get('deployment').id, threadId, runId).run);
  });

  app.post('/threads/:threadId/runs/stream', (c) =>
    createOnThread(c, (run, body, threadId) =>
      streamResponse(c, {
        ...newRunStream(run, body),
        location: runPath(c, threadId, run.run_id),
        onDisconnect: body.on_disconnect === 'cancel' ? () => manager.stopLive(run.run_id, 'interrupt') : undefined,
      }),
    ),
  );

  /**
   * Starts a stateless run from the request's body and answers with `respond` in the same turn: the run starts on
   * the next one, so whatever `respond` attaches to it sees it from its start.
   */
  const startStateless = async (
    c: AgentContext,
    respond: (run: Run, body: RunCreate) => Response | Promise<Response>,
  ): Promise<Response> => {
    const body = await readRunBody(c, new RequestValidator());
    return respond(manager.startStatelessRun(c.get('deployment'), assistantOf(c, body), body), body);
  };

  app.post('/runs/stream', (c) =>
    startStateless(c, (run, body) =>
      streamResponse(c, {
        ...newRunStream(run, body),
        location: runPath(c, null, run.run_id),
        // A stateless run has no other reader: by default it stops when its only stream goes away.
        onDisconnect: body.on_disconnect === 'continue' ? undefined : () => manager.stopLive(run.run_id, 'disconnect'),
      }),
    ),
  );

  // a stateless run created and waited for in one request (the SDK's runs.wait without a thread)
  app.post('/runs/wait', (c) =>
    startStateless(c, async (run, body) => {
      const result = statelessResult(manager.liveStream(run.run_id));
      // a client gone already stops the run as it starts
      if (body.on_disconnect !== 'continue') whenClientGone(c, () => manager.stopLive(run.run_id, 'disconnect'));
      return c.json(await result, 200, { 'Content-Location': runPath(c, null, run.run_id) });
    }),
  );

  // a stateless background run: nobody reads its output, it runs to its end (and is traced)
  app.post('/runs', (c) => startStateless(c, (run) => c.json(run)));

  app.get('/threads/:threadId/runs/:runId/stream', (c) => {
    // the whole request is checked before the run is looked up
    const validator = new RequestValidator();
    const { threadId, runId } = runIdsOf(c, validator);
    const asked = c.req.queries('stream_mode')?.flatMap(modeParamValues);
    const askedModes = asked?.map((mode) => validator.parse(StreamMode, mode, ['query', 'stream_mode']) as StreamMode);
    const askedSubgraphs = validator.boolQuery('stream_subgraphs', queryParam(c, 'stream_subgraphs'));
    const cancelOnDisconnect = validator.boolQuery('cancel_on_disconnect', queryParam(c, 'cancel_on_disconnect'));
    validator.throwIfFailed();
    const stored = runs.get(c.get('deployment').id, threadId, runId);
    return streamResponse(c, {
      runId: stored.run.run_id,
      attempt: stored.attempt,
      stream: manager.liveStream(stored.run.run_id),
      modes: askedModes ?? modesOf(stored.run.kwargs.stream_mode),
      subgraphs: askedSubgraphs ?? stored.run.kwargs.stream_subgraphs === true,
      location: runPath(c, threadId, stored.run.run_id),
      onDisconnect: cancelOnDisconnect ? () => manager.stopLive(stored.run.run_id, 'interrupt') : undefined,
    });
  });

  app.get('/threads/:threadId/runs/:runId/join', async (c) => {
    const deploymentId = c.get('deployment').id;
    const validator = new RequestValidator();
    const { threadId, runId } = runIdsOf(c, validator);
    const cancelOnDisconnect = validator.boolQuery('cancel_on_disconnect', queryParam(c, 'cancel_on_disconnect'));
    validator.throwIfFailed();
    runs.get(deploymentId, threadId, runId);
    const forget = cancelOnDisconnect ? whenClientGone(c, () => manager.stopLive(runId, 'interrupt')) : undefined;
    try {
      return c.json(await joinResult(deploymentId, threadId, runId));
    } finally {
      forget?.();
    }
  });
  // a run created and joined in one request (the SDK's runs.wait)
  app.post('/threads/:threadId/runs/wait', (c) =>
    createOnThread(c, async (run, _body, threadId) => {
      const result = await joinResult(c.get('deployment').id, threadId, run.run_id);
      return c.json(result, 200, { 'Content-Location': runPath(c, threadId, run.run_id) });
    }),
  );

  /** What a join of a run answers once it has ended: the thread's values, or the run's error. */
  const joinResult = async (deploymentId: string, threadId: string, runId: string): Promise<unknown> => {
    const removal = await manager.waitForEnd(runId);
    const ended = runs.find(runId);
    if (!ended && removal === 'delete') {
      throw new HttpError(404, `Thread ${threadId} was deleted, and its runs with it (run ${runId})`);
    }
    if (!ended) throw new HttpError(404, `Run ${runId} was rolled back`);
    // a run cut off by a stop of the platform (back in the queue) has not ended: its values are not its result
    if (ended.run.status === 'pending' || ended.run.status === 'running') {
      throw new HttpError(503, 'The platform stopped before the run ended: join it again once it has started');
    }
    const error = runs.errorOf(runId);
    return error ? { __error__: error } : (threads.get(deploymentId, threadId).values ?? {});
  };

  app.post('/threads/:threadId/runs/:runId/cancel', async (c) => {
    const validator = new RequestValidator();
    const { threadId, runId } = runIdsOf(c, validator);
    const action = queryParam(c, 'action') ?? 'interrupt';
    if (action !== 'interrupt' && action !== 'rollback')
      validator.add(['query', 'action'], 'enum', "Input should be 'interrupt' or 'rollback'");
    const wait = validator.boolQuery('wait', queryParam(c, 'wait')) ?? false;
    validator.throwIfFailed();
    manager.cancel(c.get('deployment').id, threadId, runId, action as 'interrupt' | 'rollback');
    if (wait) await manager.waitForEnd(runId);
    return c.body(null, 202);
  });
}
