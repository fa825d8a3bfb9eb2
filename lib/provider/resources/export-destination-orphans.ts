/**
 * A create of an export destination that got no clear answer (see `unanswered-create.ts`) may have created the
 * destination all the same, and the platform cannot delete destinations: rather than another apply, which would
 * create one more, the error names the destinations made since the request went out with the same name, bucket and
 * prefix, to import, and tells the older ones of the same settings apart.
 */
import type { BulkExportClient } from '../../api/bulk-export';
import type { Destination } from '../../api/schemas/bulk-export';
import { DiagnosticError } from '../framework';
import type { ExportDestinationModel } from './export-destination';
import { createdSince, outcomeMeans, unansweredSummary, withLookup, type UnansweredCreate } from './unanswered-create';

/** The error of a create of `planned` that got no clear answer, naming what it may have made. */
export async function mayHaveBeenCreated(
  client: BulkExportClient,
  planned: Pick<ExportDestinationModel, 'display_name' | 'bucket_name' | 'prefix'>,
  sent: UnansweredCreate,
): Promise<DiagnosticError> {
  let alike: Destination[] | undefined;
  try {
    alike = (await withLookup(sent.stop, (options) => client.listDestinations(options))).filter(
      (d) => d.display_name === planned.display_name && d.config?.bucket_name === planned.bucket_name && (d.config.prefix ?? '') === (planned.prefix ?? ''),
    );
  } catch {
    // the list is a help, not a requirement
  }
  const made = alike?.filter((d) => d.created_at !== undefined && createdSince(d.created_at, sent.sentAtMs, client.transport)) ?? [];
  const older = alike?.filter((d) => !made.includes(d)) ?? [];
  const listed = (destinations: Destination[]) => destinations.map((d) => `${d.id} (created ${d.created_at ?? 'at a time the platform does not show'})`).join(', ');
  const importIt = "(`terraform import <this resource's address> <id>`)";
  const found = made.length
    ? `Created since the request went out, with this name, bucket and prefix: ${listed(made)}. Import ${made.length > 1 ? 'the one to keep' : 'it'} ${importIt} instead of applying again, which would create another.`
    : `${alike ? 'None with this name, bucket and prefix was created since the request went out' : 'The destinations could not be listed'}: ` +
      `list the destinations (\`GET /api/v1/bulk-exports/destinations\`) before applying again, and import the one that appears ${importIt}.`;
  const before = older.length
    ? ` Made before the request, with the same name, bucket and prefix: ${listed(older)}; not by this create, but one may be left by an earlier ` +
      'create that got no answer: import it the same way if so.'
    : '';
  return new DiagnosticError(
    unansweredSummary(sent.outcome, `export destination "${planned.display_name}"`),
    `${sent.err.message}. ${outcomeMeans(sent.outcome, 'destination')} (it validates the bucket before it answers). ${found}${before}`,
  );
}
