/**
 * Limits of the local platform on export filters, where the specification leaves their size open. Each filter runs on
 * every run of an export's range on the platform's main thread, so what one row may cost is bounded here.
 */
import type { FilterExpr } from '../../api/filter';

/**
 * The most characters a `like` pattern may have. A pattern without `_` is found by string search, whatever its length;
 * one with `_` is scanned at one machine word per 32 of its characters for each character of the value, so 1,000
 * characters cost at most 32 word steps per character of a run's name (about 20 ms on a name of 200,000 characters).
 */
export const MAX_LIKE_PATTERN_CHARS = 1000;

/** Why the local platform does not take `expr` as an export filter, or undefined when it does. */
export function filterLimitProblem(expr: FilterExpr): string | undefined {
  const pending: FilterExpr[] = [expr];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.op === 'and' || node.op === 'or') pending.push(...node.args);
    else if (node.op === 'not') pending.push(node.arg);
    else if (node.op === 'like') {
      const length = Array.from(node.pattern).length;
      if (length > MAX_LIKE_PATTERN_CHARS) {
        return `the pattern of like(${node.field}, …) has ${length} characters; the local platform takes at most ${MAX_LIKE_PATTERN_CHARS} in a like pattern: shorten it (a % can stand for a long run of literal characters)`;
      }
    }
  }
  return undefined;
}
