/**
 * Reaching an assistant: its deployment's agent server (`deploymentAgentServer`), the assistant by id, and the create
 * that converges after a lost answer. The create names the assistant (a deterministic `assistant_id`) and asks for
 * `if_exists: "do_nothing"`, as the LangGraph agent server's `POST /assistants` takes them: sent again, it answers
 * with the assistant the first one made, so the create is retried as an idempotent request and, when no answer came
 * at all, sent again until one does, within the create's time limit.
 */
import type { AgentServerClient } from '../../../api/agent-server';
import type { AssistantAnswer as Assistant, AssistantCreate } from '../../../api/schemas/agent-server';
import { deploymentAgentServer } from '../../agent-server';
import { confirmGone } from '../../api-errors';
import { DiagnosticError, type ProviderContext } from '../../framework';
import { statusOf } from '../shared/bulk-export-client';
import { createOutcome, tryUntilAnswered, type CreateOutcome } from '../shared/unanswered-create';
import { notAnAgentServer, notConfirmedGone } from './messages';

/** Time allowed to a create, its retries and the creates sent again after a lost answer. */
export const CREATE_TIME_LIMIT_MS = 5 * 60_000;

/**
 * The agent server of a deployment in state, or null when the deployment is gone (the control plane answers 404
 * for it, and a list confirms that it serves the API): its assistants went with it.
 */
export async function serverOfExisting(ctx: ProviderContext, deploymentId: string, signal: AbortSignal): Promise<AgentServerClient | null> {
  try {
    return await deploymentAgentServer(ctx, deploymentId);
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    await confirmGone(err, 'control-plane', () => ctx.controlPlane().listDeployments({ limit: 1 }, { signal }));
    return null;
  }
}

/**
 * The assistant `assistantId` of the agent server, or null when it is gone: a 404 that a search of the same server
 * confirms (a URL that does not serve an agent server answers 404 to everything, and the assistant stays in state).
 */
export async function findAssistant(server: AgentServerClient, assistantId: string, signal: AbortSignal): Promise<Assistant | null> {
  try {
    return await server.assistants.get(assistantId, { signal });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    try {
      await server.assistants.search({ limit: 1 }, { signal });
    } catch (searchErr) {
      throw statusOf(searchErr) === 404 || (searchErr as Error).name === 'ResponseParseError'
        ? notAnAgentServer(server.transport.baseUrl, err, searchErr)
        : notConfirmedGone(err, searchErr);
    }
    return null;
  }
}

/** A create whose answer was lost, then found: the assistant, and what the first answer said. */
export interface Created {
  readonly assistant: Assistant;
  /** Set when the first request got no readable answer and a later one found the assistant. */
  readonly unanswered?: { readonly outcome: CreateOutcome; readonly err: Error };
}

/**
 * Creates the assistant of `body` (its `assistant_id` chosen, `if_exists: "do_nothing"`). A create that may have
 * acted without an answer is sent again (harmless: it answers with the assistant of that id) until an answer comes or
 * the time limit runs out; then the last failure is thrown, and the next apply sends the same create.
 */
export async function createAssistant(
  server: AgentServerClient,
  body: AssistantCreate & { readonly assistant_id: string },
  idempotencyKey: string,
  stop: AbortSignal,
): Promise<Created> {
  const deadlineMs = Date.now() + CREATE_TIME_LIMIT_MS;
  try {
    return { assistant: await server.assistants.create(body, { signal: stop, idempotencyKey, retry: true }) };
  } catch (err) {
    const outcome = createOutcome(err);
    if (!outcome) throw err;
    const result = await tryUntilAnswered({ stop, deadlineMs }, (o) => server.assistants.create(body, { ...o, idempotencyKey }));
    if (result.found) return { assistant: result.found, unanswered: { outcome, err: err as Error } };
    throw result.lastFailure ?? err;
  }
}

/** The import id's assistant, or an error that says it is not there. */
export async function assistantToImport(server: AgentServerClient, deploymentId: string, assistantId: string, signal: AbortSignal): Promise<Assistant> {
  const found = await findAssistant(server, assistantId, signal);
  if (!found) {
    throw new DiagnosticError(
      'Cannot import assistant',
      `The agent server of deployment ${deploymentId} has no assistant ${assistantId}: check the id (the assistant's \`assistant_id\`, or a graph id for its default assistant).`,
    );
  }
  return found;
}
