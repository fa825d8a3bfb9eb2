/**
 * Plan-time checks of `agentplatform_bulk_export`, made with the very code the platform validates with: the filter
 * parser, the exportable fields table and the ISO 8601 instant parser of `lib/api`. Those modules load zod, so they
 * are required inside the checks, never at the top: a provider launch that checks no export does not pay for them.
 * The API's constants come from its zod-free module, for the same reason.
 */
import { isUuid } from '../../../api/ids';
import { FINAL_BULK_EXPORT_STATUSES, SCHEDULE_DELAY_MS, exportDays } from '../../../api/schemas/bulk-export-constants';

export { SCHEDULE_DELAY_MS, exportDays };

/** Statuses after which an export never changes. */
export const FINAL_EXPORT_STATUSES: readonly string[] = FINAL_BULK_EXPORT_STATUSES;

/**
 * Why a filter is not of the shape the spec gives it (function-style operators), with the parser's position and caret
 * under the offending text; undefined when it is. spec: Bulk export, `filter`. Which operators and fields it names is
 * the platform's to judge: see {@link filterWarning}.
 */
export function filterProblem(text: string): string | undefined {
  if (text.trim() === '') return 'is empty: leave `filter` out to export every run of the range.';
  const { reviewFilter } = require('../../../api/filter') as typeof import('../../../api/filter');
  return reviewFilter(text).shape?.message;
}

/** Why this project's platform would refuse a filter of the right shape (an unknown operator or field), or undefined. */
export function filterWarning(text: string): string | undefined {
  const { reviewFilter } = require('../../../api/filter') as typeof import('../../../api/filter');
  return reviewFilter(text).unknown?.message;
}

/**
 * Why `name` is not an exportable field (with the closest one, when there is one), or undefined. spec: Exportable
 * fields, the table of the columns of the Parquet files.
 */
export function exportFieldProblem(name: string): string | undefined {
  const { EXPORTABLE_FIELD_NAMES, isExportableField } = require('../../../api/schemas/trace') as typeof import('../../../api/schemas/trace');
  if (isExportableField(name)) return undefined;
  const { suggest } = require('../../../api/filter/errors') as typeof import('../../../api/filter/errors');
  const hint = suggest(name, EXPORTABLE_FIELD_NAMES);
  return (
    `${JSON.stringify(name)} is not an exportable field${hint ? `; ${hint}` : ''}. ` +
    `The exportable fields are: ${EXPORTABLE_FIELD_NAMES.join(', ')}.`
  );
}

/** Microseconds since the epoch of an ISO 8601 instant, as the platform reads it; NaN when it is not one. */
export function instantMicros(text: string): number {
  const { parseIsoInstant } = require('../../../api/schemas/trace') as typeof import('../../../api/schemas/trace');
  return parseIsoInstant(text);
}

/** Why `text` is not an ISO 8601 instant, or undefined. spec: Bulk export, `start_time`/`end_time` are ISO 8601 UTC timestamps. */
export function timestampProblem(text: string): string | undefined {
  return Number.isNaN(instantMicros(text))
    ? `must be an ISO 8601 UTC timestamp such as "2025-01-31T00:00:00Z"; got ${JSON.stringify(text)}.`
    : undefined;
}

/**
 * Whether two filters are the same argument written otherwise (spacing, quotes, number notation, a character as a
 * `\u` escape): both parse, and the platform's parser reads them the same, their string literals compared in Unicode
 * NFC. Terraform makes every string NFC, so a filter of another form reaches it only as escapes (as the constructs
 * write it), and the export made from it before, as Terraform wrote it, is the same argument.
 */
export function sameFilter(a: string, b: string): boolean {
  if (a === b) return true;
  const { renderFilter, validateFilter } = require('../../../api/filter') as typeof import('../../../api/filter');
  const [left, right] = [validateFilter(a), validateFilter(b)];
  // the canonical text is ASCII outside its string literals, and a literal starts after a quote, which composes with
  // nothing: its NFC form is that of each literal
  return left.ok && right.ok && renderFilter(left.expr).normalize('NFC') === renderFilter(right.expr).normalize('NFC');
}

/** Whether two timestamps denote the same instant (the platform may write back a normalized form). */
export function sameInstant(a: string, b: string): boolean {
  if (a === b) return true;
  const left = instantMicros(a);
  return !Number.isNaN(left) && left === instantMicros(b);
}

// spec: Bulk export, `session_id` is a string (uuid)
export const uuidProblem = (what: string) => (value: string): string | undefined =>
  isUuid(value) ? undefined : `must be ${what} (a UUID); got ${JSON.stringify(value)}.`;
