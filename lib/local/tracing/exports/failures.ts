/**
 * The failure table of export runs: what an attempt's error means, whether it is retried, and the message kept in
 * the run's `errors` (never a credential).
 *
 * | failure                                   | retried                  | final run status |
 * |-------------------------------------------|--------------------------|------------------|
 * | infrastructure interruption (restart)     | yes, with retries left   | Failed           |
 * | run timeout                               | no                       | TimedOut         |
 * | storage / destination error, bucket gone  | no                       | Failed           |
 * | terminal processing error (serialization) | yes, up to the maximum   | Failed           |
 * | network error or 5xx of the store         | yes, up to the maximum   | Failed           |
 * The workflow timeout is not an attempt failure: it ends the whole export (TimedOut) and is never retried. Neither
 * is the run timeout: an attempt that ran out of time would take as long again (and 20 retries of 4 h outlast the
 * export's 72 h), so the run ends TimedOut at once and the message says how to make the export smaller.
 */
import type { SecretRedactor } from '../../../api/redact';
import type { BulkExportStatus } from '../../../api/schemas/bulk-export';
import { classifyStorageError, destinationErrorOf, isPermanentStorageFailure } from '../destinations/storage-errors';

/** Why an attempt was aborted from outside, as the abort reason of its signal. */
export type AbortCause =
  | { readonly kind: 'run-timeout'; readonly afterMs: number }
  | { readonly kind: 'workflow-timeout' }
  | { readonly kind: 'export-finished' }
  | { readonly kind: 'shutdown' };

/** What to do with a failed attempt. */
export type FailureDecision =
  /** Record the message; retry when retries remain, else end the run with `finalStatus`. */
  | { readonly action: 'record'; readonly message: string; readonly retryable: boolean; readonly finalStatus: BulkExportStatus }
  /** Someone else already decided the run's fate (cancel, workflow timeout, shutdown): record nothing. */
  | { readonly action: 'ignore' };

/** The interruption message recorded when a restart finds an attempt that was in progress. */
export const INTERRUPTION_MESSAGE =
  'Infrastructure interruption: the platform stopped during this attempt (restart or crash); the run was requeued and resumes from its last checkpoint';

/** The error recorded when the run's destination no longer exists. */
export const DESTINATION_DELETED_MESSAGE = 'Destination deleted: the bulk export destination no longer exists';

/** The error recorded when the destination's stored credentials cannot be opened with the data dir's key. */
export const DESTINATION_UNREADABLE_MESSAGE =
  'Destination unreadable: its stored credentials cannot be opened with this data dir\'s secret key; create the destination again';

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * An error of the S3 client: an answer of the store, a network failure, or credentials it could not resolve. Other
 * errors that carry a `code` (a worker out of memory, SQLite busy) are processing errors.
 */
const isStorageError = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  ('$metadata' in err || (err as Error).name === 'TimeoutError' || classifyStorageError(err).kind !== 'other');

/** Characters of a processing error's text kept in its message. */
export const MAX_PROCESSING_ERROR_CHARS = 500;

/**
 * Decides what an attempt's error means. Its message leaves out the destination's secrets (`redactor`): a store may
 * write them back in its error messages, and the message is kept in the run, logged and shown. Texts are redacted
 * before they are cut short, so that no piece of a secret is left that the redactor could no longer tell.
 */
export function decideFailure(err: unknown, cause: AbortCause | undefined, redactor?: SecretRedactor): FailureDecision {
  const decision = decide(err, cause, redactor);
  return decision.action === 'record' && redactor ? { ...decision, message: redactor.redact(decision.message) } : decision;
}

function decide(err: unknown, cause: AbortCause | undefined, redactor: SecretRedactor | undefined): FailureDecision {
  if (cause?.kind === 'shutdown' || cause?.kind === 'workflow-timeout' || cause?.kind === 'export-finished') {
    return { action: 'ignore' };
  }
  if (cause?.kind === 'run-timeout') {
    return {
      action: 'record',
      message: `Run timeout (not retried): the run exceeded its time limit of ${duration(cause.afterMs)}; narrow the date range, add filters, or limit exported fields`,
      retryable: false,
      finalStatus: 'TimedOut',
    };
  }
  if (isStorageError(err)) {
    const failure = classifyStorageError(err, redactor);
    const meaning = destinationErrorOf(failure.kind);
    if (isPermanentStorageFailure(failure.kind)) {
      return {
        action: 'record',
        message: `Storage or destination error (not retried): ${meaning ?? 'The store refused the request'} - ${failure.description}; fix the destination and create a new export`,
        retryable: false,
        finalStatus: 'Failed',
      };
    }
    return { action: 'record', message: `Storage unavailable: ${failure.description}`, retryable: true, finalStatus: 'Failed' };
  }
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const shown = redactor ? redactor.redactAndCut(text, MAX_PROCESSING_ERROR_CHARS) : text.slice(0, MAX_PROCESSING_ERROR_CHARS);
  return { action: 'record', message: `Processing error: ${shown}`, retryable: true, finalStatus: 'Failed' };
}
