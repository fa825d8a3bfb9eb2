/**
 * Where a malformed JSON text goes wrong, as the offset Python's `json` module reports (`JSONDecodeError.pos`), which
 * FastAPI puts in a `json_invalid` error's `loc`: the start of a value that is not one, the character where a `,`, a
 * `:` or a closing bracket was expected, the end of a text cut short, or the first character after a whole value.
 * Node's own messages name no position for most mistakes. Used on the error path only.
 */

/** Nesting deeper than this is reported where it goes deeper (the scan is recursive). */
const MAX_DEPTH = 1000;

class Failure {
  constructor(readonly at: number) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The offset of the first mistake in `text`, or -1 when it is valid JSON. */
export function jsonErrorPosition(text: string): number {
  let i = 0;
  const fail = (at: number): never => {
    throw new Failure(at);
  };
  const space = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const string = (): void => {
    const start = i++;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 0x22) {
        i++;
        return;
      }
      if (code === 0x5c) {
        const escape = text[i + 1];
        if (escape === 'u' && HEX4.test(text.slice(i + 2, i + 6))) i += 6;
        else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) i += 2;
        else fail(i);
      } else if (code < 0x20) {
        fail(i);
      } else {
        i++;
      }
    }
    fail(start);
  };
  const value = (depth: number): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (depth >= MAX_DEPTH) fail(i);
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === '{') {
          space();
          if (text[i] !== '"') fail(i);
          string();
          space();
          if (text[i] !== ':') fail(i);
          i++;
        }
        value(depth + 1);
        space();
        if (text[i] === ',') i++;
        else if (text[i] === close) return void i++;
        else fail(i);
      }
    }
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) return void (i += word.length);
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    fail(i);
  };
  try {
    value(0);
    space();
    return i < text.length ? i : -1;
  } catch (err) {
    if (err instanceof Failure) return err.at;
    throw err;
  }
}
