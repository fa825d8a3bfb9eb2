/**
 * What `agentplatform_assistant` tells users: each message says what went wrong, about which attribute, and what to
 * do.
 */
import { DiagnosticError, type Diagnostics, type PathLike } from '../../framework';
import { statusOf } from '../shared/bulk-export-client';
import { outcomeMeans, unansweredSummary, type CreateOutcome } from '../shared/unanswered-create';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A 404 for the assistant, and for a search of the same URL: the deployment's `url` may serve no agent server. */
export function notAnAgentServer(url: string, notFound: unknown, searchErr: unknown): DiagnosticError {
  return new DiagnosticError(
    'Not found, and the deployment\'s URL may not serve an agent server',
    `${messageOf(notFound)}\n\nA search of assistants at ${url} failed as well (${messageOf(searchErr)}), so the 404 may come from ` +
      'a URL that does not serve the agent server API, not from a deleted assistant: the assistant is kept in the state. ' +
      'Check the deployment\'s `url` (a `custom_url` must reach its agent server).',
  );
}

/** A 404 for the assistant that a search could not confirm. */
export function notConfirmedGone(notFound: unknown, searchErr: unknown): DiagnosticError {
  return new DiagnosticError(
    'Not found, and not confirmed gone',
    `${messageOf(notFound)}\n\nA search of the same agent server, which would confirm that the assistant is gone, failed: ` +
      `${messageOf(searchErr)}. The assistant is kept in the state: try again.`,
  );
}

/** The attribute a validation item's `loc` (`["body", "graph_id"]`) points at, if it is one of ours. */
function attributeOf(loc: readonly (string | number)[]): PathLike | undefined {
  const field = loc[0] === 'body' ? loc[1] : undefined;
  return typeof field === 'string' && ['graph_id', 'name', 'description', 'config', 'context', 'metadata'].includes(field) ? field : undefined;
}

/**
 * A create or update the agent server refused, as diagnostics against the attributes its validation items name (all
 * but the last added to `diagnostics`, the last returned to be thrown); any other error as it is.
 */
export function refusal(diagnostics: Diagnostics, err: unknown, doing: string): unknown {
  const items = (err as { items?: { loc: (string | number)[]; msg: string }[] } | null)?.items;
  if (statusOf(err) !== 422 || !items?.length) return err;
  const problems = items.map((item) => new DiagnosticError(`The agent server refused to ${doing}`, item.msg, attributeOf(item.loc)));
  for (const problem of problems.slice(0, -1)) diagnostics.error(problem.summary, problem.detail, problem.path);
  return problems[problems.length - 1]!;
}

/** The warning of a create whose first answer was lost, and whose assistant a create sent again found. */
export function foundAfterLostAnswer(diagnostics: Diagnostics, outcome: CreateOutcome, err: Error, assistantId: string): void {
  diagnostics.warning(
    unansweredSummary(outcome, `assistant ${assistantId}`),
    `${err.message}. ${outcomeMeans(outcome, 'assistant')}: the create was sent again under the same \`assistant_id\` ` +
      'with `if_exists: "do_nothing"`, and the agent server answered with the assistant of that id, which is kept in state.',
  );
}

/** The import id is not `<deployment_id>/<assistant_id>`. */
export function invalidImportId(id: string): DiagnosticError {
  return new DiagnosticError(
    'Invalid import id',
    `Import an assistant as \`<deployment_id>/<assistant_id>\`: the deployment's id (a UUID) and the assistant's id (or a graph id, ` +
      `for the graph's default assistant), joined by a slash; got ${JSON.stringify(id)}.`,
  );
}

/** The deployment of an import id is not there. */
export function noDeploymentToImportFrom(deploymentId: string): DiagnosticError {
  return new DiagnosticError(
    'Cannot import assistant',
    `There is no deployment ${deploymentId} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`,
  );
}
