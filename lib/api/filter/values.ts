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

/** `_` in a segment of a LIKE pattern: any one character (code point). */
const ONE = -1;

/**
 * A run of a LIKE pattern between two `%`: code points and {@link ONE}s; its text when it has no `_`, else the masks
 * of its bit-parallel scan (bit k of a character's mask: item k takes that character; `any` for any other character).
 */
interface LikeSegment {
  readonly items: readonly number[];
  readonly text: string | undefined;
  readonly any: Uint32Array;
  readonly masks: ReadonlyMap<number, Uint32Array>;
}

function likeSegment(items: readonly number[]): LikeSegment {
  if (!items.includes(ONE)) return { items, text: items.map((code) => String.fromCodePoint(code)).join(''), any: new Uint32Array(0), masks: new Map() };
  const any = new Uint32Array(Math.ceil(items.length / 32));
  items.forEach((item, k) => {
    if (item === ONE) any[k >>> 5] |= 1 << (k & 31);
  });
  const masks = new Map<number, Uint32Array>();
  items.forEach((item, k) => {
    if (item === ONE) return;
    let mask = masks.get(item);
    if (!mask) masks.set(item, (mask = Uint32Array.from(any)));
    mask[k >>> 5] |= 1 << (k & 31);
  });
  return { items, text: undefined, any, masks };
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
/** Whether UTF-16 offset `at` of `value` falls inside a surrogate pair (one character). */
const splitsPair = (value: string, at: number): boolean =>
  at > 0 && at < value.length && isLow(value.charCodeAt(at)) && isHigh(value.charCodeAt(at - 1));

/** The end of `segment` matched at offset `at` of `value`, or -1. */
function matchAt(value: string, at: number, segment: LikeSegment): number {
  let i = at;
  for (const item of segment.items) {
    if (i >= value.length) return -1;
    const code = value.codePointAt(i)!;
    if (item !== ONE && item !== code) return -1;
    i += code > 0xffff ? 2 : 1;
  }
  return i;
}

/** The offset `count` characters before the end of `value`, or -1 when it has fewer. */
function startBeforeEnd(value: string, count: number): number {
  let i = value.length;
  for (let n = 0; n < count; n++) {
    if (i <= 0) return -1;
    i -= 1;
    if (splitsPair(value, i)) i -= 1;
  }
  return i;
}

/**
 * The end of the leftmost match of `segment` in `value` from `from` that ends by `limit`, or -1. A segment without `_`
 * is found by `indexOf`; one with `_` by a bit-parallel scan (shift-and), one pass over the value whose steps cost
 * one machine word per 32 characters of the segment: never a step per pair of value and pattern characters.
 */
function findSegment(value: string, from: number, limit: number, segment: LikeSegment): number {
  if (segment.text !== undefined) {
    let at = value.indexOf(segment.text, from);
    while (at >= 0 && (splitsPair(value, at) || splitsPair(value, at + segment.text.length))) at = value.indexOf(segment.text, at + 1);
    return at < 0 || at + segment.text.length > limit ? -1 : at + segment.text.length;
  }
  const { items, any, masks } = segment;
  const length = items.length;
  const words = any.length;
  const lastWord = words - 1;
  const lastBit = 1 << ((length - 1) & 31);
  // bit k of the state: the last k + 1 characters read match the first k + 1 items
  const state = new Uint32Array(words);
  for (let i = from; i < limit; ) {
    const code = value.codePointAt(i)!;
    i += code > 0xffff ? 2 : 1;
    const mask = masks.get(code) ?? any;
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const word = state[w]!;
      state[w] = ((word << 1) | carry) & mask[w]!;
      carry = word >>> 31;
    }
    if ((state[lastWord]! & lastBit) !== 0) return i;
  }
  return -1;
}

/**
 * The matcher of a SQL LIKE pattern: `%` any run of characters, `_` exactly one, `\` escapes the next character.
 * Case-sensitive and anchored at both ends, as SQL LIKE is; characters are code points. The pattern is cut at its
 * `%`s: the first run must match at the start, the last at the end, and each one between at its leftmost place after
 * the one before (taking it there leaves the most room for the rest). So a value is read about once per run, and no
 * step pairs each character of the value with each of the pattern: an earlier matcher that went back to the last `%`
 * took 16 s for a pattern of 20,000 characters on a value of 200,000.
 */
export function likeMatcher(pattern: string): (value: string) => boolean {
  const segments: LikeSegment[] = [];
  let items: number[] = [];
  const close = (): void => {
    segments.push(likeSegment(items));
    items = [];
  };
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '\\' && i + 1 < chars.length) items.push(chars[++i]!.codePointAt(0)!);
    else if (char === '%') close();
    else if (char === '_') items.push(ONE);
    else items.push(char.codePointAt(0)!);
  }
  close();
  const [first, ...rest] = segments as [LikeSegment, ...LikeSegment[]];
  const last = rest.pop();
  return (value) => {
    const afterFirst = matchAt(value, 0, first);
    if (afterFirst < 0) return false;
    if (last === undefined) return afterFirst === value.length;
    const lastStart = startBeforeEnd(value, last.items.length);
    if (lastStart < afterFirst || matchAt(value, lastStart, last) !== value.length) return false;
    let at = afterFirst;
    for (const segment of rest) {
      if (segment.items.length === 0) continue;
      at = findSegment(value, at, lastStart, segment);
      if (at < 0) return false;
    }
    return true;
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
