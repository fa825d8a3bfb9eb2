/**
 * Every message the constructs show their users, in one module (as cdktf's `errors.ts`): each says what was wrong,
 * which prop, and what to do. Validation collects every violation of a construct's props and throws them at once.
 */
import { Annotations, Token } from 'cdktf';
import type { IConstruct } from 'constructs';
import { redactUserInfo } from '../api/urls';
import { Duration } from './duration';

/** One broken rule: the prop (dotted path, as the user wrote it) and what to do about it. */
export interface Violation {
  /** The prop, e.g. `resources.minScale`. */
  readonly prop: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
}

/**
 * An error a construct throws. jsii cannot compile a class that extends `Error` into the other languages (whose own
 * error types the errors become), so the error below extends this one, as aws-cdk-lib's `ValidationError` does.
 */
abstract class ConstructError extends Error {}

/**
 * The props of a construct broke one or more rules; the message lists every one of them. TypeScript and JavaScript
 * apps can catch it by its class; it is `@internal` to jsii, as its other languages see only the message.
 * @internal
 */
export class ConstructValidationError extends ConstructError {
  /** Every violation found. */
  readonly violations: Violation[];

  constructor(construct: string, path: string, violations: Violation[]) {
    const count = violations.length === 1 ? '1 problem' : `${violations.length} problems`;
    super(`Invalid ${construct} "${path}" (${count}):\n${violations.map((v) => `  - ${v.prop}: ${v.message}`).join('\n')}`);
    this.name = 'ConstructValidationError';
    this.violations = violations;
  }
}

/**
 * Collects violations while a construct checks its props. Checks skip values that are tokens (they are only known
 * when Terraform runs), as aws-s3's bucket name validation does.
 */
export class Violations {
  private readonly list: Violation[] = [];

  /** Records a violation. */
  add(prop: string, message: string): void {
    this.list.push({ prop, message });
  }

  /** Records a violation when `value` is known and `problem(value)` returns a message. */
  check<T>(prop: string, value: T | undefined, problem: (value: T) => string | undefined): void {
    if (value === undefined || isToken(value)) return;
    const message = problem(value);
    if (message) this.add(prop, message);
  }

  /** Throws a {@link ConstructValidationError} listing every violation, if there is any. */
  throwIfAny(construct: string, scope: IConstruct): void {
    if (this.list.length) throw new ConstructValidationError(construct, scope.node.path, this.list);
  }
}

/**
 * Warns at synth of a prop that breaks a rule the spec does not state (the local platform's, typically): the real
 * platform may take it, so it is no error, but it may be refused at apply. Tokens are skipped, as in {@link Violations}.
 */
export function warnIfProblem<T>(scope: IConstruct, prop: string, value: T | undefined, problem: (value: T) => string | undefined): void {
  if (value === undefined || isToken(value)) return;
  const message = problem(value);
  if (message) Annotations.of(scope).addWarning(`${prop}: ${message} The platform may refuse it.`);
}

/** Whether a value holds a token anywhere (strings, numbers, lists, durations). */
export function isToken(value: unknown): boolean {
  if (value instanceof Duration) return value.isUnresolved();
  return Token.isUnresolved(value) || (Array.isArray(value) && value.some((v) => Token.isUnresolved(v)));
}

const quote = (value: unknown): string => JSON.stringify(value);

/** Messages by subject. */
export const messages = {
  // ---- cron ----
  cronSchedule: (problem: string) =>
    `${problem}. Write five fields, minute (0-59) hour (0-23) day-of-month (1-31) month (1-12) day-of-week (0-7), in UTC: for example "0 9 * * mon-fri".`,
  // ---- shared ----
  // a user name or password the URL may carry is never quoted
  notHttpUrl: (value: string) => `${quote(redactUserInfo(value))} is not an absolute http:// or https:// URL written in full, with no spaces.`,
  // the value itself is not quoted: it holds a password
  urlWithUserInfo: () =>
    'must not carry a user name or password in the URL, which is kept as written in the synthesized stack and the state: ' +
    "give them where the construct takes secrets (a destination's `credentials`; a private repository is reached through `integrationId`).",
  notWholeNumber: (value: unknown, min: number, max?: number) =>
    `must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}; got ${typeof value === 'number' ? value : `${typeof value} ${quote(value)}`}.`,
  notNumber: (value: unknown) => `must be a number; got ${typeof value} ${quote(value)}.`,
  notInteger: (value: number) => `(${value}) is not a whole number.`,
  belowLeast: (value: number, least: number, strictly: boolean) => `(${value}) is ${strictly ? 'not more than' : 'less than'} ${least}.`,
  notBoolean: (value: unknown) => `must be true or false; got ${typeof value} ${quote(value)}.`,
  notDuration: (value: unknown) => `must be a Duration, e.g. Duration.minutes(30); got ${typeof value} ${quote(value)}.`,
  notList: (value: unknown, example: string) => `must be a list, e.g. ${example}; got ${typeof value} ${quote(value)}.`,
  notPositiveDuration: (value: string) => `must be longer than zero; got ${value}.`,
  empty: () => 'must not be empty.',
  emptyValue: () => 'is empty (is its variable set?).',
  notUuid: (what: string, value: string) => `must be ${what} (a UUID); got ${quote(value)}.`,
  oneOf: (value: string, allowed: readonly string[]) => `must be one of ${allowed.map(quote).join(', ')}; got ${quote(value)}.`,
  plaintextSecret: (what: string) =>
    `${what} is a literal string: it would be written in plain text into cdktf.out and the Terraform plan. ` +
    'Pass a reference instead: a sensitive TerraformVariable, or an attribute of another resource.',

  notWholeDays: (value: string) => `must be a whole number of days, at least 1; got ${value}.`,

  // ---- provider ----
  literalApiKey: () =>
    'apiKey is a literal string: it is written in plain text into cdktf.out. Leave it out and set the ' +
    'AGENTPLATFORM_API_KEY environment variable where Terraform runs, or pass a sensitive TerraformVariable.',

  platformsWithoutRelease: () => 'is only used with providerRelease (the platforms whose executable it installs): give providerRelease too, or leave providerPlatforms out.',
  nodePathWithRelease: () => "is the launcher's Node.js, and providerRelease installs an executable that needs none: leave nodePath out.",
  releaseNotInstalled: () => 'is installed only when installLauncher is not false: leave installLauncher out, or providerRelease.',
  releaseToken: () => 'must be a path on the machine that synthesizes (the release is copied at synth), not a token.',
  platformsToken: () => 'must be a list of platforms such as ["linux_amd64"] known at synth, not a token.',
  releaseVersion: (release: string, versions: readonly string[], version: string) =>
    `${quote(release)} holds version ${versions.join(', ')}, not ${version}, the version this package's provider block requires: ` +
    `give the release of ${version} (npm run release:provider builds it into dist/release/${version}/).`,
  releasePlatforms: (release: string, missing: readonly string[], listed: readonly string[]) =>
    `${quote(release)} has no zip for ${missing.join(', ')} (it has ${listed.join(', ')}): choose among those, or build a release ` +
    'with them (npm run release:provider --platforms).',

  // ---- deployment ----
  deploymentName: (value: string, maxLength: number) =>
    value.length > maxLength
      ? `has ${value.length} characters, more than ${maxLength}.`
      : `${quote(value)} does not start with a letter or digit, or holds other characters than letters, digits, "-" and "_".`,
  tagWithBuildOnPush: (ref: string) =>
    `must be false when ref is a tag (${quote(ref)}): a tag never moves, so there is nothing to build on push. ` +
    'Deploy a branch, or leave buildOnPush out.',
  emptyImage: () => 'must name a container image, e.g. "registry.example.com/agent:1.2.0".',
  minScaleAboveMax: (min: number, max: number) => `(${min}) is more than resources.maxScale (${max}).`,
  secretName: (name: string) => `${quote(name)} is not an environment variable name (letters, digits and "_", not starting with a digit).`,
  secretNameTooLong: (name: string, max: number) => `secret name ${JSON.stringify(name)} has ${name.length} characters, more than ${max}.`,
  tooManySecrets: (count: number, max: number) => `the deployment has ${count} secrets, more than ${max}.`,
  secretsWithoutVersion: () =>
    'secrets are write-only: Terraform cannot see when they change. They are sent on create; set secretsVersion ' +
    'and change it to send them again.',

  // ---- export bucket ----
  bucketName: (value: string) =>
    `must be 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit, ` +
    `without "..", not an IP address, and without the prefixes and suffixes Amazon S3 keeps for itself ("xn--", "sthree-", ` +
    `"amzn-s3-demo-"; "-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"); got ${quote(value)}.`,
  iamUserName: (value: string) => `must be an IAM user name: 1 to 64 letters, digits and "+=,.@_-"; got ${quote(value)}.`,
  kmsKeyArn: (value: string) =>
    `must be the ARN of a KMS key, e.g. "arn:aws:kms:eu-west-1:123456789012:key/<key id>" (an IAM policy names a key by its ` +
    `key ARN: one with an alias ARN grants nothing of the key); got ${quote(value)}.`,
  exportPrefix: (value: string) =>
    `must be a key prefix like "agent-traces" or "exports/prod": no leading or trailing "/", no "//", no "*" or "?"; got ${quote(value)}.`,
  accessKeyOptionsDiffer: (path: string) =>
    `withAccessKey() of ${path} was already called with other options (DestinationTarget.exportBucket() calls it ` +
    'with none for a destination that gives no credentials of its own): the bucket has one export access key. Call ' +
    'withAccessKey() with your options before the destination is made, or call grantExport() for another principal.',

  // ---- export destination ----
  notRegion: (region: string) => `${quote(region)} is not a region name such as "eu-west-1" (letters, digits and dashes).`,
  grantedTwice: (bucket: string, identity: string) =>
    `${bucket}: ${identity} is already granted these permissions; grant it once (a second policy would grant nothing more).`,
  exportKeyWithBucketInPrefix: () =>
    "cannot be used with an ExportBucket's access key: the key may write under the bucket's prefix only, and with " +
    'includeBucketInPrefix the platform writes under <bucket>/<prefix>/. Leave includeBucketInPrefix out, or give keys allowed there.',
  exportKeyDeletesThere: (tmp: string) =>
    `is under ${quote(tmp)}, where an ExportBucket's access key may delete objects (the test objects the platform ` +
    'writes when a destination is made): the exported files could be deleted with the key. Choose a prefix outside it.',
  doubleSlashPrefix: (value: string) =>
    `holds "//" (${quote(value)}): the platform writes keys with an empty segment there, which Amazon S3 takes but some S3-compatible stores refuse.`,
  exportKeyElsewhere: (bucket: string, prefix: string, bucketUnknown: boolean) => {
    const where = bucketUnknown
      ? `in that bucket, under ${prefix === '' ? 'any key' : quote(`${prefix}/`)}`
      : `under ${quote(prefix === '' ? `${bucket}/` : `${bucket}/${prefix}/`)}`;
    return `are an ExportBucket's access key, which may write only ${where}: point the destination there ` +
      '(DestinationTarget.exportBucket(bucket)), or give keys allowed where it points.';
  },
  timeoutWithoutWait: () => 'timeout bounds the wait for completion, and nothing waits (waitForCompletion is not true): it has no effect.',
  regionOrEndpoint: () =>
    'neither region nor endpointUrl is set: the platform writes to Amazon S3 with requests signed for us-east-1, and a ' +
    'bucket in another region is refused as "Bucket is not valid". Set region to the bucket\'s region (for a bucket ' +
    'from ExportBucket.fromBucketName, pass its region there), or endpointUrl for an S3-compatible store.',
  versionWithoutKeys: () =>
    'credentialsVersion rotates keys, but this destination uses the platform host\'s environment credentials: ' +
    'leave credentialsVersion out, or give the destination keys.',

  // ---- exports ----
  tracingProjectGiven: (both: boolean) =>
    both
      ? 'give the tracing project once: tracingProject (a TracingProject) or tracingProjectId (its id), not both.'
      : 'is required: give tracingProject (a TracingProject, or TracingProject.fromName(...)) or tracingProjectId (its id).',
  noFields: () => 'names no field, so the files would have no column; leave fields out to export every exportable field.',
  unknownField: (name: string, known: readonly string[]) =>
    `${quote(name)} is not an exportable field. The exportable fields are: ${known.join(', ')}.`,
  duplicateField: (name: string) => `${quote(name)} is listed twice.`,
  unknownFormatVersion: (value: string, known: readonly string[]) => `${quote(value)} is not a format version this library knows (${known.join(', ')}).`,
  filterNotKnown: (parserMessage: string) => `names what this library does not know; it is sent as it is, and the platform judges it:\n${parserMessage}\n`,
  emptyFilter: () => 'is empty: leave filter out to export every run of the range.',
  notFilterExpr: () => 'is neither a filter expression string nor an expression built with Filter.*.',
  filterBuilderToken: (builder: string) =>
    `Filter.${builder}() takes values known at synth, and one of its values is a token (known only at deploy). Write ` +
    'such a filter as a string, e.g. `gt(total_tokens, ${minTokens.numberValue})`; a string token goes in quotes ' +
    '(`eq(name, "${name.stringValue}")`) and is inserted as it is, so its value must not hold `"` or `\\`.',
  filterTemplateSyntax: () =>
    'filter holds "${" or "%{", which Terraform would read as an expression: they are written with the filter ' +
    "language's \\u0024 and \\u0025 escapes, so the platform gets the text as written. To put a Terraform value in " +
    'a filter, use a token (`${variable.stringValue}`), not "${var.…}" text.',
  filterNotNfc: () =>
    'filter is not in Unicode NFC, to which Terraform would change it: its non-ASCII characters are written as \\u ' +
    'escapes, so the platform gets them as written. An export made from it before was made from the NFC form: it is ' +
    'kept as it is (the provider takes both forms as the same filter); to export with the filter as written, replace it ' +
    '(terraform apply -replace=<its address>).',
  badFilter: (parserMessage: string) =>
    `is not a filter expression of function-style operators such as eq(field, value) (build it with Filter.* to avoid this):\n${parserMessage}`,
  invalidDate: () => 'is an invalid Date.',
  notTimestamp: (value: string) => `must be an ISO 8601 timestamp such as "2025-01-31T00:00:00Z"; got ${quote(value)}.`,
  everyHours: (value: string, min: number, max: number) =>
    `must be a whole number of hours from ${min} to ${max} (Duration.hours(n)); got ${value}.`,
  endNotAfterStart: (start: string, end: string) => `(${end}) must be after start (${start}).`,
  rangeTooLong: (days: number, max: number) =>
    `the range from start to end covers ${days} UTC days, an export run each; the platform may refuse a range this long (the local ` +
    `platform takes at most ${max}). If it does, split it into several BulkExports.`,
};
