/**
 * Durations and the `timeouts` attribute (as terraform-plugin-framework-timeouts has it): an optional nested object
 * with one duration string per operation, defaults kept in code, checked at validate time.
 */
import type { NestedAttribute, StringAttribute } from './schema';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/** The longest time a Node timer waits (about 24.8 days): a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Parses a duration as Go writes them (`45s`, `30m`, `1h30m`, `1.5h`, `500ms`) into whole milliseconds (rounded up,
 * at most {@link MAX_TIMER_MS}: timers take neither fractions nor more); undefined if malformed.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  if (!s) return undefined;
  let pos = 0;
  let total = 0;
  while (pos < s.length) {
    PART.lastIndex = pos;
    const m = PART.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = PART.lastIndex;
  }
  // less a nanosecond, so that the float error of 1.1h (3960000.0000000005) does not add a millisecond
  return Math.min(Math.ceil(total - 1e-6), MAX_TIMER_MS);
}

/** The validation message for a malformed or zero duration (a time limit that nothing can meet), or undefined. */
export function durationProblem(text: string): string | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) return `${JSON.stringify(text)} is not a duration: write a number with a unit, e.g. "45s", "30m" or "1h30m"`;
  return ms > 0 ? undefined : `${JSON.stringify(text)} leaves no time at all: give a duration above zero, e.g. "45s", "30m" or "1h30m"`;
}

/** Formats milliseconds the way users write durations (`1h30m`, `45s`, `250ms`). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}

/** The operations a resource can bound. */
export type TimeoutOperation = 'create' | 'read' | 'update' | 'delete';

/** Default durations per operation, e.g. `{ create: '30m', delete: '15m' }`. */
export type TimeoutDefaults = Partial<Record<TimeoutOperation, string>>;

type TimeoutFields<D extends TimeoutDefaults> = { readonly [K in keyof D]: StringAttribute & { kind: 'string'; optional: true } };

/** The `timeouts` attribute, carrying its defaults. */
export type TimeoutsAttribute<D extends TimeoutDefaults> = NestedAttribute<'single', TimeoutFields<D>> & {
  optional: true;
  /** Defaults used when the configuration leaves an operation out. */
  readonly defaults: D;
};

/** A `timeouts` attribute with one optional duration per operation in `defaults`. */
export function timeoutsAttribute<const D extends TimeoutDefaults>(defaults: D): TimeoutsAttribute<D> {
  const fields = Object.fromEntries(
    Object.entries(defaults).map(([op, fallback]) => [
      op,
      {
        kind: 'string',
        optional: true,
        description: `How long ${op} may take, e.g. "30s", "10m", "1h30m". Default: \`${fallback}\`.`,
        validate: durationProblem,
      } satisfies StringAttribute,
    ]),
  ) as unknown as TimeoutFields<D>;
  const ops = Object.entries(defaults).map(([op, d]) => `${op} ${d}`).join(', ');
  return {
    kind: 'nested',
    nesting: 'single',
    optional: true,
    description: `Time limits of the operations (defaults: ${ops}). When one runs out, the operation fails and says what it was waiting for (the last status it saw, where the object has one).`,
    attributes: fields,
    defaults,
  };
}

/** Milliseconds allowed for `operation`: the configured duration, else the attribute's default. */
export function timeoutMs<D extends TimeoutDefaults>(
  value: { readonly [K in keyof D]?: string | null } | null | undefined,
  operation: keyof D & TimeoutOperation,
  attribute: TimeoutsAttribute<D>,
): number {
  const configured = value?.[operation];
  const text = configured ?? attribute.defaults[operation];
  const ms = text === undefined ? undefined : parseDuration(text);
  if (ms === undefined) throw new Error(`no valid ${operation} timeout (${JSON.stringify(text)})`);
  return ms;
}
