/**
 * `ExportBucket`: the S3 bucket bulk exports write to, and the IAM grants that let the platform write there. Every
 * grant goes through one private `grant()` with the actions of the permissions table (`export-permissions.ts`), on
 * the export prefix only.
 */
import type { S3Bucket } from '@cdktf/provider-aws/lib/s3-bucket';
import { Token, type ITerraformDependable } from 'cdktf';
import { createHash } from 'node:crypto';
import { Construct, type IConstruct } from 'constructs';
import type { Duration } from './duration';
import { awsResources } from './aws-resources';
import { Violations, messages } from './errors';
import { exportActions, exportKeyPattern, exportPolicyDocument, type ExportPermissionOptions } from './export-permissions';

/** An IAM user or role that an export grant is attached to. */
export interface ExportIdentity {
  /** `user` or `role`. */
  readonly kind: string;
  /** The user's or role's name. */
  readonly name: string;
}

/** The IAM roles of a self-hosted installation's export system, for {@link ExportPrincipal.selfHosted}. */
export interface SelfHostedExportRoles {
  /** The IAM role of the platform's backend service. */
  readonly backendRoleName: string;
  /** The IAM role of the platform's queue service (the export workers). */
  readonly queueRoleName: string;
}

/** Who the platform writes as: an IAM user (with an access key) or the roles of a self-hosted installation. */
export class ExportPrincipal {
  /** An IAM user, e.g. one whose access key a destination uses. */
  static user(userName: string): ExportPrincipal {
    return new ExportPrincipal([{ kind: 'user', name: userName }]);
  }

  /** An IAM role. */
  static role(roleName: string): ExportPrincipal {
    return new ExportPrincipal([{ kind: 'role', name: roleName }]);
  }

  /**
   * A self-hosted installation whose destinations use the host's environment credentials: both the backend service
   * and the queue service of the export system write to the bucket, so both roles get the grant.
   */
  static selfHosted(roles: SelfHostedExportRoles): ExportPrincipal {
    return new ExportPrincipal([
      { kind: 'role', name: roles.backendRoleName },
      { kind: 'role', name: roles.queueRoleName },
    ]);
  }

  private constructor(
    /** The IAM identities that get the grant. */
    readonly identities: ExportIdentity[],
  ) {}
}

/** What {@link IExportBucket.grantExport} made. */
export interface ExportGrant {
  /** The IAM policy document, as JSON (references to other resources are Terraform interpolations). */
  readonly policyDocument: string;
  /** The inline policies attached, one per identity: depend on them before the platform writes. */
  readonly policies: ITerraformDependable[];
}

/** Options of {@link IExportBucket.withAccessKey}: the permissions, and the IAM user's name. */
export interface ExportAccessKeyOptions extends ExportPermissionOptions {
  /**
   * The name of the IAM user. IAM user names are unique in an AWS account: set it when the same stack is deployed
   * more than once into one account (one per environment, say), whose default names would be the same.
   * @default `agentplatform-export-` and a digest of the construct path
   */
  readonly userName?: string;
}

/** An IAM user and access key that may write exports, made by {@link IExportBucket.withAccessKey}. */
export interface ExportAccessKey {
  /** The IAM user's name. */
  readonly userName: string;
  /** The bucket the key may write to. */
  readonly bucketName: string;
  /** The key prefix it may write under ('' for the whole bucket). */
  readonly prefix: string;
  /** The access key id. */
  readonly accessKeyId: string;
  /** The secret access key (a reference; Terraform keeps it in state, marked sensitive). */
  readonly secretAccessKey: string;
  /** The grant of the user. */
  readonly grant: ExportGrant;
}

/** A bucket that exports can be written to. */
export interface IExportBucket extends IConstruct {
  /** The bucket's name. */
  readonly bucketName: string;
  /** The bucket's ARN. */
  readonly bucketArn: string;
  /** The key prefix exports write under ('' for the whole bucket). */
  readonly prefix: string;
  /** The bucket's region, if known. */
  readonly region?: string;
  /** Every grant made so far; a destination on this bucket depends on them. */
  readonly grants: ExportGrant[];
  /** Attaches an IAM policy with exactly the export permissions on the export prefix to `principal`. */
  grantExport(principal: ExportPrincipal, options?: ExportPermissionOptions): ExportGrant;
  /**
   * An IAM user and access key with the export grant, made on first call; later calls return it (their options, if
   * any, must grant the same actions and name the same user).
   */
  withAccessKey(options?: ExportAccessKeyOptions): ExportAccessKey;
  /** The export access key, once `withAccessKey` has made it. */
  readonly exportAccessKey?: ExportAccessKey;
}

/** Expiry of exported files. */
export interface ExportBucketLifecycle {
  /**
   * Delete exported files this long after they were written (whole days).
   * @default exported files are kept
   */
  readonly expireAfter?: Duration;
  /**
   * Remove the parts of unfinished multipart uploads after this long (whole days).
   * @default Duration.days(7) (without `lifecycle`, there is no rule: the parts are kept)
   */
  readonly abortIncompleteUploadsAfter?: Duration;
}

/** Props of {@link ExportBucket}. */
export interface ExportBucketProps {
  /**
   * The bucket's name (3 to 63 lowercase letters, digits, dots and hyphens).
   * @default a unique name starting with `agentplatform-exports-`
   */
  readonly bucketName?: string;
  /**
   * Key prefix exports write under; the export permissions cover only this prefix.
   * @default 'agent-traces'
   */
  readonly prefix?: string;
  /**
   * Expiry rules for exported files, and for the parts of unfinished uploads, under the prefix.
   * @default no lifecycle rule: files, and the parts of unfinished uploads, are kept
   */
  readonly lifecycle?: ExportBucketLifecycle;
  /**
   * Let `terraform destroy` delete the bucket with the files still in it.
   * @default false
   */
  readonly forceDestroy?: boolean;
}

/** Options of {@link ExportBucket.fromBucketName}. */
export interface ExistingExportBucketOptions {
  /**
   * The key prefix the exports write under (no leading or trailing `/`); grants cover it only.
   * @default 'agent-traces'
   */
  readonly prefix?: string;
  /**
   * The bucket's region, for the destinations that point at it.
   * @default unknown (a destination on it must name its region)
   */
  readonly region?: string;
  /**
   * The AWS partition of the bucket's ARN (`aws`, `aws-cn`, `aws-us-gov`).
   * @default 'aws'
   */
  readonly partition?: string;
  /**
   * The ARN of the KMS key of the bucket's default encryption, when it is SSE-KMS: grants then also allow
   * `kms:GenerateDataKey` (to write) and `kms:Decrypt` (to complete multipart uploads) with it.
   * @default the bucket is not encrypted with a KMS key (SSE-S3)
   */
  readonly kmsKeyArn?: string;
}

const DEFAULT_PREFIX = 'agent-traces';
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Prefixes and suffixes of names S3 keeps for its own kinds of buckets and access points. */
const RESERVED_BUCKET_NAME = /^(xn--|sthree-|amzn-s3-demo-)|(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/;

abstract class ExportBucketBase extends Construct implements IExportBucket {
  abstract readonly bucketName: string;
  abstract readonly bucketArn: string;
  abstract readonly prefix: string;
  abstract readonly region?: string;
  /** The KMS key of the bucket's SSE-KMS encryption, which grants include. */
  protected kmsKeyArn?: string;
  private readonly grantList: ExportGrant[] = [];
  /** The actions of each grant, by id (see grantId). */
  private readonly grantActions = new Map<string, string>();
  /** The identities each grant id was made for (see grantId). */
  private readonly grantNames = new Map<string, string>();
  private accessKey?: { readonly key: ExportAccessKey; readonly actions: string };

  /** Every grant made so far; a destination on this bucket depends on them. */
  get grants(): ExportGrant[] {
    return [...this.grantList];
  }

  /** The export access key, once `withAccessKey` has made it. */
  get exportAccessKey(): ExportAccessKey | undefined {
    return this.accessKey?.key;
  }

  /** Attaches an IAM policy with exactly the export permissions on the export prefix to `principal`. */
  grantExport(principal: ExportPrincipal, options: ExportPermissionOptions = {}): ExportGrant {
    return this.grant(principal, options);
  }

  /**
   * An IAM user and access key with the export grant, made on first call; later calls return it (their options, if
   * any, must grant the same actions and name the same user).
   */
  withAccessKey(options: ExportAccessKeyOptions = {}): ExportAccessKey {
    // options are compared by the actions they grant: `{ deleteObject: true }` and `{}` ask for the same key
    const asked = `${exportActions(options).join(',')} ${options.userName ?? ''}`;
    if (this.accessKey) {
      if (this.accessKey.actions !== asked) throw new Error(messages.accessKeyOptionsDiffer(this.node.path));
      return this.accessKey.key;
    }
    const violations = new Violations();
    violations.check('withAccessKey.userName', options.userName, (name) => (IAM_USER_NAME.test(name) ? undefined : messages.iamUserName(name)));
    violations.throwIfAny('ExportBucket', this);
    const aws = awsResources();
    const scope = new Construct(this, 'ExportWriter');
    const user = new aws.IamUser(scope, 'User', { name: options.userName ?? `agentplatform-export-${scope.node.addr.slice(-10)}` });
    const key = new aws.IamAccessKey(scope, 'AccessKey', { user: user.name });
    const grant = this.grant(ExportPrincipal.user(user.name), options, 'ExportWriterGrant');
    const written = { bucketName: this.bucketName, prefix: this.prefix };
    this.accessKey = { key: { userName: user.name, ...written, accessKeyId: key.id, secretAccessKey: key.secret, grant }, actions: asked };
    return this.accessKey.key;
  }

  private grant(principal: ExportPrincipal, options: ExportPermissionOptions, id?: string): ExportGrant {
    const policyDocument = JSON.stringify(exportPolicyDocument(`${this.bucketArn}/${exportKeyPattern(this.prefix)}`, options, this.kmsKeyArn));
    const scope = new Construct(this, id ?? this.grantId(principal, options));
    const aws = awsResources();
    const policies = principal.identities.map(({ kind, name }, index) =>
      kind === 'user'
        ? new aws.IamUserPolicy(scope, `Policy${index + 1}`, { namePrefix: 'agentplatform-export-', user: name, policy: policyDocument })
        : new aws.IamRolePolicy(scope, `Policy${index + 1}`, { namePrefix: 'agentplatform-export-', role: name, policy: policyDocument }),
    );
    const grant = { policyDocument, policies };
    this.grantList.push(grant);
    return grant;
  }

  /**
   * The id of a grant, and so the Terraform addresses of its policies: from the names of its identities, so that
   * adding, removing or reordering other grants leaves it alone (a replaced inline policy is missing for a moment,
   * and an export that writes then is denied, which is not retried). A name that reads as another one once made
   * safe for an id (`a.b` after `a_b`) carries a digest of itself; the same identities granted again carry a digest of
   * the actions granted. A name known only at apply (a reference) falls back to the grant's position.
   */
  private grantId(principal: ExportPrincipal, options: ExportPermissionOptions): string {
    if (principal.identities.some(({ name }) => Token.isUnresolved(name))) return `ExportGrant${this.grantList.length + 1}`;
    const raw = principal.identities.map(({ kind, name }) => `${kind}-${name}`).join('-');
    const safe = `ExportGrant-${raw.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    // a name that reads as another's once made safe for an id (`a.b`, `a_b`) carries its digest; others keep the
    // addresses they had
    const holder = this.grantNames.get(safe);
    const id = holder === undefined || holder === raw ? safe : `${safe}-${digest(raw)}`;
    this.grantNames.set(id, raw);
    const actions = exportActions(options).join(',');
    const again = `${id}-${digest(actions)}`;
    if (this.grantActions.get(id) === actions || this.node.tryFindChild(again)) {
      throw new Error(messages.grantedTwice(this.node.path, raw.replace(/-/, ' ')));
    }
    const chosen = this.node.tryFindChild(id) ? again : id;
    this.grantActions.set(chosen, actions);
    return chosen;
  }
}

class ExistingExportBucket extends ExportBucketBase {
  readonly bucketArn: string;
  readonly prefix: string;
  readonly region?: string;

  constructor(scope: Construct, id: string, readonly bucketName: string, options: ExistingExportBucketOptions) {
    super(scope, id);
    this.bucketArn = `arn:${options.partition ?? 'aws'}:s3:::${bucketName}`;
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.region = options.region;
    this.kmsKeyArn = options.kmsKeyArn;
    const violations = new Violations();
    checkBucketName(violations, 'bucketName', bucketName);
    violations.check('kmsKeyArn', options.kmsKeyArn, (arn) => (KMS_KEY_ARN.test(arn) ? undefined : messages.kmsKeyArn(arn)));
    checkPrefix(violations, this.prefix);
    violations.throwIfAny('ExportBucket', this);
  }
}

/**
 * An S3 bucket for bulk exports: public access blocked, encrypted (SSE-S3), object ownership enforced (no ACLs),
 * optionally expiring old files. Grant the platform write access with `grantExport` or `withAccessKey`.
 *
 * ```ts
 * const bucket = new ExportBucket(this, 'Traces', { lifecycle: { expireAfter: Duration.days(90) } });
 * new ExportDestination(this, 'Destination', { displayName: 'traces', target: DestinationTarget.exportBucket(bucket) });
 * ```
 */
export class ExportBucket extends ExportBucketBase {
  /** A bucket made elsewhere, by name; grants work the same. */
  static fromBucketName(scope: Construct, id: string, bucketName: string, options: ExistingExportBucketOptions = {}): IExportBucket {
    return new ExistingExportBucket(scope, id, bucketName, options);
  }

  /** The bucket's name (a reference to the `aws_s3_bucket`'s name). */
  readonly bucketName: string;
  /** The bucket's ARN (a reference). */
  readonly bucketArn: string;
  /** The key prefix exports write under ('' for the whole bucket). */
  readonly prefix: string;
  /**
   * The bucket's region (a reference: the region the AWS provider makes it in); always set, though typed optional as
   * in {@link IExportBucket}.
   */
  readonly region?: string;
  /** The `aws_s3_bucket` resource, for escape hatches. */
  readonly bucket: S3Bucket;

  constructor(scope: Construct, id: string, props: ExportBucketProps = {}) {
    super(scope, id);
    this.prefix = props.prefix ?? DEFAULT_PREFIX;
    const violations = new Violations();
    if (props.bucketName !== undefined) checkBucketName(violations, 'bucketName', props.bucketName);
    checkPrefix(violations, this.prefix);
    const lifecycle = props.lifecycle;
    for (const key of ['expireAfter', 'abortIncompleteUploadsAfter'] as const) {
      violations.check(`lifecycle.${key}`, lifecycle?.[key], (d) => (Number.isInteger(d.toDays()) && d.toDays() >= 1 ? undefined : messages.notWholeDays(d.toString())));
    }
    violations.throwIfAny('ExportBucket', this);

    const aws = awsResources();
    this.bucket = new aws.S3Bucket(this, 'Bucket', {
      bucket: props.bucketName,
      bucketPrefix: props.bucketName === undefined ? 'agentplatform-exports-' : undefined,
      forceDestroy: props.forceDestroy,
    });
    const bucket = this.bucket.bucket;
    new aws.S3BucketPublicAccessBlock(this, 'PublicAccessBlock', { bucket, blockPublicAcls: true, blockPublicPolicy: true, ignorePublicAcls: true, restrictPublicBuckets: true });
    new aws.S3BucketServerSideEncryptionConfigurationA(this, 'Encryption', { bucket, rule: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' } }] });
    new aws.S3BucketOwnershipControls(this, 'OwnershipControls', { bucket, rule: { objectOwnership: 'BucketOwnerEnforced' } });
    if (lifecycle) {
      new aws.S3BucketLifecycleConfiguration(this, 'Lifecycle', {
        bucket,
        rule: [
          {
            id: 'agentplatform-exports',
            status: 'Enabled',
            filter: [{ prefix: this.prefix === '' ? '' : `${this.prefix.replace(/\/+$/, '')}/` }],
            expiration: lifecycle.expireAfter ? [{ days: lifecycle.expireAfter.toDays() }] : undefined,
            abortIncompleteMultipartUpload: [{ daysAfterInitiation: (lifecycle.abortIncompleteUploadsAfter?.toDays() ?? 7) }],
          },
        ],
      });
    }
    this.bucketName = bucket;
    this.bucketArn = this.bucket.arn;
    this.region = this.bucket.region;
  }
}

/** An IAM user name: up to 64 letters, digits and `+=,.@_-`. */
const IAM_USER_NAME = /^[\w+=,.@-]{1,64}$/;
/** The ARN of a KMS key (an IAM policy names a key by its key ARN: an alias ARN there grants nothing of the key). */
const KMS_KEY_ARN = /^arn:[\w-]+:kms:[\w-]+:\d{12}:key\/.+$/;

/** Records a violation of `prop` unless `name` follows Amazon S3's rules for bucket names. */
function checkBucketName(violations: Violations, prop: string, name: string): void {
  violations.check(prop, name, (n) =>
    BUCKET_NAME.test(n) && !n.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(n) && !RESERVED_BUCKET_NAME.test(n) ? undefined : messages.bucketName(n),
  );
}

function checkPrefix(violations: Violations, prefix: string): void {
  violations.check('prefix', prefix, (p) => (/^\/|\/\/|[*?]|\/$/.test(p) ? messages.exportPrefix(p) : undefined));
}

/** A short digest of a text, for ids that must differ when the texts do. */
const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);
