/**
 * A create of an export destination that got no clear answer (see `shared/unanswered-create.ts`) may have created the
 * destination all the same, and the platform cannot delete destinations. Sending it again could make a second one (on
 * a platform that ignores `Idempotency-Key`), so the provider looks for it instead, again and again within the create's
 * time limit: the one destination made since the request went out with the same name, bucket and prefix is taken into
 * state, as if the platform had answered; several, or none, are an error that names them (and the older ones of the
 * same settings, apart) and says what to do.
 */
import type { BulkExportClient } from '../../../api/bulk-export';
import type { Destination } from '../../../api/schemas/bulk-export';
import { DiagnosticError } from '../../framework';
import type { ExportDestinationModel } from './schema';
import { createdSince, tryUntilAnswered, outcomeMeans, unansweredSummary, type UnansweredCreate } from '../shared/unanswered-create';

/** What a destination is recognised by: the settings of the create that the API shows back. */
type Recognised = Pick<ExportDestinationModel, 'display_name' | 'bucket_name' | 'prefix'>;

const listed = (destinations: readonly Destination[]): string => destinations.map((d) => `${d.id} (created ${d.created_at ?? 'at a time the platform does not show'})`).join(', ');

const importIt = "(`terraform import <this resource's address> <id>`)";

/** The destination a create of `planned` that got no clear answer made, or the error that says what to do. */
export async function destinationCreatedUnanswered(
  client: BulkExportClient,
  planned: Recognised,
  sent: UnansweredCreate,
): Promise<Destination | DiagnosticError> {
  const summary = unansweredSummary(sent.outcome, `export destination "${planned.display_name}"`);
  const means = `${sent.err.message}. ${outcomeMeans(sent.outcome, 'destination')} (it validates the bucket before it answers).`;
  let older: Destination[] = [];
  const result = await tryUntilAnswered(sent, async (options) => {
    const alike = (await client.listDestinations(options)).filter(
      (d) => d.display_name === planned.display_name && d.config?.bucket_name === planned.bucket_name && (d.config?.prefix ?? '') === (planned.prefix ?? ''),
    );
    const made = alike.filter((d) => createdSince(d.created_at, sent.sentAtMs, client.transport));
    older = alike.filter((d) => !made.includes(d));
    if (made.length <= 1) return made[0] ?? null;
    throw new DiagnosticError(
      summary,
      `${means} Created since the request went out, with this name, bucket and prefix: ${listed(made)}. Import the one to keep ${importIt} ` +
        'instead of applying again, which would create another.',
    );
  });
  if (result.found) return result.found;
  const before = older.length
    ? ` Made before the request, with the same name, bucket and prefix: ${listed(older)}; not by this create, but one may be left by an earlier ` +
      'create that got no answer: import it the same way if so.'
    : '';
  const failure = result.lastFailure ? ` (${result.lastFailure.message})` : '';
  return new DiagnosticError(
    summary,
    `${means} ${result.listed ? 'None with this name, bucket and prefix was created since the request went out' : `The destinations could not be listed${failure}`}. ` +
      'Applying again sends the same create, with the same `Idempotency-Key`: a platform that honours the key answers it with the destination this ' +
      'create made. On one that does not, list the destinations (`GET /api/v1/bulk-exports/destinations`) before applying again, and import ' +
      `the one that appears ${importIt}.${before}`,
  );
}
