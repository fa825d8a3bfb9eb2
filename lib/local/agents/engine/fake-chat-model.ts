/**
 * The built-in language model: deterministic (the same conversation and settings always give the same reply),
 * free of any network, and streaming its reply token by token so every streaming path is exercised for real.
 *
 * The reply is `You said: <last human message>`, cut or extended to `reply_tokens` tokens when that setting is
 * given; extension words come from a fixed vocabulary drawn by a generator seeded with the prompt.
 */
import type { ChatModel, ModelReply } from './chat-model';
import { messageText, type StateMessage } from './messages';

/** `configurable` settings the fake model reads. */
export const FAKE_MODEL_SETTINGS = {
  /** Exact number of tokens of the reply (a positive integer). */
  replyTokens: 'reply_tokens',
  /** Milliseconds to wait before each token, to make a run last (a number ≥ 0). */
  tokenDelayMs: 'token_delay_ms',
  /** When set, the model call fails with this message instead of replying. */
  modelError: 'model_error',
} as const;

/** Raised by the fake model when `model_error` is set. */
export class FakeModelError extends Error {
  override readonly name = 'FakeModelError';
}

const VOCABULARY = [
  'agents',
  'graph',
  'state',
  'stream',
  'token',
  'thread',
  'run',
  'node',
  'edge',
  'reply',
  'model',
  'plan',
  'search',
  'answer',
  'memory',
  'tool',
  'step',
  'value',
  'update',
  'event',
  'signal',
  'queue',
  'trace',
  'cost',
];

/** Splits text into tokens: each token is a word with the whitespace before it. */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** A deterministic chat model that echoes the last human message. */
export class FakeChatModel implements ChatModel {
  readonly provider = 'fake';
  /** Dollars per prompt token. */
  readonly promptTokenCost = 0.000001;
  /** Dollars per completion token. */
  readonly completionTokenCost = 0.000002;

  /** @param name the model name reported in metadata and traces */
  constructor(readonly name: string = 'fake-chat-model') {}

  reply(messages: readonly StateMessage[], configurable: Readonly<Record<string, unknown>>): ModelReply {
    const error = configurable[FAKE_MODEL_SETTINGS.modelError];
    if (typeof error === 'string' && error.length > 0) throw new FakeModelError(error);
    const prompt = [...messages].reverse().find((message) => message.type === 'human');
    const promptText = prompt ? messageText(prompt) : '';
    let tokens = tokenize(`You said: ${promptText}`);
    const wanted = positiveInteger(configurable[FAKE_MODEL_SETTINGS.replyTokens]);
    if (wanted !== undefined)
      tokens = tokens.length >= wanted ? tokens.slice(0, wanted) : extend(tokens, wanted, promptText);
    const inputTokens = messages.reduce((sum, message) => sum + tokenize(messageText(message)).length, 0);
    return {
      tokens,
      usage: { input_tokens: inputTokens, output_tokens: tokens.length, total_tokens: inputTokens + tokens.length },
    };
  }

  tokenDelayMs(configurable: Readonly<Record<string, unknown>>): number {
    const delay = configurable[FAKE_MODEL_SETTINGS.tokenDelayMs];
    return typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? delay : 0;
  }
}

function extend(tokens: string[], wanted: number, seedText: string): string[] {
  const extended = [...tokens];
  let seed = fnv1a(seedText) || 1;
  while (extended.length < wanted) {
    // xorshift32: a fixed sequence for a given prompt, so replies are reproducible.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    extended.push(` ${VOCABULARY[(seed >>> 0) % VOCABULARY.length]}`);
  }
  return extended;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
