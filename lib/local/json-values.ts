/**
 * Limits the platform keeps on the JSON values it is sent: how deeply objects and arrays may nest (the agent server's
 * bodies and the trace store's runs share one limit), and which strings it can store (well-formed Unicode). Both walks
 * keep their own stack, so a value nested any depth is measured, not a stack overflow.
 */

/**
 * How many levels of objects and arrays one JSON value the platform stores may have (`{}` is one level,
 * `{"a": [1]}` two). A much deeper value could not be written back (`JSON.stringify` runs out of stack near 5,000
 * levels), so a deep one is refused where it is sent, with the field named, rather than failing when it is stored.
 */
export const MAX_JSON_DEPTH = 500;

/** The message part of a value nested deeper than {@link MAX_JSON_DEPTH}: what is wrong and what to do. */
export const TOO_DEEP = `nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays; flatten it, or send the deep part as a JSON string`;

/**
 * How many levels of objects and arrays a request body may have as a whole. Far beyond {@link MAX_JSON_DEPTH}, so that
 * a value only somewhat too deep is refused at its field, by name; a deeper body is refused on its text, before it is
 * parsed: a million nested arrays (2 MB) would otherwise build a million arrays, and every walk of the value and every
 * path into it would be a million steps long.
 */
export const MAX_BODY_DEPTH = 10_000;

/** The message part of a body nested deeper than {@link MAX_BODY_DEPTH}. */
export const BODY_TOO_DEEP = `the body is nested too deeply: at most ${MAX_BODY_DEPTH} levels of objects and arrays as a whole (${MAX_JSON_DEPTH} in a stored value); flatten it, or send the deep part as a JSON string`;

/**
 * Whether JSON text has more than `limit` levels of objects and arrays, read on the text (brackets in strings do not
 * count): one pass, which stops where the limit is passed. Text that is not JSON is measured all the same; its parse
 * tells what is wrong with it.
 */
export function exceedsJsonTextDepth(text: string, limit: number): boolean {
  // more levels than that take more opening brackets than the text has characters
  if (text.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // to the closing quote, found by indexOf (most of a large body is text): one after an odd run of backslashes
      // is escaped
      for (;;) {
        const close = text.indexOf('"', i + 1);
        if (close < 0) return false;
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
        i = close;
        if (backslashes % 2 === 0) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** Whether `value` has more than `limit` levels of objects and arrays. */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, above] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (above + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child, above + 1]);
    }
  }
  return false;
}

/** A container in a JSON value, linked to its parent: the path is spelt out only for a value that is refused. */
interface Place {
  readonly node: object;
  readonly key: string | number | undefined;
  readonly parent: Place | undefined;
}

/** A lone surrogate: with the `u` flag a pair is read as one code point, which is no surrogate. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Whether a string is well-formed Unicode (no lone UTF-16 surrogate). */
const isWellFormedText = (text: string): boolean => !LONE_SURROGATE.test(text);

/** `text` with each lone surrogate replaced by U+FFFD (the replacement character). */
export const wellFormedText = (text: string): string => text.replace(/\p{Surrogate}/gu, '\uFFFD');

/**
 * A parsed JSON value with each lone surrogate of its strings and keys replaced by U+FFFD, changed in place (an object
 * with such a key is rebuilt, its keys in their order). Walked with a stack of its own, as deep as the value goes.
 */
export function withWellFormedText(value: unknown): unknown {
  const root: Record<string, unknown> = { value };
  const pending: [Record<string | number, unknown>, string | number][] = [[root, 'value']];
  for (let slot = pending.pop(); slot !== undefined; slot = pending.pop()) {
    const [holder, key] = slot;
    const node = holder[key];
    if (typeof node === 'string') {
      if (!isWellFormedText(node)) holder[key] = wellFormedText(node);
    } else if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) pending.push([node as unknown as Record<number, unknown>, index]);
    } else if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node);
      let object = node as Record<string, unknown>;
      if (!keys.every(isWellFormedText)) {
        const source = object;
        holder[key] = object = Object.fromEntries(keys.map((name) => [wellFormedText(name), source[name]]));
      }
      for (const name of Object.keys(object)) pending.push([object, name]);
    }
  }
  return root.value;
}

/** The path of `last` in `place`: collected leaf to root and turned once, so a long path costs its length only. */
const pathOf = (place: Place, last: string | number): (string | number)[] => {
  const path: (string | number)[] = [last];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
};

/**
 * The path of a string or object key in `value` that is not well-formed Unicode (it holds a lone UTF-16 surrogate,
 * as a JSON escape such as `\ud800` can give), or undefined when every one is. Such text cannot be stored: SQLite
 * keeps UTF-8, and each lone surrogate would come back as U+FFFD. A key is reported at its own path; a top-level
 * string at the empty path.
 */
export function malformedTextPath(value: unknown): (string | number)[] | undefined {
  if (typeof value === 'string') return isWellFormedText(value) ? undefined : [];
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: Place[] = [{ node: value, key: undefined, parent: undefined }];
  for (let place = pending.pop(); place !== undefined; place = pending.pop()) {
    const entries: [string | number, unknown][] = Array.isArray(place.node) ? [...place.node.entries()] : Object.entries(place.node);
    for (const [key, child] of entries) {
      if ((typeof key === 'string' && !isWellFormedText(key)) || (typeof child === 'string' && !isWellFormedText(child))) {
        return pathOf(place, key);
      }
      if (typeof child === 'object' && child !== null) pending.push({ node: child, key, parent: place });
    }
  }
  return undefined;
}

/**
 * Whether JSON text may hold a lone surrogate: only a `\uD800`–`\uDFFF` escape can give one (text decoded from UTF-8
 * holds none), so a body without such an escape needs no walk.
 */
export const mayHoldSurrogates = (jsonText: string): boolean => /\\u[dD][89a-fA-F]/.test(jsonText);
