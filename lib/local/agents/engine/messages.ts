/**
 * Chat messages as the agent server stores them in thread state (`{type, content, id, ...}`), the conversion of
 * input messages (`{role, content}`) into that shape, and the `messages` reducer that appends them.
 */
import { randomUUID } from 'node:crypto';

/** Message types of thread state. */
export type MessageType = 'human' | 'ai' | 'system' | 'tool';

/** Token usage of one model call, as carried by an AI message. */
export interface UsageMetadata {
  /** Tokens of the prompt. */
  readonly input_tokens: number;
  /** Tokens of the reply. */
  readonly output_tokens: number;
  /** Sum of both. */
  readonly total_tokens: number;
}

/** A message of thread state. */
export interface StateMessage {
  /** Who wrote it. */
  readonly type: MessageType;
  /** Text of the message (or content blocks, kept as given). */
  readonly content: string | unknown[];
  /** Stable id; the reducer replaces a message that has the id of an existing one. */
  readonly id: string;
  /** Optional author name. */
  readonly name?: string | null;
  /** Provider extras, always an object. */
  readonly additional_kwargs: Record<string, unknown>;
  /** Provider metadata of the response, always an object. */
  readonly response_metadata: Record<string, unknown>;
  /** Token usage; set on AI messages written by a model. */
  readonly usage_metadata?: UsageMetadata | null;
  /** Tool calls; always empty for the built-in models. */
  readonly tool_calls?: unknown[];
}

/** JSON Schema of a `messages` channel: what a run's input gives (a role or type, and a content) and state holds. */
export const MESSAGE_LIST_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['human', 'ai', 'system', 'tool'] },
      role: { type: 'string' },
      content: { anyOf: [{ type: 'string' }, { type: 'array', items: {} }] },
      id: { type: 'string' },
      name: { type: ['string', 'null'] },
    },
    required: ['content'],
  },
} as const;

const ROLE_TO_TYPE: Readonly<Record<string, MessageType>> = {
  user: 'human',
  human: 'human',
  assistant: 'ai',
  ai: 'ai',
  system: 'system',
  tool: 'tool',
};

/** Thrown for an input message whose role or type is not one of the known ones. */
export class InvalidMessageError extends Error {
  override readonly name = 'InvalidMessageError';
}

/**
 * Turns an input message (`{role, content}`, a message already in state shape `{type, content}`, or a bare string,
 * read as a human message) into a state message with an id.
 */
export function toStateMessage(input: unknown): StateMessage {
  if (typeof input === 'string') return makeMessage('human', input);
  if (typeof input !== 'object' || input === null)
    throw new InvalidMessageError('a message must be an object or a string');
  const record = input as Record<string, unknown>;
  const kind = typeof record.role === 'string' ? record.role : record.type;
  const type = typeof kind === 'string' ? ROLE_TO_TYPE[kind] : undefined;
  if (!type)
    throw new InvalidMessageError(
      `unknown message role ${JSON.stringify(kind ?? null)} (use user, assistant, system or tool)`,
    );
  const content = record.content;
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw new InvalidMessageError('message content must be a string or an array of content blocks');
  }
  // Fields beyond role/type/content/id (usage, metadata, name) are kept, so state messages round-trip unchanged.
  const { role: _role, ...rest } = record;
  return {
    additional_kwargs: {},
    response_metadata: {},
    ...rest,
    type,
    content,
    id: typeof record.id === 'string' ? record.id : randomUUID(),
  } as StateMessage;
}

/** Builds a state message; a new id is drawn when none is given. */
export function makeMessage(type: MessageType, content: string | unknown[], id: string = randomUUID()): StateMessage {
  return { type, content, id, additional_kwargs: {}, response_metadata: {} };
}

/** Text of a message, with content blocks reduced to their `text` parts. */
export function messageText(message: StateMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => (typeof block === 'string' ? block : (block as { text?: unknown }).text))
    .filter((text): text is string => typeof text === 'string')
    .join('');
}

/**
 * The `messages` reducer: appends the update's messages in order; a message whose id is already present replaces
 * the earlier one in place (so re-applying a subgraph's output never duplicates messages).
 */
export function appendMessages(current: readonly StateMessage[] | undefined, update: unknown): StateMessage[] {
  const incoming = (Array.isArray(update) ? update : [update]).map(toStateMessage);
  const merged = [...(current ?? [])];
  const positionById = new Map(merged.map((message, index) => [message.id, index]));
  for (const message of incoming) {
    const index = positionById.get(message.id);
    if (index === undefined) {
      positionById.set(message.id, merged.length);
      merged.push(message);
    } else {
      merged[index] = message;
    }
  }
  return merged;
}
