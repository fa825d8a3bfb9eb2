/** The contract between nodes and a chat model: a complete reply, split into the tokens to stream. */
import type { StateMessage, UsageMetadata } from './messages';

/** One reply of a model. */
export interface ModelReply {
  /** The reply's tokens, in order; joined they give the reply text. */
  readonly tokens: readonly string[];
  /** Token usage of the call. */
  readonly usage: UsageMetadata;
}

/** A chat model a node can call. */
export interface ChatModel {
  /** Model name, as reported in token metadata and traces. */
  readonly name: string;
  /** Provider name, as reported in token metadata. */
  readonly provider: string;
  /** Price of one prompt token, in dollars. */
  readonly promptTokenCost: number;
  /** Price of one completion token, in dollars. */
  readonly completionTokenCost: number;
  /** The reply to `messages`, given the run's `configurable` settings. */
  reply(messages: readonly StateMessage[], configurable: Readonly<Record<string, unknown>>): ModelReply;
  /** Delay before each token, in milliseconds, given the run's `configurable` settings. */
  tokenDelayMs(configurable: Readonly<Record<string, unknown>>): number;
}
