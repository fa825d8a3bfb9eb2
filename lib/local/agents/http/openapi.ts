/** The OpenAPI document each deployment serves at `/docs`, with component schemas derived from the zod schemas. */
import { z } from 'zod';
import * as agentServerSchemas from '../../../api/schemas/agent-server';
import * as cronSchemas from '../../../api/schemas/agent-server-crons';
import * as storeSchemas from '../../../api/schemas/agent-server-store';
import * as threadSchemas from '../../../api/schemas/agent-server-threads';
import { LOCAL_AGENT_SERVER_VERSION, deploymentPath } from './env';

const schemas = { ...agentServerSchemas, ...cronSchemas, ...storeSchemas, ...threadSchemas };

type Operation = readonly [method: string, path: string, summary: string, request?: string, response?: string];

/** Query parameters, by operation (`<method> <path>`). */
const QUERY_PARAMETERS: Readonly<Record<string, readonly { name: string; schema: Record<string, unknown>; description: string }[]>> = {
  'delete /assistants/{assistant_id}': [
    { name: 'delete_threads', schema: { type: 'boolean', default: false }, description: 'Delete the threads the assistant ran on too' },
  ],
  'get /assistants/{assistant_id}/graph': [
    { name: 'xray', schema: { anyOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0 }], default: false }, description: 'Draw subgraphs inside their node (how many levels)' },
  ],
  'get /assistants/{assistant_id}/subgraphs': [
    { name: 'recurse', schema: { type: 'boolean', default: false }, description: 'Subgraphs of subgraphs too' },
  ],
  'get /assistants/{assistant_id}/subgraphs/{namespace}': [
    { name: 'recurse', schema: { type: 'boolean', default: false }, description: 'Subgraphs of subgraphs too' },
  ],
  'get /threads/{thread_id}/runs': [
    { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 10 }, description: 'Runs per page' },
    {
      name: 'offset',
      schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
      description: 'Runs to skip',
    },
    { name: 'select', schema: { type: 'array', items: { type: 'string' } }, description: 'Fields to answer of each run (repeated); all when left out' },
  ],
  'get /threads/{thread_id}/runs/{run_id}/stream': [
    {
      name: 'stream_mode',
      schema: { type: 'array', items: { enum: [...schemas.STREAM_MODES] } },
      description: 'Modes to stream (repeated, or comma-separated); the run\'s own when left out',
    },
    { name: 'stream_subgraphs', schema: { type: 'boolean' }, description: "Stream the subgraphs' chunks too; the run's own setting when left out" },
  ],
  'post /runs/cancel': [
    { name: 'action', schema: { enum: ['interrupt', 'rollback'], default: 'interrupt' }, description: 'Stop the runs, or stop and delete them' },
  ],
  'get /store/items': [
    { name: 'namespace', schema: { type: 'string' }, description: "The item's namespace, its labels joined by '.'" },
    { name: 'key', schema: { type: 'string' }, description: "The item's key (required)" },
    { name: 'refresh_ttl', schema: { type: 'boolean', default: true }, description: "Restart the item's time to live" },
  ],
  'post /threads/{thread_id}/runs/{run_id}/cancel': [
    { name: 'action', schema: { enum: ['interrupt', 'rollback'], default: 'interrupt' }, description: 'Stop the run, or stop and delete it' },
    { name: 'wait', schema: { type: 'boolean', default: false }, description: 'Answer once the run has ended' },
  ],
};

/** The success status of an operation, when not 200. */
const SUCCESS_STATUS: Readonly<Record<string, string>> = {
  delete: '204',
  'post /threads/{thread_id}/runs/{run_id}/cancel': '202',
  'post /runs/cancel': '204',
  'put /store/items': '204',
  'patch /threads/{thread_id}/state': '204',
};

const OPERATIONS: readonly Operation[] = [
  ['get', '/ok', 'Health check', undefined, 'Health'],
  ['get', '/docs', 'This OpenAPI document'],
  ['get', '/info', 'The server\'s version and optional features', undefined, 'ServerInfo'],
  ['post', '/assistants', 'Create an assistant of a served graph', 'AssistantCreate', 'Assistant'],
  ['post', '/assistants/search', 'Search assistants by metadata and graph', 'AssistantSearch'],
  ['get', '/assistants/{assistant_id}', 'Get an assistant (the id may be a graph id)', undefined, 'Assistant'],
  ['patch', '/assistants/{assistant_id}', 'Update an assistant', 'AssistantUpdate', 'Assistant'],
  ['delete', '/assistants/{assistant_id}', 'Delete an assistant (with the threads it ran on, when delete_threads)'],
  ['post', '/assistants/count', 'Count assistants by metadata, graph and name', 'AssistantCount'],
  ['post', '/assistants/{assistant_id}/versions', 'The versions of an assistant, newest first', 'AssistantVersionsRequest'],
  ['post', '/assistants/{assistant_id}/latest', 'Make a version of an assistant its current one', 'AssistantLatest', 'Assistant'],
  ['get', '/assistants/{assistant_id}/graph', "The drawing of the assistant's graph (nodes and edges)"],
  ['get', '/assistants/{assistant_id}/schemas', "The JSON Schemas of the assistant's graph"],
  ['get', '/assistants/{assistant_id}/subgraphs', "The subgraphs of the assistant's graph, by namespace"],
  ['get', '/assistants/{assistant_id}/subgraphs/{namespace}', "One subgraph of the assistant's graph"],
  ['post', '/threads', 'Create a thread, with the state of its supersteps', 'ThreadCreateWithState', 'Thread'],
  ['post', '/threads/search', 'Search threads by metadata, values, status and ids', 'ThreadSearch'],
  ['post', '/threads/count', 'Count the threads a search with these filters finds', 'ThreadCount'],
  ['post', '/threads/prune', 'Delete threads, or keep each with its newest checkpoint only', 'ThreadPrune', 'ThreadPruneResponse'],
  ['get', '/threads/{thread_id}', 'Get a thread', undefined, 'Thread'],
  ['patch', '/threads/{thread_id}', 'Merge metadata into a thread (Prefer: return=minimal answers 204)', 'ThreadUpdate', 'Thread'],
  ['delete', '/threads/{thread_id}', 'Delete a thread with its runs'],
  ['post', '/threads/{thread_id}/copy', 'Copy a thread with its checkpoints', undefined, 'Thread'],
  ['get', '/threads/{thread_id}/state', 'Get the thread state', undefined, 'ThreadState'],
  ['post', '/threads/{thread_id}/state', 'Write a state as a node would', 'ThreadStateUpdate', 'ThreadStateUpdateResponse'],
  ['patch', '/threads/{thread_id}/state', 'Merge metadata into the newest checkpoint\'s', 'ThreadStatePatch'],
  ['get', '/threads/{thread_id}/state/{checkpoint_id}', 'The thread state at a checkpoint', undefined, 'ThreadState'],
  ['post', '/threads/{thread_id}/state/checkpoint', 'The thread state at a checkpoint', 'ThreadStateCheckpointRequest', 'ThreadState'],
  ['post', '/threads/{thread_id}/history', 'The states of the thread\'s checkpoints, newest first', 'ThreadHistoryRequest'],
  ['post', '/threads/{thread_id}/runs', 'Create a background run (multitask_strategy applies)', 'RunCreate', 'Run'],
  ['get', '/threads/{thread_id}/runs', 'List the runs of a thread, newest first'],
  ['get', '/threads/{thread_id}/runs/{run_id}', 'Get a run', undefined, 'Run'],
  ['post', '/threads/{thread_id}/runs/stream', 'Create a run and stream its output (text/event-stream)', 'RunCreate'],
  ['get', '/threads/{thread_id}/runs/{run_id}/stream', 'Join the stream of a run (no replay)'],
  [
    'get',
    '/threads/{thread_id}/runs/{run_id}/join',
    'Wait for a run and return the thread values',
    undefined,
    'JoinResult',
  ],
  ['post', '/threads/{thread_id}/runs/wait', 'Create a run and wait for it: the thread values', 'RunCreate', 'JoinResult'],
  ['post', '/threads/{thread_id}/runs/{run_id}/cancel', 'Cancel a run (query action=interrupt|rollback, wait); a run that has ended is left as it is'],
  ['post', '/runs', 'Stateless background run: nothing is stored', 'RunCreate', 'Run'],
  ['post', '/runs/stream', 'Stateless streaming run: nothing is stored', 'RunCreate'],
  ['post', '/runs/wait', 'Stateless run, waited for: its last values', 'RunCreate', 'JoinResult'],
  ['post', '/runs/batch', 'Stateless background runs, one per body of the list', 'RunBatch'],
  ['post', '/runs/cancel', 'Cancel the runs named on a thread, or every run in a status (query action)', 'RunCancelMany'],
  ['delete', '/threads/{thread_id}/runs/{run_id}', 'Delete a run that has ended (409 while it runs)'],
  ['post', '/runs/crons', 'Create a stateless cron', 'CronCreate', 'Cron'],
  ['post', '/threads/{thread_id}/runs/crons', 'Create a cron on a thread', 'CronCreate', 'Cron'],
  ['post', '/runs/crons/search', 'Search crons', 'CronSearch'],
  ['post', '/runs/crons/count', 'Count crons', 'CronCount'],
  ['patch', '/runs/crons/{cron_id}', 'Update a cron: the fields given; metadata is merged', 'CronUpdate', 'Cron'],
  ['delete', '/runs/crons/{cron_id}', 'Delete a cron'],
  ['put', '/store/items', 'Put an item (204)', 'StorePutItem'],
  ['get', '/store/items', 'Get an item (null when there is none)', undefined, 'StoreItem'],
  ['delete', '/store/items', 'Delete an item', 'StoreDeleteItem'],
  ['post', '/store/items/search', 'Search items by namespace prefix and value filters', 'StoreSearchItems', 'StoreSearchItemsResponse'],
  ['post', '/store/namespaces', 'List namespaces by prefix, suffix and depth', 'StoreListNamespaces', 'StoreListNamespacesResponse'],
];

const COMPONENTS = [
  'Assistant',
  'AssistantCreate',
  'AssistantUpdate',
  'AssistantSearch',
  'AssistantCount',
  'AssistantVersionsRequest',
  'AssistantLatest',
  'Thread',
  'ThreadCreate',
  'ThreadSearch',
  'ThreadState',
  'ThreadHistoryRequest',
  'Run',
  'RunCreate',
  'RunBatch',
  'RunCancelMany',
  'Cron',
  'CronCreate',
  'CronUpdate',
  'CronSearch',
  'CronCount',
  'Health',
  'JoinResult',
  'RunMetadataChunk',
  'StreamErrorChunk',
  'ThreadCreateWithState',
  'ThreadUpdate',
  'ThreadCount',
  'ThreadPrune',
  'ThreadPruneResponse',
  'ThreadStateUpdate',
  'ThreadStateUpdateResponse',
  'ThreadStatePatch',
  'ThreadStateCheckpointRequest',
  'StorePutItem',
  'StoreDeleteItem',
  'StoreSearchItems',
  'StoreListNamespaces',
  'StoreItem',
  'StoreSearchItemsResponse',
  'StoreListNamespacesResponse',
  'ServerInfo',
] as const;

/** The components that are request bodies: described as the routes read them (unknown fields are accepted). */
const REQUEST_COMPONENTS: ReadonlySet<string> = new Set([
  'AssistantCreate',
  'AssistantUpdate',
  'AssistantSearch',
  'AssistantCount',
  'AssistantVersionsRequest',
  'AssistantLatest',
  'ThreadCreate',
  'ThreadSearch',
  'ThreadHistoryRequest',
  'RunCreate',
  'RunBatch',
  'RunCancelMany',
  'CronCreate',
  'CronUpdate',
  'CronSearch',
  'ThreadCreateWithState',
  'ThreadUpdate',
  'ThreadCount',
  'ThreadPrune',
  'ThreadStateUpdate',
  'ThreadStatePatch',
  'ThreadStateCheckpointRequest',
  'StorePutItem',
  'StoreDeleteItem',
  'StoreSearchItems',
  'StoreListNamespaces',
  'CronCount',
]);

/**
 * The components as this server answers them: an assistant always with the deployment that serves it, and runs and
 * threads in this server's own statuses only (the shared schemas read the statuses other servers added, too).
 */
const SERVED: Partial<Record<(typeof COMPONENTS)[number], z.ZodType>> = {
  Assistant: schemas.Assistant.required({ deployment_id: true }),
  Run: schemas.Run.extend({ status: schemas.RunStatus }),
  Thread: schemas.Thread.extend({ status: schemas.ThreadStatus }).required({ state_updated_at: true, interrupts: true }),
};


/**
 * The JSON Schema of one component. Request bodies are described as input (fields with defaults optional); neither
 * kind is closed with `additionalProperties: false`: the routes accept unknown fields, as the real platform does,
 * and responses may carry fields the schema does not list yet, which clients are to ignore.
 */
function componentSchema(name: (typeof COMPONENTS)[number]): unknown {
  const schema = SERVED[name] ?? (schemas[name] as z.ZodType);
  return z.toJSONSchema(schema, {
    io: REQUEST_COMPONENTS.has(name) ? 'input' : 'output',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  });
}

let componentSchemas: Record<string, unknown> | undefined;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The document for one deployment (its server URL is the deployment's path). */
export function agentServerOpenApi(deploymentId: string): Record<string, unknown> {
  componentSchemas ??= Object.fromEntries(COMPONENTS.map((name) => [name, componentSchema(name)]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, path, summary, request, response] of OPERATIONS) {
    const streams = path.endsWith('/stream');
    const operation = `${method} ${path}`;
    const success = SUCCESS_STATUS[operation] ?? SUCCESS_STATUS[method] ?? '200';
    const parameters = [
      ...[...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        // an assistant is named by its id or by a served graph's id (its default assistant)
        schema: name === 'assistant_id' || name === 'namespace' ? { type: 'string' } : { type: 'string', format: 'uuid' },
      })),
      ...(QUERY_PARAMETERS[operation] ?? []).map(({ name, schema, description }) => ({ name, in: 'query', required: false, schema, description })),
    ];
    paths[path] ??= {};
    paths[path][method] = {
      summary,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(request
        ? { requestBody: { required: true, content: { 'application/json': { schema: ref(request) } } } }
        : {}),
      responses: {
        [success]: streams
          ? {
              description: 'Server-Sent Events: metadata first, then one event per chunk',
              content: { 'text/event-stream': {} },
            }
          : success !== '200'
            ? { description: success === '204' ? 'Deleted' : 'Accepted' }
            : { description: 'OK', content: { 'application/json': { schema: response ? ref(response) : {} } } },
        '401': { description: 'Missing or unknown API key' },
        '403': { description: 'API key of another organization' },
        '404': { description: 'Not found' },
        '409': {
          description: 'Conflict (for example multitask_strategy reject on a busy thread, or a deployment whose latest revision failed)',
        },
        '422': { description: 'Validation error' },
        '503': {
          description:
            'The deployment has no deployed revision yet (Retry-After says when to try again), or the platform is stopping ' +
            '(try again once it has started)',
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent server',
      version: LOCAL_AGENT_SERVER_VERSION,
      description: 'Assistants, threads, runs, crons and the Store of one deployment.',
    },
    servers: [{ url: deploymentPath(deploymentId) }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: componentSchemas,
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
    },
  };
}
