/**
 * `ExportDestination`: where bulk exports write, on an `ExportBucket` (credentials wired by reference, created after
 * the bucket's grants so the platform's validation write is allowed) or on any S3-compatible bucket.
 */
import { createHash } from 'node:crypto';
import { Annotations, Aspects, Fn, dependable, type ITerraformDependable, type TerraformProvider } from 'cdktf';
import type { Duration } from './duration';
import { Construct, type IConstruct } from 'constructs';
import { booleanProblem, positiveDurationProblem, unusualUrl, urlUserInfoProblem, wholeNumberProblem } from './checks';
import { Violations, isToken, messages, warnIfProblem } from './errors';
import type { ExportAccessKey, IExportBucket } from './export-bucket';
import { ExportDestination as ExportDestinationResource, type ExportDestinationCredentials } from './generated/export-destination';
import { validateSecretReferences } from './secret-references';
import { isRegionName } from '../api/schemas/bulk-export-constants';

/** A destination, created here or elsewhere. */
export interface IExportDestination extends IConstruct {
  /** The destination id, as the platform returns it. */
  readonly destinationId: string;
}

/** Keys of an S3 user. */
export interface S3AccessKeyValues {
  /** The access key id. */
  readonly accessKeyId: string;
  /** The secret access key: a reference (a sensitive `TerraformVariable`, a resource attribute), never a literal. */
  readonly secretAccessKey: string;
  /**
   * Session token of temporary credentials: a reference, never a literal.
   * @default none
   */
  readonly sessionToken?: string;
}

/** Where an `ExportBucket`'s access key may write: under its bucket's export prefix only. */
export interface ExportKeyScope {
  /** The bucket. */
  readonly bucketName: string;
  /** The key prefix ('' for the whole bucket). */
  readonly prefix: string;
}

/** What the platform writes with. */
export class DestinationCredentials {
  /** The access key of an `ExportBucket` (`bucket.withAccessKey()`); the destination waits for its grant. */
  static fromExportAccessKey(key: ExportAccessKey): DestinationCredentials {
    const writesUnder = { bucketName: key.bucketName, prefix: key.prefix };
    return new DestinationCredentials({ accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey }, key.grant.policies, writesUnder);
  }

  /** Keys given as references. */
  static fromValues(values: S3AccessKeyValues): DestinationCredentials {
    return new DestinationCredentials(values, []);
  }

  /**
   * The platform host's environment credentials (self-hosted installations only): grant the bucket to its roles
   * with `ExportPrincipal.selfHosted(...)`.
   */
  static environment(): DestinationCredentials {
    return new DestinationCredentials(undefined, []);
  }

  private constructor(
    /** The keys; undefined for environment credentials. */
    readonly values: S3AccessKeyValues | undefined,
    /** Resources the platform's first write needs (IAM policies). */
    readonly dependencies: ITerraformDependable[],
    /** Where the keys may write, when they are an `ExportBucket`'s: under its prefix only. */
    readonly writesUnder?: ExportKeyScope,
  ) {}
}

/** A bucket of any S3-compatible store. */
export interface S3DestinationSettings {
  /** The bucket. */
  readonly bucketName: string;
  /**
   * Key prefix inside the bucket.
   * @default '' (the root of the bucket)
   */
  readonly prefix?: string;
  /**
   * Region of the bucket (Amazon S3).
   * @default none: then `endpointUrl` must be set
   */
  readonly region?: string;
  /**
   * Address of the S3 API of an S3-compatible store (Ceph, MinIO, R2, ...).
   * @default Amazon S3
   */
  readonly endpointUrl?: string;
  /**
   * Put the bucket name at the start of every object key, for stores that need it in the path.
   * @default the platform's choice (nothing is sent; `false` for a new destination)
   */
  readonly includeBucketInPrefix?: boolean;
  /** What the platform writes with. */
  readonly credentials: DestinationCredentials;
}

/** Resolved settings of a {@link DestinationTarget}. */
export interface DestinationTargetConfig extends S3DestinationSettings {
  /** Resources to create before the destination; read when the stack is synthesized. */
  readonly dependencies: ITerraformDependable[];
}

/** Options of {@link DestinationTarget.exportBucket}. */
export interface ExportBucketTargetOptions {
  /**
   * The keys the platform writes with.
   * @default the bucket's export access key
   */
  readonly credentials?: DestinationCredentials;
}

/** Where a destination points: `DestinationTarget.exportBucket(bucket)` or `DestinationTarget.s3({...})`. */
export class DestinationTarget {
  /**
   * An `ExportBucket`, at its export prefix. The credentials default to the bucket's export access key (the one
   * `bucket.withAccessKey(...)` made, or one with every export permission); the destination is created after every
   * grant of the bucket, also the grants made after the destination in the code.
   */
  static exportBucket(bucket: IExportBucket, options: ExportBucketTargetOptions = {}): DestinationTarget {
    return new DestinationTarget(() => {
      const credentials = options.credentials ?? DestinationCredentials.fromExportAccessKey(bucket.exportAccessKey ?? bucket.withAccessKey());
      return {
        bucketName: bucket.bucketName,
        prefix: bucket.prefix,
        region: bucket.region,
        credentials,
        get dependencies() {
          return [...new Set([...credentials.dependencies, ...bucket.grants.flatMap((g) => g.policies)])];
        },
      };
    });
  }

  /** Any S3-compatible bucket. */
  static s3(settings: S3DestinationSettings): DestinationTarget {
    return new DestinationTarget(() => ({ ...settings, dependencies: settings.credentials.dependencies }));
  }

  private constructor(private readonly resolve: () => DestinationTargetConfig) {}

  /** Resolves the settings (making the bucket's access key on first use). */
  bind(): DestinationTargetConfig {
    return this.resolve();
  }
}

/** Props of {@link ExportDestination}. */
export interface ExportDestinationProps {
  /** Name shown on the platform. */
  readonly displayName: string;
  /** The bucket. */
  readonly target: DestinationTarget;
  /**
   * Change it (for example, increment it) to send the credentials again, rotating them in place.
   * @default when the destination has keys, a number made of the access key id (the first 8 hex digits of its SHA-256),
   * so that another key (a replaced access key, another variable value) is sent on the next apply
   */
  readonly credentialsVersion?: number;
  /**
   * How long creating the destination, or rotating its keys, may take: the platform's test write is retried while a
   * new access key is not usable yet (AWS takes a few seconds to make one known everywhere).
   * @default Duration.minutes(5)
   */
  readonly timeout?: Duration;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

class ImportedExportDestination extends Construct implements IExportDestination {
  constructor(
    scope: Construct,
    id: string,
    readonly destinationId: string,
  ) {
    super(scope, id);
  }
}

/**
 * A bulk export destination. The platform validates it on creation by writing a test object under
 * `<prefix>/tmp/` with its credentials. The platform cannot change or delete destinations: a change of settings
 * replaces it, and destroy only forgets it.
 */
export class ExportDestination extends Construct implements IExportDestination {
  /** A destination made elsewhere, by id. */
  static fromDestinationId(scope: Construct, id: string, destinationId: string): IExportDestination {
    return new ImportedExportDestination(scope, id, destinationId);
  }

  /** The destination id, as the platform returns it. */
  readonly destinationId: string;
  /** The `agentplatform_export_destination` resource, for escape hatches. */
  readonly resource: ExportDestinationResource;

  constructor(scope: Construct, id: string, props: ExportDestinationProps) {
    super(scope, id);
    const target = props.target.bind();
    const keys = target.credentials.values;
    const violations = new Violations();
    warnIfProblem(this, 'displayName', props.displayName, (name) => (name.trim() === '' ? messages.emptyValue() : undefined));
    warnIfProblem(this, 'target.bucketName', target.bucketName, (name) => (name.trim() === '' ? messages.emptyValue() : undefined));
    violations.check('target.includeBucketInPrefix', target.includeBucketInPrefix, booleanProblem);
    violations.check('timeout', props.timeout, positiveDurationProblem);
    const keyScope = target.credentials.writesUnder;
    if (keyScope && !writableWith(keyScope, target)) violations.add('target.credentials', messages.exportKeyElsewhere(keyScope.bucketName, keyScope.prefix, isToken(keyScope.bucketName)));
    const deletable = keyScope && deletableWith(keyScope, target);
    if (deletable) violations.add('target.prefix', messages.exportKeyDeletesThere(deletable));
    violations.check('target.endpointUrl', target.endpointUrl, urlUserInfoProblem);
    warnIfProblem(this, 'target.endpointUrl', target.endpointUrl, unusualUrl);
    // the spec lets `config.region` be left out when `endpoint_url` is given and states no rule for leaving both out: a
    // warning, as the provider's at plan
    if (target.region === undefined && target.endpointUrl === undefined) Annotations.of(this).addWarning(`target.region: ${messages.regionOrEndpoint()}`);
    warnIfProblem(this, 'target.region', target.region, (region) => (isRegionName(region) ? undefined : messages.notRegion(region)));
    for (const field of ['secretAccessKey', 'sessionToken'] as const) {
      if (keys?.[field] !== undefined && !isToken(keys[field])) violations.add(`target.credentials.${field}`, messages.plaintextSecret(field));
    }
    if (target.includeBucketInPrefix === true && keyScope) violations.add('target.includeBucketInPrefix', messages.exportKeyWithBucketInPrefix());
    violations.check('credentialsVersion', props.credentialsVersion, wholeNumberProblem(1));
    if (!keys && props.credentialsVersion !== undefined) violations.add('credentialsVersion', messages.versionWithoutKeys());
    violations.throwIfAny('ExportDestination', this);
    if (typeof target.prefix === 'string' && !isToken(target.prefix) && target.prefix.includes('//')) {
      Annotations.of(this).addWarning(`target.prefix: ${messages.doubleSlashPrefix(target.prefix)}`);
    }

    validateSecretReferences(this, () => [
      ['target.credentials.secretAccessKey', keys?.secretAccessKey],
      ['target.credentials.sessionToken', keys?.sessionToken],
    ]);

    const credentials: ExportDestinationCredentials | undefined = keys && { ...keys };
    this.resource = new ExportDestinationResource(this, 'Resource', {
      displayName: props.displayName,
      bucketName: target.bucketName,
      prefix: target.prefix,
      region: target.region,
      endpointUrl: target.endpointUrl,
      includeBucketInPrefix: target.includeBucketInPrefix,
      credentials,
      credentialsVersion: keys ? (props.credentialsVersion ?? versionOfKeyId(keys.accessKeyId)) : undefined,
      timeouts: props.timeout && { create: props.timeout.toTerraformString(), update: props.timeout.toTerraformString() },
      provider: props.provider,
    });
    // the dependencies are read when the stack is synthesized: a grant of the bucket may come later in the code; those
    // set on the resource otherwise (an escape hatch) are kept, and a second synthesis does not add ours twice
    const resource = this.resource;
    let added: string[] = [];
    Aspects.of(this).add({
      visit: (node) => {
        if (node !== resource) return;
        const others = (resource.dependsOn ?? []).filter((d) => !added.includes(d));
        added = target.dependencies.map((d) => dependable(d));
        const all = [...others, ...added];
        resource.dependsOn = all.length ? all : undefined;
      },
    });
    this.destinationId = this.resource.id;
  }
}

/**
 * The credentials version of keys given without one: the first 8 hex digits of the SHA-256 of the access key id, as
 * a number (computed by Terraform for a reference). Credentials are write-only, so Terraform sends them only when the
 * version changes: this way a new key id (an ExportBucket's access key replaced, a variable given another key) is sent.
 */
function versionOfKeyId(accessKeyId: string): number {
  if (isToken(accessKeyId)) return Fn.parseint(Fn.substr(Fn.sha256(accessKeyId), 0, 8), 16);
  return Number.parseInt(createHash('sha256').update(accessKeyId).digest('hex').slice(0, 8), 16);
}

/** A key prefix without its leading and trailing slashes ('' for none). */
const trimmed = (prefix: string | undefined): string => (prefix ?? '').replace(/^\/+|\/+$/g, '');

/**
 * Where keys of `scope` may delete (their test objects, `<prefix>/tmp/`) when `target` points under it, so that they
 * could delete its exported files; undefined otherwise (or when a prefix is a token).
 */
function deletableWith(scope: { readonly prefix: string }, target: S3DestinationSettings): string | undefined {
  if (isToken(scope.prefix) || isToken(target.prefix ?? '')) return undefined;
  const tmp = trimmed(scope.prefix) === '' ? 'tmp' : `${trimmed(scope.prefix)}/tmp`;
  const written = trimmed(target.prefix);
  return written === tmp || written.startsWith(`${tmp}/`) ? `${tmp}/` : undefined;
}

/**
 * Whether keys that may write under `scope` can write where `target` points: the same bucket, at the key's prefix or
 * under it (its grant covers `<prefix>/*`); names that are tokens are taken as the same.
 */
function writableWith(scope: { readonly bucketName: string; readonly prefix: string }, target: S3DestinationSettings): boolean {
  const known = (...values: (string | undefined)[]): boolean => values.every((value) => !isToken(value));
  if (known(scope.bucketName, target.bucketName) && scope.bucketName !== target.bucketName) return false;
  if (!known(scope.prefix, target.prefix)) return true;
  const [granted, written] = [trimmed(scope.prefix), trimmed(target.prefix)];
  return granted === '' || written === granted || written.startsWith(`${granted}/`);
}
