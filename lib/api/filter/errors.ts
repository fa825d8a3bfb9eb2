/**
 * The one error of the filter language. Every problem, from a stray character to a value of the wrong type, is a
 * FilterSyntaxError that names the offending position and shows it under a caret, so the same message reads well
 * in a terminal, a Terraform diagnostic and an HTTP 422 body.
 */

/** What went wrong, as a stable code a caller can branch on. */
export type FilterErrorCode =
  | 'unexpected_character'
  | 'unterminated_string'
  | 'invalid_escape'
  | 'invalid_number'
  | 'unexpected_token'
  | 'unexpected_end'
  | 'trailing_input'
  | 'too_deep'
  | 'unknown_operator'
  | 'unknown_field'
  | 'arity'
  | 'operator_not_applicable'
  | 'type_mismatch'
  | 'invalid_value';

/** The facts of one filter error, without its rendering. */
export interface FilterErrorDetails {
  /** What went wrong. */
  readonly code: FilterErrorCode;
  /** One-line description, without the location (for example `unknown field "run_typ"`). */
  readonly reason: string;
  /** 0-based offset in the expression (UTF-16 code units) where the problem starts. */
  readonly position: number;
  /** What the parser expected there, when it can say (for example `")" or ","`). */
  readonly expected?: string;
  /** What it found there (for example `identifier run_typ` or `end of input`). */
  readonly actual: string;
  /** A hint appended after the reason (for example `did you mean "run_type"?`). */
  readonly hint?: string;
}

const MAX_SHOWN_LINE = 100;
const CONTEXT_BEFORE = 40;

export class FilterSyntaxError extends Error {
  override readonly name = 'FilterSyntaxError';
  /** What went wrong. */
  readonly code: FilterErrorCode;
  /** One-line description without location or caret. */
  readonly reason: string;
  /** 0-based offset of the problem in `expression`. */
  readonly position: number;
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column of the problem within its line. */
  readonly column: number;
  /** What was expected at the position, when known. */
  readonly expected: string | undefined;
  /** What was found at the position. */
  readonly actual: string;
  /** A suggestion, when there is one. */
  readonly hint: string | undefined;
  /** The whole expression that failed. */
  readonly expression: string;

  constructor(expression: string, details: FilterErrorDetails) {
    const { line, column, lineText } = locate(expression, details.position);
    const where = line > 1 ? `position ${details.position} (line ${line}, column ${column})` : `position ${details.position}`;
    const headline = `filter: ${details.reason} at ${where}${details.hint ? `; ${details.hint}` : ''}`;
    super(`${headline}\n${caretLines(lineText, column - 1)}`);
    this.code = details.code;
    this.reason = details.reason;
    this.position = details.position;
    this.line = line;
    this.column = column;
    this.expected = details.expected;
    this.actual = details.actual;
    this.hint = details.hint;
    this.expression = expression;
  }
}

function locate(text: string, position: number): { line: number; column: number; lineText: string } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  const newline = text.indexOf('\n', lineStart);
  const lineText = text.slice(lineStart, newline === -1 ? text.length : newline).replace(/\r$/, '');
  return { line, column: position - lineStart + 1, lineText };
}

/** The offending line, cut to a window around the position when long, with a caret under the position. */
function caretLines(lineText: string, offset: number): string {
  let shown = lineText.replace(/\t/g, ' ');
  let caretAt = offset;
  if (shown.length > MAX_SHOWN_LINE) {
    const start = Math.max(0, Math.min(offset - CONTEXT_BEFORE, shown.length - MAX_SHOWN_LINE));
    const end = start + MAX_SHOWN_LINE;
    const head = start > 0 ? '…' : '';
    shown = head + shown.slice(start, end) + (end < lineText.length ? '…' : '');
    caretAt = offset - start + head.length;
  }
  return `  ${shown}\n  ${' '.repeat(caretAt)}^`;
}

/** Edit distance between two short names, for "did you mean" hints. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(previous[j] + 1, previous[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length];
}

/** `did you mean "x"?` for the closest candidate within a small edit distance, else undefined. */
export function suggest(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? undefined : `did you mean "${best}"?`;
}
