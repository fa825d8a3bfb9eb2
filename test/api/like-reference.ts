/** `like` as the filter evaluates it, and as a RegExp says SQL means it, for the tests that compare the two. */
import { compileFilter, parseFilter, type TraceRunLike } from '../../lib/api/filter';

/** The meaning of a LIKE pattern as a RegExp: exact, and fine on short values (it backtracks on long ones). */
export const reference = (pattern: string, value: string): boolean => {
  const source = Array.from(pattern.matchAll(/\\(.)|(%)|(_)|(.)/gsu), ([, escaped, any, one, char]) =>
    any ? '[\\s\\S]*' : one ? '[\\s\\S]' : (escaped ?? char)!.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'),
  ).join('');
  return new RegExp(`^${source}$`, 'u').test(value);
};

/** Whether `like(name, pattern)` keeps a run named `value`. */
export const likes = (pattern: string, value: string): boolean =>
  compileFilter(parseFilter(`like(name, ${JSON.stringify(pattern)})`))({ name: value } as TraceRunLike);
