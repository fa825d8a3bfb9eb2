/**
 * Finding a tracing project: by id (read, import), by name (the data source), and after a create that got no clear
 * answer (see `unanswered-create.ts`). Names are unique within a workspace, so the project of the planned name made
 * since the request went out is the one the create made, and it is taken into state; one made before the request is
 * not this create's (the create would have been refused for its name), and is an error that says to import it.
 */
import type { BulkExportClient } from '../../../api/bulk-export';
import type { Session } from '../../../api/schemas/tracing';
import { DiagnosticError } from '../../framework';
import { createdSince, outcomeMeans, tryUntilAnswered, unansweredSummary, type UnansweredCreate } from '../shared/unanswered-create';
import { IMPORT_IT } from './messages';

/** The project a create of `name` that got no clear answer made, or the error that says what to do. */
export async function projectCreatedUnanswered(client: BulkExportClient, name: string, sent: UnansweredCreate): Promise<Session | DiagnosticError> {
  const summary = unansweredSummary(sent.outcome, `tracing project "${name}"`);
  const means = `${sent.err.message}. ${outcomeMeans(sent.outcome, 'project')}.`;
  let older: Session | undefined;
  const result = await tryUntilAnswered(sent, async (options) => {
    const named = await client.findSessionByName(name, options);
    if (!named) return null;
    if (createdSince(named.created_at ?? named.start_time, sent.sentAtMs, client.transport)) return named;
    older = named;
    return null;
  });
  if (result.found) return result.found;
  if (older) {
    return new DiagnosticError(
      summary,
      `${means} The workspace has a project of this name made before the request went out (${older.id}): not by this ` +
        `create, but perhaps by an earlier one that got no answer. To manage it here, import it: ${IMPORT_IT}.`,
    );
  }
  const failure = result.lastFailure ? ` (${result.lastFailure.message})` : '';
  return new DiagnosticError(
    summary,
    `${means} ${result.listed ? 'No project of this name was found since the request went out' : `The projects could not be listed${failure}`}. ` +
      'Applying again sends the same create, with the same `Idempotency-Key`: a platform that honours the key answers it ' +
      'with the project this create made; on one that does not, the name it took refuses the create, with the id to import.',
  );
}
