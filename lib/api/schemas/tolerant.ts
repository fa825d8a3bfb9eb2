/**
 * Building blocks of the response schemas: the platform is read tolerantly. A response object keeps only what the
 * spec requires (or what the caller cannot work without) required; it ignores fields it does not know (zod objects
 * strip them; none of the response schemas is strict); and a value of an enumeration the platform has extended since
 * (a new status, a new deployment type) is kept as the string it is, never a parse failure. Request schemas stay
 * closed: what is sent is what the spec names.
 */
import { z } from 'zod';

/** One of the known values `T`, or a value the platform added since: kept as the string it is. */
export type OpenEnum<T extends string> = T | (string & {});

/** A string enumeration read tolerantly: any string passes, typed as the known values or another string. */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<OpenEnum<T[number]>, string> {
  return z.string().describe(`one of ${values.join(', ')}, or a value added since`) as z.ZodType<OpenEnum<T[number]>, string>;
}

const DECIMAL = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A number the platform may write as a JSON number or as a decimal string (`0.5` or `"0.5"`). */
export const looseNumber = z.union([z.number(), z.string().regex(DECIMAL).transform(Number)]);
