/**
 * Reading values out of a run record for evaluation. Records come from several places (the zod-parsed API shape,
 * SQLite rows, synthetic generators), so timestamps may be ISO strings, epoch milliseconds or Dates, booleans may be
 * 0/1, and JSON or list columns may still be JSON text. Each reader returns undefined for a missing or unusable
 * value, which makes every comparison with it false.
 */
import { parseIsoInstant } from '../schemas/trace-fields';

let lastInstantText = '';
let lastInstant = Number.NaN;

/**
 * Microseconds since the epoch of a timestamp value, or undefined. The last string parsed is remembered because a
 * time range (`and(gt(start_time, …), lt(start_time, …))`) reads the same value twice per record.
 */
export function readInstant(value: unknown): number | undefined {
  let micros: number;
  if (typeof value === 'string') {
    if (value !== lastInstantText) {
      lastInstant = parseIsoInstant(value);
      lastInstantText = value;
    }
    micros = lastInstant;
  } else if (typeof value === 'number') micros = value * 1000;
  else if (value instanceof Date) micros = value.getTime() * 1000;
  else return undefined;
  return Number.isNaN(micros) ? undefined : micros;
}

export function readNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}

export function readBoolean(value: unknown): boolean | undefined {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  return undefined;
}

export function readString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function parseJsonText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

export function readList(value: unknown): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && value.startsWith('[')) {
    const parsed = parseJsonText(value);
    return Array.isArray(parsed) ? parsed : undefined;
  }
  return undefined;
}

export function readObject(value: unknown): Readonly<Record<string, unknown>> | undefined {
  const parsed = typeof value === 'string' && value.startsWith('{') ? parseJsonText(value) : value;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/**
 * A JSON field's value as `search` looks into it: JSON text (as a store keeps it) parsed, so that a match lies within
 * one string, key, number or boolean of the document, not in its quotes, escapes or punctuation; text that does not
 * parse stays as it is.
 */
export function jsonDocument(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const parsed = parseJsonText(value);
  return parsed === undefined ? value : parsed;
}

/**
 * Whether any string, key, number or boolean inside `value` contains `needle` (already lower case), ignoring case.
 * The walk keeps its own stack, so a document nested any depth is searched, never a stack overflow.
 */
export function containsText(value: unknown, needle: string): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') {
      if (node.toLowerCase().includes(needle)) return true;
    } else if (typeof node === 'number' || typeof node === 'boolean') {
      if (String(node).includes(needle)) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const key in node) {
        if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
        if (key.toLowerCase().includes(needle)) return true;
        pending.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** One element of a LIKE pattern: a character, `_` (any one character) or `%` (any run of characters). */
type LikeToken = { readonly kind: 'char'; readonly char: string } | { readonly kind: 'one' } | { readonly kind: 'any' };

/**
 * The matcher of a SQL LIKE pattern: `%` any run of characters, `_` exactly one, `\` escapes the next character.
 * Case-sensitive and anchored at both ends, as SQL LIKE is; characters are code points. It keeps only the last `%`
 * to go back to, so a value is decided in at most (value length × pattern length) steps: a RegExp of the pattern
 * backtracked for each `%` and took minutes on a long value that does not match.
 */
export function likeMatcher(pattern: string): (value: string) => boolean {
  const tokens: LikeToken[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '\\' && i + 1 < chars.length) tokens.push({ kind: 'char', char: chars[++i]! });
    else if (char === '%') {
      if (tokens.at(-1)?.kind !== 'any') tokens.push({ kind: 'any' });
    } else if (char === '_') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', char });
  }
  return (value) => {
    const text = Array.from(value);
    let t = 0;
    let p = 0;
    // the last `%` met, and where in the value its run ends for now
    let any = -1;
    let anyEnd = 0;
    while (t < text.length) {
      const token = tokens[p];
      if (token !== undefined && (token.kind === 'one' || (token.kind === 'char' && token.char === text[t]))) {
        t += 1;
        p += 1;
      } else if (token?.kind === 'any') {
        any = p;
        anyEnd = t;
        p += 1;
      } else if (any >= 0) {
        // let the last `%` take one more character, and match the rest of the pattern from there
        anyEnd += 1;
        t = anyEnd;
        p = any + 1;
      } else {
        return false;
      }
    }
    while (tokens[p]?.kind === 'any') p += 1;
    return p === tokens.length;
  };
}

/** How a metadata value compares with a literal: scalars by their text, objects by their JSON. */
export function metadataText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The score of one feedback_stats entry: its `avg`, or the entry itself when it is a number. */
export function feedbackScore(entry: unknown): number | undefined {
  if (typeof entry === 'number') return entry;
  return typeof entry === 'object' && entry !== null ? readNumber((entry as { avg?: unknown }).avg) : undefined;
}
