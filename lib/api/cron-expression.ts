/**
 * Standard five-field cron expressions (`minute hour day-of-month month day-of-week`, UTC): `*`, values, ranges
 * `a-b`, steps `*\/n` and `a-b/n`, lists `a,b`, month and day names (`jan`, `mon`), 7 as Sunday. As in cron, when
 * both day fields are restricted a day matching either one fires. The local agent server fires crons with it; the
 * provider checks a cron's schedule with it at plan.
 */

/** Thrown for an expression that does not parse, naming the offending field. */
export class CronExpressionError extends Error {
  override readonly name = 'CronExpressionError';
}

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const MINUTE_MS = 60_000;
/** Schedules that never fire (for example February 30) are searched this far ahead before giving up. */
const SEARCH_HORIZON_MS = 5 * 366 * 24 * 60 * MINUTE_MS;

/** A parsed cron expression. */
export class CronExpression {
  private constructor(
    private readonly minutes: ReadonlySet<number>,
    private readonly hours: ReadonlySet<number>,
    private readonly daysOfMonth: ReadonlySet<number>,
    private readonly months: ReadonlySet<number>,
    private readonly daysOfWeek: ReadonlySet<number>,
    private readonly domRestricted: boolean,
    private readonly dowRestricted: boolean,
  ) {}

  /** Parses an expression; throws {@link CronExpressionError}. */
  static parse(expression: string): CronExpression {
    const parts = expression.trim().split(/\s+/);
    if (parts.length !== 5) {
      throw new CronExpressionError(
        `a cron expression has 5 fields (minute hour day-of-month month day-of-week); got ${parts.length}`,
      );
    }
    const sets = parts.map((part, index) => parseField(part, FIELDS[index]));
    const daysOfWeek = new Set([...sets[4]].map((day) => day % 7));
    return new CronExpression(sets[0], sets[1], sets[2], sets[3], daysOfWeek, parts[2] !== '*', parts[4] !== '*');
  }

  /** The first time strictly after `afterMs` (epoch ms) that matches, at a whole minute; undefined when none. */
  next(afterMs: number): number | undefined {
    let time = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    const limit = afterMs + SEARCH_HORIZON_MS;
    while (time <= limit) {
      const date = new Date(time);
      if (!this.months.has(date.getUTCMonth() + 1)) {
        time = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
      } else if (!this.dayMatches(date)) {
        time = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
      } else if (!this.hours.has(date.getUTCHours())) {
        time = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours() + 1);
      } else if (!this.minutes.has(date.getUTCMinutes())) {
        time += MINUTE_MS;
      } else {
        return time;
      }
    }
    return undefined;
  }

  private dayMatches(date: Date): boolean {
    const dom = this.daysOfMonth.has(date.getUTCDate());
    const dow = this.daysOfWeek.has(date.getUTCDay());
    if (this.domRestricted && this.dowRestricted) return dom || dow;
    return dom && dow;
  }
}

function parseField(text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const [range, stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw fieldError(field, item, 'the step must be a positive integer');
    let [low, high] = [field.min, field.max];
    if (range !== '*') {
      const [first, last] = range.split('-');
      low = parseValue(first, field, item);
      high = last === undefined ? (stepText === undefined ? low : field.max) : parseValue(last, field, item);
      if (high < low) throw fieldError(field, item, 'a range must go from low to high');
    }
    for (let value = low; value <= high; value += step) values.add(value);
  }
  return values;
}

function parseValue(text: string, field: Field, item: string): number {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  const value = named >= 0 ? named + (field.name === 'month' ? 1 : 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < field.min || value > field.max) {
    throw fieldError(field, item, `values go from ${field.min} to ${field.max}`);
  }
  return value;
}

function fieldError(field: Field, item: string, why: string): CronExpressionError {
  return new CronExpressionError(`invalid ${field.name} field "${item}": ${why}`);
}

/** Month and weekday names, which every cron implementation reads as the numbers they stand for. */
const NAMES = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat)$/i;

/** Whether a field is in the syntax every cron implementation reads alike: numbers or names, `*`, lists, ranges, steps. */
const plainField = (field: string): boolean => field.split(/[,/-]/).every((part) => part === '*' || /^\d+$/.test(part) || NAMES.test(part));

/**
 * What a check of a cron's schedule finds: `error`, when it is no five-field expression or its fields, all in the
 * plain syntax, are out of range (minute 61 is no minute to any cron); `unread`, when a field is in a syntax this
 * parser does not read (`L`, `W`, `#`, `?`), which an agent server may accept, so that callers warn and never refuse;
 * neither when it parses.
 */
export function checkSchedule(schedule: string): { readonly error?: string; readonly unread?: string } {
  try {
    CronExpression.parse(schedule);
    return {};
  } catch (err) {
    if (!(err instanceof CronExpressionError)) throw err;
    const fields = schedule.trim().split(/\s+/);
    return fields.length === 5 && !fields.every(plainField) ? { unread: err.message } : { error: err.message };
  }
}
