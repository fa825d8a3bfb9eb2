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
  /** Exact number of tokens of the reply (an integer from 1 to {@link MAX_REPLY_TOKENS}). */
  replyTokens: 'reply_tokens',
  /** Milliseconds to wait before each token, to make a run last (a number from 0 to {@link MAX_TOKEN_DELAY_MS}). */
  tokenDelayMs: 'token_delay_ms',
  /** When set, the model call fails with this message instead of replying. */
  modelError: 'model_error',
} as const;

/** The longest reply: a reply is kept whole in the process's memory, in the thread's state and in its checkpoints. */
export const MAX_REPLY_TOKENS = 100_000;
/** The longest wait before a token (a minute): enough to make a run last, and far within what a timer holds. */
export const MAX_TOKEN_DELAY_MS = 60_000;

/** JSON Schema of each setting, with the limits {@link fakeModelSettingProblems} checks. */
export const FAKE_MODEL_CONFIG_SCHEMA = {
  [FAKE_MODEL_SETTINGS.replyTokens]: { type: 'integer', minimum: 1, maximum: MAX_REPLY_TOKENS },
  [FAKE_MODEL_SETTINGS.tokenDelayMs]: { type: 'number', minimum: 0, maximum: MAX_TOKEN_DELAY_MS },
  [FAKE_MODEL_SETTINGS.modelError]: { type: 'string' },
} as const;

/**
 * What is wrong with the fake model's settings in a `configurable`, by setting name: the requests that give them (a
 * run, an assistant, a cron) are refused with it, so no run meets them.
 */
export function fakeModelSettingProblems(configurable: Readonly<Record<string, unknown>>): [string, string][] {
  const problems: [string, string][] = [];
  const tokens = configurable[FAKE_MODEL_SETTINGS.replyTokens];
  if (tokens != null && !(typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 1 && tokens <= MAX_REPLY_TOKENS)) {
    problems.push([FAKE_MODEL_SETTINGS.replyTokens, `Value error, reply_tokens must be a whole number from 1 to ${MAX_REPLY_TOKENS}`]);
  }
  const delay = configurable[FAKE_MODEL_SETTINGS.tokenDelayMs];
  if (delay != null && !(typeof delay === 'number' && delay >= 0 && delay <= MAX_TOKEN_DELAY_MS)) {
    problems.push([FAKE_MODEL_SETTINGS.tokenDelayMs, `Value error, token_delay_ms must be a number of milliseconds from 0 to ${MAX_TOKEN_DELAY_MS}`]);
  }
  const error = configurable[FAKE_MODEL_SETTINGS.modelError];
  if (error != null && typeof error !== 'string') problems.push([FAKE_MODEL_SETTINGS.modelError, 'Value error, model_error must be a string']);
  return problems;
}

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
    // settings stored before they were checked (an assistant's, a cron's) fail the run rather than the process
    if (wanted !== undefined && wanted > MAX_REPLY_TOKENS) throw new FakeModelError(`reply_tokens must be at most ${MAX_REPLY_TOKENS}`);
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
    return typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? Math.min(delay, MAX_TOKEN_DELAY_MS) : 0;
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
