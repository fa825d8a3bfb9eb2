/**
 * The `Filter` builder of the constructs: `lib/api`'s, which checks each expression as it is built, refusing values
 * that are tokens with a message that says how to write such a filter (the API layer knows nothing of tokens, and
 * its check would fail on them with a message about the value).
 */
import { Filter as ApiFilter, type FilterExpr } from '../api/filter';
import { isToken, messages } from './errors';

type Builder = (...args: unknown[]) => FilterExpr;

/**
 * Typed builder of filter expressions: `Filter.and(Filter.eq('run_type', 'llm'), Filter.gt('total_tokens', 1000))`.
 * Values are literals; a filter that depends on a variable is written as a string.
 */
export const Filter: typeof ApiFilter = Object.fromEntries(
  Object.entries(ApiFilter).map(([name, build]) => [
    name,
    (...args: unknown[]): FilterExpr => {
      if (args.some((arg) => isToken(arg))) throw new Error(messages.filterBuilderToken(name));
      return (build as Builder)(...args);
    },
  ]),
) as unknown as typeof ApiFilter;
