/**
 * What the export resources tell users of a failed request to the bulk export API: the attribute a refused field is
 * in, and the setting to check when the key, the workspace or the platform is at fault.
 */
import { DiagnosticError, type Diagnostics, type PathLike } from '../../framework';
import { statusOf } from './bulk-export-client';
import { explainApiError } from '../../api-errors';

/** Where a 422 location inside a request body (`["body", "config", "bucket_name"]`) is in a resource's attributes. */
export type BodyFields = Readonly<Record<string, string>>;

function attributeOf(loc: readonly (string | number)[], fields: BodyFields): PathLike | undefined {
  if (loc[0] !== 'body') return undefined;
  const steps = loc.slice(1);
  for (let n = Math.min(steps.length, 2); n > 0; n--) {
    const names = steps.slice(0, n);
    const attribute = names.every((s) => typeof s === 'string') ? fields[names.join('.')] : undefined;
    if (attribute === undefined) continue;
    const index = steps[n];
    return typeof index === 'number' ? `${attribute}[${index}]` : attribute;
  }
  return undefined;
}

/**
 * An API error as a diagnostic to throw: a refused key or workspace with what to check; a 422 as one diagnostic per
 * problem on its attribute (all but the last added to `diagnostics`, the last returned); anything else with the
 * client's message (method, URL, status, request id).
 */
export function apiFailure(diagnostics: Diagnostics, err: unknown, doing: string, fields: BodyFields): DiagnosticError {
  const items = (err as { items?: { loc: (string | number)[]; msg: string }[] } | null)?.items;
  if (statusOf(err) === 422 && items?.length) {
    const problems = items.map((item) => new DiagnosticError(`The platform refused to ${doing}`, item.msg, attributeOf(item.loc, fields)));
    for (const problem of problems.slice(0, -1)) diagnostics.error(problem.summary, problem.detail, problem.path);
    return problems[problems.length - 1]!;
  }
  // a refused key or workspace, or a platform out of reach: the setting to check (the export types use the tracing API)
  const explained = explainApiError(err, 'agentplatform_bulk_export');
  if (explained instanceof DiagnosticError) return explained;
  return new DiagnosticError(`Failed to ${doing}`, err instanceof Error ? err.message : String(err));
}

// ---- exports ----

/** `text` with its first letter in upper case. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
