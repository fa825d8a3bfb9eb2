/**
 * What an assistant's create takes beyond the calls of every agent server request. The LangGraph agent server's
 * `POST /assistants` takes a caller-chosen `assistant_id` and `if_exists: "do_nothing"` (it answers with the assistant
 * of that id, untouched, when there is one): a create of a chosen id with `do_nothing` may be sent again after a lost
 * answer, and retried as any idempotent request.
 */
import type { CallOptions } from './agent-server';

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
