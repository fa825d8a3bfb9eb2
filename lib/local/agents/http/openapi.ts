/** The OpenAPI document each deployment serves at `/docs`, with component schemas derived from the zod schemas. */
import { z } from 'zod';
import * as schemas from '../../../api/schemas/agent-server';
import { deploymentPath } from './env';

type Operation = readonly [method: string, path: string, summary: string, request?: string, response?: string];

const OPERATIONS: readonly Operation[] = [
  ['get', '/ok', 'Health check', undefined, 'Health'],
  ['get', '/docs', 'This OpenAPI document'],
  ['post', '/assistants', 'Create an assistant of a served graph', 'AssistantCreate', 'Assistant'],
  ['post', '/assistants/search', 'Search assistants by metadata and graph', 'AssistantSearch'],
  ['get', '/assistants/{assistant_id}', 'Get an assistant (the id may be a graph id)', undefined, 'Assistant'],
  ['patch', '/assistants/{assistant_id}', 'Update an assistant', 'AssistantUpdate', 'Assistant'],
  ['delete', '/assistants/{assistant_id}', 'Delete an assistant'],
  ['post', '/threads', 'Create a thread', 'ThreadCreate', 'Thread'],
  ['get', '/threads/{thread_id}', 'Get a thread', undefined, 'Thread'],
  ['delete', '/threads/{thread_id}', 'Delete a thread with its runs'],
  ['get', '/threads/{thread_id}/state', 'Get the thread state', undefined, 'ThreadState'],
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
  ['post', '/threads/{thread_id}/runs/{run_id}/cancel', 'Cancel a run (query action=interrupt|rollback, wait)'],
  ['post', '/runs/stream', 'Stateless streaming run: nothing is stored', 'RunCreate'],
  ['post', '/runs/crons', 'Create a stateless cron', 'CronCreate', 'Cron'],
  ['post', '/threads/{thread_id}/runs/crons', 'Create a cron on a thread', 'CronCreate', 'Cron'],
  ['post', '/runs/crons/search', 'Search crons', 'CronSearch'],
  ['delete', '/runs/crons/{cron_id}', 'Delete a cron'],
];

const COMPONENTS = [
  'Assistant',
  'AssistantCreate',
  'AssistantUpdate',
  'AssistantSearch',
  'Thread',
  'ThreadCreate',
  'ThreadState',
  'Run',
  'RunCreate',
  'Cron',
  'CronCreate',
  'CronSearch',
  'Health',
  'JoinResult',
  'RunMetadataChunk',
  'StreamErrorChunk',
] as const;

let componentSchemas: Record<string, unknown> | undefined;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The document for one deployment (its server URL is the deployment's path). */
export function agentServerOpenApi(deploymentId: string): Record<string, unknown> {
  componentSchemas ??= Object.fromEntries(
    COMPONENTS.map((name) => [name, z.toJSONSchema(schemas[name] as z.ZodType, { unrepresentable: 'any' })]),
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, path, summary, request, response] of OPERATIONS) {
    const streams = path.endsWith('/stream');
    paths[path] ??= {};
    paths[path][method] = {
      summary,
      ...(request
        ? { requestBody: { required: true, content: { 'application/json': { schema: ref(request) } } } }
        : {}),
      responses: {
        '200': streams
          ? {
              description: 'Server-Sent Events: metadata first, then one event per chunk',
              content: { 'text/event-stream': {} },
            }
          : { description: 'OK', content: { 'application/json': { schema: response ? ref(response) : {} } } },
        '401': { description: 'Missing or unknown API key' },
        '403': { description: 'API key of another organization' },
        '404': { description: 'Not found' },
        '409': { description: 'Conflict (for example multitask_strategy reject on a busy thread)' },
        '422': { description: 'Validation error' },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent server',
      version: '0.1.0',
      description: 'Assistants, threads, runs and crons of one deployment.',
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
