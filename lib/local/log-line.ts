/**
 * What the platform's log prints of a line: one entry is one line, whatever it quotes. Request paths are URL-decoded
 * and error messages may quote what a request sent, so a request could otherwise write a line of its own into the
 * log (a newline) or drive the terminal that shows it (an escape sequence).
 */

/** Control characters (C0, DEL, C1), line and paragraph separators, bidirectional overrides, and the backslash. */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\\\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * `line` with every control character escaped as in a JavaScript string (`\n`, `\x1b`, `\u202e`); a backslash is
 * doubled, so that an escape in the log always stands for one character of the line.
 */
export function escapeLogLine(line: string): string {
  return line.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return SHORT[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
