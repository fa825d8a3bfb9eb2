/**
 * Routes of threads: create, read, update, copy, search, count, prune and delete; a thread's state (now or at a
 * checkpoint), its history, a state written by hand and a checkpoint's metadata patched.
 */
import type { Context, Hono } from 'hono';
import { ThreadHistoryRequest, ThreadSearch } from '../../../api/schemas/agent-server';
import {
  THREAD_FIELDS,
  THREAD_STATE_FIELDS,
  ThreadCount,
  ThreadCreateWithState,
  ThreadPrune,
  ThreadStateCheckpointRequest,
  ThreadStatePatch,
  ThreadStateUpdate,
  ThreadUpdate,
  type ThreadStateUpdateResponse,
} from '../../../api/schemas/agent-server-threads';
import { HttpError } from '../../errors';
import { RequestValidator } from '../../validation';
import type { GraphValues } from '../engine/events';
import type { CompiledGraph } from '../engine/graph';
import { BUILT_IN_GRAPHS } from '../graphs/registry';
import type { StateUpdate } from '../store/thread-state';
import type { AgentServerDeps, AgentServerEnv } from './env';
import { checkSelection, selectFields } from './field-selection';
import { checkInputMessages } from './request-checks';
import { parseBody, pathUuid, readBody, uuidParam } from './request-readers';

type AgentContext = Context<AgentServerEnv>;

/** Registers the thread routes. */
export function registerThreadRoutes(app: Hono<AgentServerEnv>, deps: AgentServerDeps): void {
  const { threads, threadCheckpoints: checkpoints, runs, assistants, manager } = deps;
  const deploymentId = (c: AgentContext) => c.get('deployment').id;

  /** A served graph by id; 400 when the thread has none, or one the deployment does not serve. */
  const servedGraph = (c: AgentContext, graphId: unknown, threadId: string): CompiledGraph => {
    if (typeof graphId !== 'string') {
      throw new HttpError(400, `Thread ${threadId} has no graph ID: run it once, or create it with metadata.graph_id`);
    }
    const graph = c.get('deployment').graphIds.includes(graphId) ? BUILT_IN_GRAPHS.get(graphId) : undefined;
    if (!graph) throw new HttpError(400, `Graph ${graphId} of thread ${threadId} is not served by this deployment`);
    return graph;
  };
  /**
   * The graph whose reducers a state update goes through, as the LangGraph server finds it: the graph of the
   * thread's latest run, else the `graph_id` of its metadata (the SDK's `graphId` at create).
   */
  const graphOf = (c: AgentContext, threadId: string): CompiledGraph => {
    const deployment = c.get('deployment');
    const lastRun = runs.list(deployment.id, threadId, 1, 0)[0];
    const runGraph = lastRun && assistants.find(deployment.id, lastRun.assistant_id, deployment.graphIds)?.graph_id;
    return servedGraph(c, runGraph ?? threads.get(deployment.id, threadId).metadata.graph_id, threadId);
  };
  /** A 422 item at `loc` unless `asNode` is absent or a node of the graph. */
  const checkNode = (validator: RequestValidator, graph: CompiledGraph, asNode: string | undefined, loc: (string | number)[]) => {
    if (asNode === undefined || graph.nodeNames.includes(asNode)) return;
    validator.add(loc, 'value_error', `Node ${asNode} does not exist in graph ${graph.name} (its nodes: ${graph.nodeNames.join(', ')})`);
  };
  /** An update's values as the graph takes them: its messages read as a run's input (each given its id, here, once). */
  const checkValues = (validator: RequestValidator, values: GraphValues, asNode: string | undefined, loc: (string | number)[]): StateUpdate => {
    const messages = checkInputMessages(validator, values, loc);
    return { values: messages === undefined ? values : { ...values, messages }, asNode };
  };

  app.post('/threads', async (c) => {
    const validator = new RequestValidator();
    const body = validator.valid(await readBody(c, validator, ThreadCreateWithState));
    const { supersteps, ...create } = body;
    if (!supersteps?.length) return c.json(threads.create(deploymentId(c), create));
    const graph = servedGraph(c, create.metadata?.graph_id, create.thread_id ?? 'to create');
    const steps = supersteps.map((step, index) =>
      step.updates.map((update, at) => {
        const loc = ['body', 'supersteps', index, 'updates', at];
        checkNode(validator, graph, update.as_node, [...loc, 'as_node']);
        return checkValues(validator, update.values ?? {}, update.as_node, [...loc, 'values']);
      }),
    );
    validator.throwIfFailed();
    const apply = (state: GraphValues, update: GraphValues) => graph.applyUpdate(state, update);
    return c.json(checkpoints.createWithState(deploymentId(c), create, steps, apply));
  });
  app.post('/threads/search', async (c) => {
    const validator = new RequestValidator();
    const query = await readBody(c, validator, ThreadSearch);
    checkSelection(validator, query?.select, THREAD_FIELDS, ['body', 'select'], false);
    const found = threads.search(deploymentId(c), validator.valid(query));
    return c.json(found.map((thread) => selectFields(thread, query?.select)));
  });
  app.post('/threads/count', async (c) => c.json(threads.count(deploymentId(c), await parseBody(c, ThreadCount))));
  app.post('/threads/prune', async (c) => {
    const { thread_ids: threadIds, strategy } = await parseBody(c, ThreadPrune);
    let pruned = 0;
    for (const threadId of new Set(threadIds.map((id) => id.toLowerCase()))) {
      // a thread that is not (or no longer) there is nothing to prune, so that a prune may be sent again
      if (!threads.exists(deploymentId(c), threadId)) continue;
      if (strategy === 'delete') manager.deleteThread(deploymentId(c), threadId);
      else checkpoints.keepLatest(deploymentId(c), threadId);
      pruned += 1;
    }
    return c.json({ pruned_count: pruned });
  });
  app.get('/threads/:threadId', (c) => c.json(threads.get(deploymentId(c), uuidParam(c, 'threadId'))));
  app.patch('/threads/:threadId', async (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const body = validator.valid(await readBody(c, validator, ThreadUpdate));
    const thread = threads.update(deploymentId(c), threadId, body.metadata ?? {});
    // the SDK's returnMinimal asks for no body
    return c.req.header('Prefer') === 'return=minimal' ? c.body(null, 204) : c.json(thread);
  });
  app.delete('/threads/:threadId', (c) => {
    // runs still going are stopped first: they would write into a thread that no longer exists
    manager.deleteThread(deploymentId(c), uuidParam(c, 'threadId'));
    return c.body(null, 204);
  });
  app.post('/threads/:threadId/copy', (c) => c.json(checkpoints.copy(deploymentId(c), uuidParam(c, 'threadId'))));

  // the thread's state, now or at a checkpoint; `subgraphs` changes nothing (no task of a stored state is pending)
  const readState = (c: AgentContext, checkpointId: string | undefined) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const select = c.req.queries('select');
    checkSelection(validator, select, THREAD_STATE_FIELDS, ['query', 'select'], true);
    validator.boolQuery('subgraphs', c.req.query('subgraphs'));
    validator.throwIfFailed();
    const state = checkpointId === undefined ? threads.state(deploymentId(c), threadId) : checkpoints.stateAt(deploymentId(c), threadId, checkpointId);
    return c.json(selectFields(state, select));
  };
  app.get('/threads/:threadId/state', (c) => readState(c, undefined));
  app.get('/threads/:threadId/state/:checkpointId', (c) => readState(c, c.req.param('checkpointId')));
  app.post('/threads/:threadId/state/checkpoint', async (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const body = await readBody(c, validator, ThreadStateCheckpointRequest);
    checkSelection(validator, body?.select, THREAD_STATE_FIELDS, ['body', 'select'], true);
    const { checkpoint, select } = validator.valid(body);
    const id = checkpoint.checkpoint_id;
    const state = id ? checkpoints.stateAt(deploymentId(c), threadId, id) : threads.state(deploymentId(c), threadId);
    return c.json(selectFields(state, select));
  });
  app.post('/threads/:threadId/state', async (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const body = validator.valid(await readBody(c, validator, ThreadStateUpdate));
    threads.assertExists(deploymentId(c), threadId);
    // as on the LangGraph server: a run going on the thread would write over the update, or build on what it replaced
    if (runs.inflight(deploymentId(c), threadId).length > 0) {
      throw new HttpError(409, `Thread ${threadId} has runs pending or running: update its state once they have ended`);
    }
    const graph = graphOf(c, threadId);
    const asNode = body.as_node ?? undefined;
    checkNode(validator, graph, asNode, ['body', 'as_node']);
    const listed = Array.isArray(body.values);
    const values = body.values == null ? [] : Array.isArray(body.values) ? body.values : [body.values];
    const updates = values.map((update, index) => checkValues(validator, update, asNode, listed ? ['body', 'values', index] : ['body', 'values']));
    validator.throwIfFailed();
    const checkpointId = checkpoints.writeState(deploymentId(c), threadId, {
      checkpointId: body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined,
      updates,
      apply: (state, update) => graph.applyUpdate(state, update),
    });
    const checkpoint = { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId };
    const answer: ThreadStateUpdateResponse = { checkpoint, configurable: checkpoint, checkpoint_id: checkpointId };
    return c.json(answer);
  });
  app.patch('/threads/:threadId/state', async (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const { metadata } = validator.valid(await readBody(c, validator, ThreadStatePatch));
    checkpoints.patchMetadata(deploymentId(c), threadId, metadata);
    return c.body(null, 204);
  });
  // the states of its checkpoints, newest first (the SDK's getHistory; useStream loads it for every thread)
  app.post('/threads/:threadId/history', async (c) => {
    const validator = new RequestValidator();
    const threadId = pathUuid(validator, c, 'threadId');
    const body = await readBody(c, validator, ThreadHistoryRequest);
    checkSelection(validator, body?.select, THREAD_STATE_FIELDS, ['body', 'select'], true);
    const { limit, before, metadata, select } = validator.valid(body);
    const beforeId = typeof before === 'string' ? before : before?.configurable.checkpoint_id;
    const states = threads.history(deploymentId(c), threadId, { limit: limit ?? 10, beforeId, metadata: metadata ?? undefined });
    return c.json(states.map((state) => selectFields(state, select)));
  });
}
