/**
 * Typed client of an agent server (area C): assistants, threads, runs (background, streaming, joined), crons and
 * health. Streams are async generators of typed chunks parsed from Server-Sent Events; breaking out of the loop or
 * aborting the signal closes the connection. It speaks the protocol, not the local platform: point it at any
 * deployment URL.
 */
import { z } from 'zod';
import { AbortError, ApiError, ResponseParseError, type ApiErrorInit } from './errors';
import { HttpTransport, type TransportOptions } from './http';
import {
  AssistantAnswer,
  DebugChunk,
  EventsChunk,
  Health,
  JoinResult,
  MessageTupleChunk,
  Run,
  RunMetadataChunk,
  StreamErrorChunk,
  Thread,
  ThreadState,
  ThreadValues,
  UpdatesChunk,
  type AssistantCreate,
  type AssistantSearch,
  type AssistantUpdate,
  type RunCreate,
  type StreamMode,
  type ThreadCreate,
  type ThreadHistoryRequest,
  type ThreadSearch,
} from './schemas/agent-server';
import type { AssistantCreateOptions, CallOptions } from './agent-server-options';
import { cronCalls, type CronCalls } from './agent-server-crons';
import { readServerSentEvents } from './sse';

export type { AssistantCreateOptions, CallOptions } from './agent-server-options';

/** A chunk of a run's stream, typed by its mode. */
interface ChunkOf<M extends string, D> {
  /** The SSE event name as sent, e.g. `updates` or `updates|research_subgraph:<task id>`. */
  readonly event: string;
  /**
   * The stream mode (the event name without namespace; `messages` is the `messages-tuple` mode, `messages/metadata`,
   * `messages/partial` and `messages/complete` the `messages` mode).
   */
  readonly mode: M;
  /** Namespace of the (sub)graph that produced the chunk; empty for the root graph. */
  readonly namespace: readonly string[];
  /** The chunk's data. */
  readonly data: D;
}

/** Every chunk a stream yields; `[chunk.mode, chunk.data]` is the (mode, chunk) pair of a multi-mode stream. */
export type StreamChunk =
  | ChunkOf<'metadata', RunMetadataChunk>
  | ChunkOf<'values', ThreadValues>
  | ChunkOf<'updates', UpdatesChunk>
  | ChunkOf<'messages-tuple', MessageTupleChunk>
  | ChunkOf<'debug', DebugChunk>
  | ChunkOf<'custom', unknown>
  | ChunkOf<'events', EventsChunk>
  /** A checkpoint, as the `debug` mode's checkpoint payload: `config`, `parent_config`, `values`, `metadata`, `next`, `tasks`. */
  | ChunkOf<'checkpoints', Record<string, unknown>>
  /** A task that starts (`id`, `name`, `input`, `triggers`) or ends (`id`, `name`, `error`, `result`, `interrupts`). */
  | ChunkOf<'tasks', Record<string, unknown>>
  /** `messages/metadata`: message id to `{metadata}`; `messages/partial` and `messages/complete`: `[message]`. */
  | ChunkOf<'messages', Record<string, unknown> | readonly Record<string, unknown>[]>
  /** A tool call's `on_tool_start`, `on_tool_event`, `on_tool_end` or `on_tool_error`. */
  | ChunkOf<'tools', Record<string, unknown>>
  /** A subgraph that starts or ends: `event` (`started`, `completed`, `failed`, ...) and `namespace`. */
  | ChunkOf<'lifecycle', Record<string, unknown>>
  /** An event this client does not know, passed through with its raw JSON data. */
  | ChunkOf<'unknown', unknown>;

/** A run failed: the stream's `error` event, or a join of a failed run. */
export class AgentRunError extends ApiError {
  /** The error's type name as the server reported it (for example `FakeModelError`, `TimeoutError`). */
  readonly errorType: string;
  /** The server's message. */
  readonly serverMessage: string;

  constructor(error: StreamErrorChunk, init: ApiErrorInit) {
    super(`run failed: ${error.error}: ${error.message}`, init);
    this.errorType = init.redactor ? init.redactor.redact(error.error) : error.error;
    this.serverMessage = init.redactor ? init.redactor.redact(error.message) : error.message;
  }
}

/** Options of joining a run's stream. */
export interface JoinStreamOptions extends CallOptions {
  /** Modes to receive. @default the modes the run was created with */
  readonly streamMode?: StreamMode | readonly StreamMode[];
  /** Receive subgraph chunks. @default as the run was created */
  readonly streamSubgraphs?: boolean;
}

/** Options of cancelling a run. */
export interface CancelOptions extends CallOptions {
  /** `interrupt` keeps the run as `interrupted`; `rollback` deletes it and its effects. @default 'interrupt' */
  readonly action?: 'interrupt' | 'rollback';
  /** Return only once the run has stopped. @default false */
  readonly wait?: boolean;
}

/** Either the settings of a transport the client creates (and closes), or a shared transport (its owner closes it). */
export type AgentServerClientOptions = TransportOptions | { readonly transport: HttpTransport };

const MODE_OF_EVENT: Readonly<Record<string, StreamChunk['mode']>> = {
  metadata: 'metadata',
  values: 'values',
  updates: 'updates',
  messages: 'messages-tuple',
  debug: 'debug',
  custom: 'custom',
  events: 'events',
  checkpoints: 'checkpoints',
  tasks: 'tasks',
  'messages/metadata': 'messages',
  'messages/partial': 'messages',
  'messages/complete': 'messages',
  tools: 'tools',
  lifecycle: 'lifecycle',
};

const DATA_SCHEMAS: Partial<Record<StreamChunk['mode'], z.ZodType>> = {
  metadata: RunMetadataChunk,
  values: ThreadValues,
  updates: UpdatesChunk,
  'messages-tuple': MessageTupleChunk,
  debug: DebugChunk,
  events: EventsChunk,
};

const segment = (id: string): string => encodeURIComponent(id);

/** Client of one agent server (one deployment URL). */
export class AgentServerClient {
  /** The transport every call goes through. */
  readonly transport: HttpTransport;
  private readonly ownsTransport: boolean;

  /** Assistants: configured instances of a graph. */
  readonly assistants = {
    /** `POST /assistants`. */
    create: (body: AssistantCreate, o: AssistantCreateOptions = {}) =>
      this.transport.request({ method: 'POST', path: '/assistants', body, schema: AssistantAnswer, ...o }),
    /** `GET /assistants/{id}`; the id may be a graph id (its default assistant). */
    get: (assistantId: string, o: CallOptions = {}) =>
      this.transport.request({ method: 'GET', path: `/assistants/${segment(assistantId)}`, schema: AssistantAnswer, ...o }),
    /** `PATCH /assistants/{id}`: metadata is merged, other fields replaced; the version goes up. */
    update: (assistantId: string, body: AssistantUpdate, o: CallOptions = {}) =>
      this.transport.request({
        method: 'PATCH',
        path: `/assistants/${segment(assistantId)}`,
        body,
        schema: AssistantAnswer,
        ...o,
      }),
    /** `DELETE /assistants/{id}`. */
    delete: (assistantId: string, o: CallOptions = {}) =>
      this.transport.request<void>({ method: 'DELETE', path: `/assistants/${segment(assistantId)}`, ...o }),
    /** `POST /assistants/search`: assistants whose metadata contains every given pair. */
    search: (query: AssistantSearch = {}, o: CallOptions = {}) =>
      this.transport.request({
        method: 'POST',
        path: '/assistants/search',
        body: query,
        schema: z.array(AssistantAnswer),
        retry: true,
        ...o,
      }),
  };

  /** Threads: state persisted across runs. */
  readonly threads = {
    /** `POST /threads`. */
    create: (body: ThreadCreate = {}, o: CallOptions = {}) =>
      this.transport.request({ method: 'POST', path: '/threads', body, schema: Thread, ...o }),
    /** `GET /threads/{id}`. */
    get: (threadId: string, o: CallOptions = {}) =>
      this.transport.request({ method: 'GET', path: `/threads/${segment(threadId)}`, schema: Thread, ...o }),
    /** `GET /threads/{id}/state`: `values` (with `values.messages`), `next`, checkpoint. */
    getState: (threadId: string, o: CallOptions = {}) =>
      this.transport.request({ method: 'GET', path: `/threads/${segment(threadId)}/state`, schema: ThreadState, ...o }),
    /** `POST /threads/search`: threads by metadata, values and status. */
    search: (query: ThreadSearch = {}, o: CallOptions = {}) =>
      this.transport.request({ method: 'POST', path: '/threads/search', body: query, schema: z.array(Thread), ...o }),
    /** `POST /threads/{id}/history`: the thread's states, newest first. */
    getHistory: (threadId: string, body: ThreadHistoryRequest = {}, o: CallOptions = {}) =>
      this.transport.request({ method: 'POST', path: `/threads/${segment(threadId)}/history`, body, schema: z.array(ThreadState), ...o }),
    /** `DELETE /threads/{id}` with its runs. */
    delete: (threadId: string, o: CallOptions = {}) =>
      this.transport.request<void>({ method: 'DELETE', path: `/threads/${segment(threadId)}`, ...o }),
  };

  /** Runs on threads, and stateless runs. */
  readonly runs = {
    /**
     * `POST /threads/{id}/runs`: a background run; `multitask_strategy` says what happens to runs in flight. With a
     * null `threadId`, `POST /runs`: a stateless background run, which keeps nothing (its trace only).
     */
    create: (threadId: string | null, body: RunCreate, o: CallOptions = {}) =>
      this.transport.request({ method: 'POST', path: threadId === null ? '/runs' : `/threads/${segment(threadId)}/runs`, body, schema: Run, ...o }),
    /** `GET /threads/{id}/runs/{run_id}`. */
    get: (threadId: string, runId: string, o: CallOptions = {}) =>
      this.transport.request({
        method: 'GET',
        path: `/threads/${segment(threadId)}/runs/${segment(runId)}`,
        schema: Run,
        ...o,
      }),
    /** `GET /threads/{id}/runs`: newest first. */
    list: (threadId: string, page: { limit?: number; offset?: number } = {}, o: CallOptions = {}) =>
      this.transport.request({
        method: 'GET',
        path: `/threads/${segment(threadId)}/runs`,
        query: page,
        schema: z.array(Run),
        ...o,
      }),
    /**
     * Creates a run and streams it: `POST /threads/{id}/runs/stream`, or `POST /runs/stream` (stateless: nothing is
     * kept) when `threadId` is null.
     */
    stream: (threadId: string | null, body: RunCreate, o: CallOptions = {}): AsyncGenerator<StreamChunk> =>
      this.streamChunks(
        'POST',
        threadId === null ? '/runs/stream' : `/threads/${segment(threadId)}/runs/stream`,
        undefined,
        body,
        o,
      ),
    /** `GET /threads/{id}/runs/{run_id}/stream`: the run's output from now on (nothing earlier is replayed). */
    joinStream: (threadId: string, runId: string, o: JoinStreamOptions = {}): AsyncGenerator<StreamChunk> =>
      this.streamChunks(
        'GET',
        `/threads/${segment(threadId)}/runs/${segment(runId)}/stream`,
        {
          stream_mode: typeof o.streamMode === 'string' ? [o.streamMode] : o.streamMode,
          stream_subgraphs: o.streamSubgraphs,
        },
        undefined,
        o,
      ),
    /**
     * `GET /threads/{id}/runs/{run_id}/join`: waits for the run, for as long as it takes unless `timeoutMs` is given;
     * the thread's final values, or an AgentRunError.
     */
    join: async (threadId: string, runId: string, o: CallOptions = {}): Promise<ThreadValues> => {
      const path = `/threads/${segment(threadId)}/runs/${segment(runId)}/join`;
      const result = await this.transport.request({ method: 'GET', path, schema: JoinResult, ...o, timeoutMs: o.timeoutMs ?? Infinity });
      return this.valuesOf(result, 'GET', path);
    },
    /**
     * `POST /threads/{id}/runs/wait`: creates a run and waits for it (no time limit unless `timeoutMs` is given);
     * the thread's final values, or an AgentRunError. With a null `threadId`, `POST /runs/wait`: a stateless run, and
     * its last values. Not retried: a retry would create another run.
     */
    wait: async (threadId: string | null, body: RunCreate, o: CallOptions = {}): Promise<ThreadValues> => {
      const path = threadId === null ? '/runs/wait' : `/threads/${segment(threadId)}/runs/wait`;
      const result = await this.transport.request({ method: 'POST', path, body, schema: JoinResult, ...o, retry: false, timeoutMs: o.timeoutMs ?? Infinity });
      return this.valuesOf(result, 'POST', path);
    },
    /** `POST /threads/{id}/runs/{run_id}/cancel`. */
    cancel: (threadId: string, runId: string, o: CancelOptions = {}) =>
      this.transport.request<void>({
        method: 'POST',
        path: `/threads/${segment(threadId)}/runs/${segment(runId)}/cancel`,
        query: { action: o.action, wait: o.wait },
        signal: o.signal,
        // with `wait`, the answer comes when the run has ended
        timeoutMs: o.timeoutMs ?? (o.wait ? Infinity : undefined),
      }),
  };

  /** Crons: runs on a schedule. */
  readonly crons: CronCalls;

  constructor(opts: AgentServerClientOptions) {
    this.ownsTransport = !('transport' in opts);
    this.transport = 'transport' in opts ? opts.transport : new HttpTransport(opts);
    this.crons = cronCalls(this.transport);
  }

  /** `GET /ok`. */
  async health(o: CallOptions = {}): Promise<z.infer<typeof Health>> {
    return this.transport.request({ method: 'GET', path: '/ok', schema: Health, ...o });
  }

  /** Closes the connection pool when the client created its transport. */
  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }

  /** A run's result: the thread's values, or its error thrown as an AgentRunError. */
  private valuesOf(result: JoinResult, method: 'GET' | 'POST', path: string): ThreadValues {
    if (result.__error__) {
      throw new AgentRunError(result.__error__, { method, url: `${this.transport.baseUrl}${path}`, redactor: this.transport.secretRedactor });
    }
    return ThreadValues.parse(result);
  }

  private async *streamChunks(
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, readonly string[] | boolean | undefined> | undefined,
    body: unknown,
    o: CallOptions,
  ): AsyncGenerator<StreamChunk> {
    const response = await this.transport.stream({
      method,
      path,
      query,
      body,
      signal: o.signal,
      timeoutMs: o.timeoutMs,
    });
    const init: ApiErrorInit = {
      method,
      url: `${this.transport.baseUrl}${path}`,
      requestId: response.requestId,
      redactor: this.transport.secretRedactor,
    };
    try {
      for await (const message of readServerSentEvents(response.body)) {
        if (message.event === 'error') throw new AgentRunError(errorChunkOf(message.data, init), init);
        yield toChunk(message.event, message.data, init);
      }
    } catch (error) {
      if (o.signal?.aborted && !(error instanceof ApiError)) throw new AbortError({ ...init, cause: o.signal.reason });
      throw error;
    }
  }
}

/** The data of an `error` event; data that is not such a chunk is a ResponseParseError (with its text redacted). */
function errorChunkOf(dataText: string, init: ApiErrorInit): StreamErrorChunk {
  let data: unknown;
  try {
    data = JSON.parse(dataText);
  } catch {
    // the parser's message quotes the data: it is left out, and the data goes in the (redacted) body
    throw new ResponseParseError('event error: data is not valid JSON', { ...init, body: dataText, issuePath: '' });
  }
  const parsed = StreamErrorChunk.safeParse(data);
  if (!parsed.success) throw new ResponseParseError('event error: data is not an error chunk', { ...init, body: data, issuePath: '' });
  return parsed.data;
}

/** Parses one SSE message into a typed chunk; data that does not match its mode's schema is a ResponseParseError. */
function toChunk(event: string, dataText: string, init: ApiErrorInit): StreamChunk {
  const separator = event.indexOf('|');
  const name = separator < 0 ? event : event.slice(0, separator);
  const namespace = separator < 0 ? [] : event.slice(separator + 1).split('|');
  const mode = MODE_OF_EVENT[name] ?? 'unknown';
  let data: unknown;
  try {
    data = dataText === '' ? null : JSON.parse(dataText);
  } catch {
    // the parser's message quotes the data: it is left out, and the data goes in the (redacted) body
    throw new ResponseParseError(`event ${event}: data is not valid JSON`, {
      ...init,
      body: dataText,
      issuePath: '',
    });
  }
  const schema = DATA_SCHEMAS[mode];
  if (!schema) return { event, mode, namespace, data } as StreamChunk;
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const issuePath = issue?.path.map(String).join('.') ?? '';
    throw new ResponseParseError(
      `event ${event}: data does not match the ${mode} chunk schema at ${issuePath || '(root)'}: ${issue?.message}`,
      {
        ...init,
        body: data,
        cause: parsed.error,
        issuePath,
      },
    );
  }
  return { event, mode, namespace, data: parsed.data } as StreamChunk;
}
