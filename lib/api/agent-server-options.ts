/**
 * The per-call options of the agent server client's calls. An assistant's create takes more: the LangGraph agent
 * server's `POST /assistants` takes a caller-chosen `assistant_id` and `if_exists: "do_nothing"` (it answers with the
 * assistant of that id, untouched, when there is one), so a create of a chosen id with `do_nothing` may be sent again
 * after a lost answer, and retried as any idempotent request.
 */

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call; for a stream, closes the connection. @default none */
  readonly signal?: AbortSignal;
  /** Time allowed for each attempt (for a stream: until the response headers), in milliseconds. @default the transport's */
  readonly timeoutMs?: number;
}

/** Per-call options of `assistants.create`. */
export interface AssistantCreateOptions extends CallOptions {
  /** Sent as `Idempotency-Key`, for a server that honours it. @default none */
  readonly idempotencyKey?: string;
  /**
   * `true`: retry every transient failure, as for a body with `assistant_id` and `if_exists: "do_nothing"`, which
   * a server carries out at most once. @default by method: a POST only when the server cannot have acted
   */
  readonly retry?: boolean;
}
