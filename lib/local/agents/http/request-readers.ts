/** The request readers the agent server's routes share: JSON bodies and uuid path parameters, their problems as 422s. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { MAX_JSON_DEPTH, TOO_DEEP, exceedsJsonDepth } from '../../json-values';
import { RequestValidationError } from '../../errors';
import { RequestValidator, readJsonBody } from '../../validation';
import type { AgentServerEnv } from './env';

type AgentContext = Context<AgentServerEnv>;

/**
 * Reads a JSON body with a schema into the request's validator, which collects its problems with those of the path
 * and the query (a 422 lists them all); undefined when the body has any. A field nested deeper than the platform
 * stores ({@link MAX_JSON_DEPTH} levels) is one of them, at the field. A body too large is a 413 at once.
 */
export async function readBody<S extends z.ZodType>(
  c: AgentContext,
  validator: RequestValidator,
  schema: S,
): Promise<z.infer<S> | undefined> {
  let raw: unknown;
  try {
    raw = await readJsonBody(c, { anyContentType: true });
  } catch (error) {
    // no JSON to parse (none, malformed, a lone surrogate): that problem is the body's
    if (!(error instanceof RequestValidationError)) throw error;
    for (const item of error.items) validator.add(item.loc, item.type, item.msg);
    return undefined;
  }
  let deep = false;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    for (const [field, value] of Object.entries(raw)) {
      if (!exceedsJsonDepth(value)) continue;
      validator.add(['body', field], 'value_error', `Value error, ${field} is ${TOO_DEEP}`);
      deep = true;
    }
  }
  const body = validator.parse(schema, raw, ['body']);
  return deep ? undefined : body;
}

/** Parses the JSON body of a request without path or query parameters; 422 with every problem otherwise. */
export async function parseBody<S extends z.ZodType>(c: AgentContext, schema: S): Promise<z.infer<S>> {
  const validator = new RequestValidator();
  return validator.valid(await readBody(c, validator, schema));
}

/**
 * A uuid path parameter in canonical form, its problem recorded at the parameter's name as the API documents it
 * (`thread_id`).
 */
export function pathUuid(validator: RequestValidator, c: AgentContext, name: string): string {
  const documented = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return validator.uuidPath(documented, c.req.param(name) ?? '');
}

/** The uuid path parameter of a request without other parameters; 422 otherwise. */
export function uuidParam(c: AgentContext, name: string): string {
  const validator = new RequestValidator();
  return validator.valid(pathUuid(validator, c, name));
}
