/** Checks shared by the constructs' validation; each returns the message for a bad value, or undefined. */
import { httpUrlProblem as urlProblemOf } from '../api/urls';
import { Duration } from './duration';
import { messages } from './errors';

/** Why `value` is not an absolute http(s) URL: for the URLs the provider itself calls, which must be. */
export function httpUrlProblem(value: string): string | undefined {
  // the platform's own check, so that what synthesizes is what the platform takes
  switch (urlProblemOf(value)) {
    case undefined:
      return undefined;
    case 'user-info':
      return messages.urlWithUserInfo();
    default:
      return messages.notHttpUrl(value);
  }
}

/**
 * Why a URL given to the platform cannot be kept: a user name or password in it would be written as it is into the
 * synthesized stack and the state. No platform rule, but a secret may ride in neither.
 */
export function urlUserInfoProblem(value: string): string | undefined {
  return urlProblemOf(value) === 'user-info' ? messages.urlWithUserInfo() : undefined;
}

/** Why a URL given to the platform is of a form the platform may refuse (the spec states no form): a warning. */
export function unusualUrl(value: string): string | undefined {
  return urlProblemOf(value) === 'not-http-url' ? messages.notHttpUrl(value) : undefined;
}

/** Why a value is not a boolean (apps written in JavaScript have no compiler to say it). */
export function booleanProblem(value: unknown): string | undefined {
  return typeof value === 'boolean' ? undefined : messages.notBoolean(value);
}

/** A check that a number is whole and within `[min, max]`. */
export function wholeNumberProblem(min: number, max?: number): (value: number) => string | undefined {
  return (value) => (typeof value === 'number' && Number.isInteger(value) && value >= min && (max === undefined || value <= max) ? undefined : messages.notWholeNumber(value, min, max));
}

/** Why a value is not a number (apps written in JavaScript have no compiler to say it; the provider types it). */
export function numberProblem(value: unknown): string | undefined {
  return typeof value === 'number' ? undefined : messages.notNumber(value);
}

/** Why a number is not whole, for a count the spec does not type (replicas, MiB): a warning. */
export function fractionProblem(value: number): string | undefined {
  return typeof value !== 'number' || Number.isInteger(value) ? undefined : messages.notInteger(value);
}

/** Why a duration is not longer than zero (a token duration passes). */
export function positiveDurationProblem(value: Duration): string | undefined {
  if (!(value instanceof Duration)) return messages.notDuration(value);
  if (value.isUnresolved()) return undefined;
  const seconds = value.toSeconds();
  // NaN and Infinity are no durations Terraform can read (they were written as "NaNs")
  return Number.isFinite(seconds) && seconds > 0 ? undefined : messages.notPositiveDuration(value.toString());
}
