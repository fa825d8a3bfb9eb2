/**
 * What a text says once the escapes servers write are undone, for the redactor (redact.ts) to look for secrets in:
 * HTML and XML character references (named, decimal and hexadecimal), URL escapes (`%xx` of either case, UTF-8
 * sequences, `+` for a space), and the backslash escapes of JSON, JavaScript, Go and Python (`\uXXXX` and `\xXX` of
 * either case, `\UXXXXXXXX`, `\n`, `\/`, `\\`, `\'`, `\"`). Escapes inside escapes (JSON then HTML, URL-encoded
 * twice) are undone too, a few layers deep. Each decoded character keeps the span of the original text it came
 * from, so that what is redacted there is exactly the secret's occurrence, however it was written.
 */

/** A decoded text, with where each of its characters came from. */
export interface DecodedText {
  readonly text: string;
  /** Per character of `text`: the offset in the original text of the first character it was decoded from. */
  readonly starts: Int32Array;
  /** Per character of `text`: the offset in the original text just past the last character it was decoded from. */
  readonly ends: Int32Array;
}

/** Layers of escaping undone at most (a text that still changes after that is left as it is then). */
const MAX_LAYERS = 4;

/** Named references of HTML and XML that stand for characters a secret may hold. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', sol: '/', bsol: '\\', percnt: '%', plus: '+',
  equals: '=', num: '#', colon: ':', semi: ';', excl: '!', quest: '?', commat: '@', dollar: '$', ast: '*', lpar: '(',
  rpar: ')', lsqb: '[', rsqb: ']', lcub: '{', rcub: '}', comma: ',', period: '.', lowbar: '_', verbar: '|', grave: '`',
  Hat: '^', tilde: '~', tab: '\t', NewLine: '\n',
};
/** References HTML also reads without their `;`, and in capitals. */
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'AMP', 'LT', 'GT', 'QUOT']);
const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/y;
const PERCENT = /%([0-9a-fA-F]{2})/y;
const BACKSLASH = /\\(?:u([0-9a-fA-F]{4})|u\{([0-9a-fA-F]{1,6})\}|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|([nrtbf])|([^A-Za-z0-9\s]))/y;
const CONTROL: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

const fromCodePoint = (code: number): string | undefined => (code <= 0x10ffff ? String.fromCodePoint(code) : undefined);

/** An escape at `at`: what it stands for and how long it is; undefined when there is none. */
function escapeAt(text: string, at: number): { value: string; length: number } | undefined {
  const sticky = (pattern: RegExp) => ((pattern.lastIndex = at), pattern.exec(text));
  switch (text[at]) {
    case '+':
      return { value: ' ', length: 1 };
    case '&': {
      const m = sticky(REFERENCE);
      if (!m) return undefined;
      const [whole, decimal, hex, name, semicolon] = m;
      if (name !== undefined) {
        const value = NAMED[name] ?? (LEGACY.has(name) ? NAMED[name.toLowerCase()] : undefined);
        return value !== undefined && (semicolon || LEGACY.has(name)) ? { value, length: whole.length } : undefined;
      }
      const value = fromCodePoint(decimal !== undefined ? Number(decimal) : parseInt(hex!, 16));
      return value === undefined ? undefined : { value, length: whole.length };
    }
    case '%': {
      const m = sticky(PERCENT);
      if (!m) return undefined;
      const lead = parseInt(m[1], 16);
      // a multi-byte UTF-8 character is one character, when its continuation bytes follow as %xx too
      const size = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead <= 0xdf ? 2 : 1;
      if (size > 1) {
        const bytes = [lead];
        for (let next = at + 3; bytes.length < size && (PERCENT.lastIndex = next, PERCENT.exec(text)); next += 3) {
          bytes.push(parseInt(text.slice(next + 1, next + 3), 16));
        }
        try {
          if (bytes.length === size) return { value: utf8.decode(new Uint8Array(bytes)), length: 3 * size };
        } catch {
          // not UTF-8: the byte alone, as Latin-1
        }
      }
      return { value: String.fromCharCode(lead), length: 3 };
    }
    case '\\': {
      const m = sticky(BACKSLASH);
      if (!m) return undefined;
      const [whole, u4, uBraced, u8, x2, control, other] = m;
      const hex = u4 ?? uBraced ?? u8 ?? x2;
      const value = hex !== undefined ? fromCodePoint(parseInt(hex, 16)) : control !== undefined ? CONTROL[control] : other;
      return value === undefined ? undefined : { value, length: whole.length };
    }
    default:
      return undefined;
  }
}

const ESCAPE_START = /[&%\\+]/g;
const MAYBE_ESCAPED = /[&%\\+]/;

/** One layer of escapes undone; `starts`/`ends` map into `text`. */
function decodeLayer(text: string): DecodedText {
  const parts: string[] = [];
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let n = 0;
  let from = 0;
  const copy = (to: number) => {
    parts.push(text.slice(from, to));
    for (let at = from; at < to; at++, n++) (starts[n] = at), (ends[n] = at + 1);
  };
  ESCAPE_START.lastIndex = 0;
  for (let m = ESCAPE_START.exec(text); m; m = ESCAPE_START.exec(text)) {
    const escape = escapeAt(text, m.index);
    if (!escape) continue;
    copy(m.index);
    parts.push(escape.value);
    for (let i = 0; i < escape.value.length; i++, n++) (starts[n] = m.index), (ends[n] = m.index + escape.length);
    from = ESCAPE_START.lastIndex = m.index + escape.length;
  }
  copy(text.length);
  return { text: parts.join(''), starts: starts.subarray(0, n), ends: ends.subarray(0, n) };
}

/** `text` with its escapes undone, layer after layer (see above). */
export function decodeEscapes(text: string): DecodedText {
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  for (let i = 0; i < text.length; i++) (starts[i] = i), (ends[i] = i + 1);
  let decoded: DecodedText = { text, starts, ends };
  for (let layer = 0; layer < MAX_LAYERS && MAYBE_ESCAPED.test(decoded.text); layer++) {
    const next = decodeLayer(decoded.text);
    if (next.text === decoded.text) break;
    // back to the original text: a character spans from the start of its first source to the end of its last
    const from = decoded;
    decoded = { text: next.text, starts: next.starts.map((at) => from.starts[at]), ends: next.ends.map((to) => from.ends[to - 1]) };
  }
  return decoded;
}

/** `text` in lower case, character for character (a character whose lower case is longer stays as it is). */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const c of text) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}
