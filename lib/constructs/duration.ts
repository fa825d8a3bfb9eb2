import { Op, Token } from 'cdktf';

type TimeUnit = 'seconds' | 'minutes' | 'hours' | 'days';

const SECONDS_PER: Record<TimeUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/**
 * A length of time, as aws-cdk's `Duration`: `Duration.hours(24)`, `Duration.minutes(30)`. The amount may be a
 * number token (a `TerraformVariable`); such a duration converts to other units by a Terraform expression.
 */
export class Duration {
  /** A duration of `amount` seconds. */
  static seconds(amount: number): Duration {
    return new Duration(amount, 'seconds');
  }

  /** A duration of `amount` minutes. */
  static minutes(amount: number): Duration {
    return new Duration(amount, 'minutes');
  }

  /** A duration of `amount` hours. */
  static hours(amount: number): Duration {
    return new Duration(amount, 'hours');
  }

  /** A duration of `amount` days. */
  static days(amount: number): Duration {
    return new Duration(amount, 'days');
  }

  private constructor(
    private readonly amount: number,
    private readonly unit: TimeUnit,
  ) {}

  /** Whether the amount is a token that Terraform resolves later. */
  isUnresolved(): boolean {
    return Token.isUnresolved(this.amount);
  }

  /** The duration in seconds. */
  toSeconds(): number {
    return this.convert('seconds');
  }

  /** The duration in hours (fractional when it is not a whole number of hours). */
  toHours(): number {
    return this.convert('hours');
  }

  /** The duration in days (fractional when it is not a whole number of days). */
  toDays(): number {
    return this.convert('days');
  }

  /**
   * The duration as Terraform `timeouts` blocks write it: `"2h"`, `"90m"`, `"45s"` (the largest unit that divides
   * it evenly).
   */
  toTerraformString(): string {
    // a token in days is written in hours: Terraform's durations have no day unit
    if (this.isUnresolved()) return this.unit === 'days' ? `${Token.asString(this.toHours())}h` : `${Token.asString(this.amount)}${this.unit[0]}`;
    const seconds = this.toSeconds();
    if (seconds % 3600 === 0) return `${seconds / 3600}h`;
    if (seconds % 60 === 0) return `${seconds / 60}m`;
    return `${seconds}s`;
  }

  /** Readable form for messages, e.g. `24 hours`. */
  toString(): string {
    return this.isUnresolved() ? `<token> ${this.unit}` : `${this.amount} ${this.amount === 1 ? this.unit.slice(0, -1) : this.unit}`;
  }

  private convert(to: TimeUnit): number {
    if (to === this.unit) return this.amount;
    const [from, into] = [SECONDS_PER[this.unit], SECONDS_PER[to]];
    if (this.isUnresolved()) return from > into ? Op.mul(this.amount, from / into) : Op.div(this.amount, into / from);
    return (this.amount * from) / into;
  }
}
