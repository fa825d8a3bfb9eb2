/**
 * Tokens of the filter language: identifiers, quoted strings, numbers and the punctuation `( ) [ ] ,`.
 * Every token keeps its offset so that later errors can point at it.
 */
import { FilterSyntaxError } from './errors';

export type TokenKind = 'ident' | 'string' | 'number' | 'lparen' | 'rparen' | 'lbracket' | 'rbracket' | 'comma' | 'eof';

export interface Token {
  /** What the token is. */
  readonly kind: TokenKind;
  /** 0-based offset of its first character. */
  readonly start: number;
  /** Offset just past its last character. */
  readonly end: number;
  /** Identifier name, decoded string contents, or number source text; empty for punctuation. */
  readonly text: string;
  /** Numeric value of a number token; NaN otherwise. */
  readonly value: number;
}

const PUNCTUATION: Readonly<Record<string, TokenKind>> = {
  '(': 'lparen',
  ')': 'rparen',
  '[': 'lbracket',
  ']': 'rbracket',
  ',': 'comma',
};

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  "'": "'",
  n: '\n',
  r: '\r',
  t: '\t',
  '/': '/',
};

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const WHITESPACE = /\s/;

/** How a token reads in an error message (`identifier run_typ`, `string "llm"`, `")"`, `end of input`). */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'ident':
      return `identifier ${token.text}`;
    case 'string':
      return `string ${JSON.stringify(token.text)}`;
    case 'number':
      return `number ${token.text}`;
    case 'eof':
      return 'end of input';
    default:
      return `"${KIND_TEXT[token.kind]}"`;
  }
}

const KIND_TEXT: Readonly<Partial<Record<TokenKind, string>>> = {
  lparen: '(',
  rparen: ')',
  lbracket: '[',
  rbracket: ']',
  comma: ',',
};

/** Splits `source` into tokens, ending with one `eof` token. Throws FilterSyntaxError on a malformed token. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, start: number, end: number, text = '', value = Number.NaN): void => {
    tokens.push({ kind, start, end, text, value });
  };
  while (i < source.length) {
    const char = source[i];
    if (WHITESPACE.test(char)) {
      i++;
    } else if (PUNCTUATION[char] !== undefined) {
      push(PUNCTUATION[char], i, i + 1);
      i++;
    } else if (char === '"' || char === "'") {
      const { text, end } = readString(source, i);
      push('string', i, end, text);
      i = end;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(source);
      const end = match ? i + match[0].length : i;
      if (!match || (end < source.length && (IDENT_PART.test(source[end]) || source[end] === '.'))) {
        const stop = scanWord(source, i + 1);
        throw new FilterSyntaxError(source, {
          code: 'invalid_number',
          reason: `invalid number "${source.slice(i, stop)}"`,
          position: i,
          expected: 'a number such as 42, -3 or 0.25',
          actual: source.slice(i, stop),
        });
      }
      push('number', i, end, match[0], Number(match[0]));
      i = end;
    } else if (IDENT_START.test(char)) {
      const end = scanWord(source, i + 1);
      push('ident', i, end, source.slice(i, end));
      i = end;
    } else {
      throw new FilterSyntaxError(source, {
        code: 'unexpected_character',
        reason: `unexpected character ${JSON.stringify(char)}`,
        position: i,
        expected: 'an operator, a field name, a value, "(", ")", "[", "]" or ","',
        actual: JSON.stringify(char),
      });
    }
  }
  push('eof', source.length, source.length);
  return tokens;
}

function scanWord(source: string, from: number): number {
  let end = from;
  while (end < source.length && (IDENT_PART.test(source[end]) || source[end] === '.')) end++;
  return end;
}

function readString(source: string, start: number): { text: string; end: number } {
  const quote = source[start];
  let text = '';
  let i = start + 1;
  while (i < source.length) {
    const char = source[i];
    if (char === quote) return { text, end: i + 1 };
    if (char === '\\') {
      const escaped = source[i + 1];
      if (escaped !== undefined && SIMPLE_ESCAPES[escaped] !== undefined) {
        text += SIMPLE_ESCAPES[escaped];
        i += 2;
        continue;
      }
      if (escaped === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        text += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      if (escaped === undefined) break;
      throw new FilterSyntaxError(source, {
        code: 'invalid_escape',
        reason: `invalid escape sequence "\\${escaped}" in string`,
        position: i,
        expected: 'one of \\\\ \\" \\\' \\n \\r \\t \\/ \\uXXXX',
        actual: `\\${escaped}`,
        hint: 'write a literal backslash as \\\\',
      });
    }
    text += char;
    i++;
  }
  throw new FilterSyntaxError(source, {
    code: 'unterminated_string',
    reason: 'unterminated string',
    position: start,
    expected: `a closing ${quote}`,
    actual: 'end of input',
  });
}
