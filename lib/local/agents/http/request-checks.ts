/**
 * Checks of what a run will be given, made where a request gives it (a run, an assistant's config, a cron's payload),
 * so that a run never meets a value it cannot take: the input messages (a role, a content of the kind the run reads)
 * and the built-in model's settings in `config.configurable` (a reply of a billion tokens would take the process's
 * memory; see fake-chat-model.ts). Each problem is a 422 item at the field.
 */
import type { RunnableConfig } from '../../../api/schemas/agent-server';
import { RequestValidator } from '../../validation';
import { fakeModelSettingProblems } from '../engine/fake-chat-model';
import { toStateMessage, type StateMessage } from '../engine/messages';

type Loc = (string | number)[];

/** Adds a 422 item for each setting of the built-in model in `config.configurable` it cannot take. */
export function checkRunConfig(validator: RequestValidator, config: RunnableConfig | undefined, loc: Loc): void {
  if (!config?.configurable) return;
  for (const [name, message] of fakeModelSettingProblems(config.configurable)) validator.add([...loc, 'configurable', name], 'value_error', message);
}

/**
 * The input's messages as a run takes them (each with its id), or undefined when the input has none; a 422 item for
 * each message that is not one (and for `messages` that is not a list).
 */
export function checkInputMessages(validator: RequestValidator, input: Record<string, unknown> | null | undefined, loc: Loc): StateMessage[] | undefined {
  const messages = input?.messages;
  if (messages === undefined) return undefined;
  if (!Array.isArray(messages)) {
    validator.add([...loc, 'messages'], 'list_type', 'Input should be a valid list');
    return undefined;
  }
  return messages.map((message, index) => {
    try {
      return toStateMessage(message);
    } catch (error) {
      validator.add([...loc, 'messages', index], 'value_error', (error as Error).message);
      return undefined as never;
    }
  });
}
