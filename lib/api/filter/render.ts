/**
 * Renders a filter AST as its canonical text: `op(arg, arg)` with ", " between arguments, strings in double
 * quotes, numbers in their shortest JavaScript form. `parseFilter(renderFilter(expr))` gives back `expr`.
 */
import type { FilterExpr, FilterScalar } from './parser';

const ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A double-quoted string literal of the filter language. */
export function renderString(text: string): string {
  return `"${text.replace(/["\\\u0000-\u001f\u007f]/g, (char) => ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function renderScalar(value: FilterScalar | null): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return renderString(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  return String(value);
}

export function renderFilter(expr: FilterExpr): string {
  switch (expr.op) {
    case 'and':
    case 'or':
      return `${expr.op}(${expr.args.map(renderFilter).join(', ')})`;
    case 'not':
      return `not(${renderFilter(expr.arg)})`;
    case 'in':
      return `in(${expr.field}, [${expr.values.map(renderScalar).join(', ')}])`;
    case 'has':
      return `has(${expr.field}, ${renderString(expr.value)})`;
    case 'like':
      return `like(${expr.field}, ${renderString(expr.pattern)})`;
    case 'search':
      return expr.field === undefined ? `search(${renderString(expr.text)})` : `search(${expr.field}, ${renderString(expr.text)})`;
    default:
      return `${expr.op}(${expr.field}, ${renderScalar(expr.value)})`;
  }
}
