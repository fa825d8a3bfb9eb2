/** Query parameters read as FastAPI reads them. */
import type { Context } from 'hono';

/**
 * The value of a query parameter as FastAPI reads a scalar one: the last when it is repeated (`?limit=1&limit=200`
 * is 200); a list parameter, all of them (`?status=A&status=B` is `A,B`, as `?status=A,B`).
 */
export function queryParam(c: Context, name: string, kind: 'last' | 'all' = 'last'): string | undefined {
  const values = c.req.queries(name);
  if (values === undefined || values.length === 0) return undefined;
  return kind === 'all' ? values.join(',') : values[values.length - 1];
}
