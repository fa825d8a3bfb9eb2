/**
 * The S3 permissions of bulk exports, as one table (as aws-s3's `perms.ts`): the IAM policy that `ExportBucket`
 * grants, the table in `docs/constructs.md`, and the tests that replay the policy on a real S3 server all read it.
 */

/** Which optional permissions an export grant includes; each is on unless turned off. */
export interface ExportPermissionOptions {
  /**
   * `s3:DeleteObject`, on `<prefix>/tmp/*` only: the platform deletes the test object it writes there when a
   * destination is created. The key cannot delete the exported files: nor, then, a file that a run which ended for
   * good (failed, cancelled or timed out) started and did not record, which the platform tries to delete and logs
   * when it cannot (the file stays beside the export's other files).
   * @default true
   */
  readonly deleteObject?: boolean;
  /**
   * `s3:GetObject`: the platform checks the size of each file it wrote (a HEAD request, which S3 allows with
   * `s3:GetObject`; the key can then also read the exported files).
   * @default true
   */
  readonly readObject?: boolean;
  /**
   * `s3:AbortMultipartUpload`: the platform cleans up the parts of a large file whose upload failed.
   * @default true
   */
  readonly abortMultipartUpload?: boolean;
}

/** One S3 action the export system uses. */
export interface ExportPermission {
  /** The IAM action. */
  readonly action: string;
  /** The option of {@link ExportPermissionOptions} that turns it off; absent when the action is required. */
  readonly option?: keyof ExportPermissionOptions;
  /** The keys it is granted on: the whole export prefix, or only the test objects under `<prefix>/tmp/`. */
  readonly on: 'prefix' | 'tmp';
  /** What the platform does with it. */
  readonly purpose: string;
  /** What happens without it. */
  readonly without: string;
}

/** Every action the export system uses, required first. */
export const EXPORT_PERMISSIONS: readonly ExportPermission[] = [
  {
    action: 's3:PutObject',
    on: 'prefix',
    purpose: 'writes the Parquet files, and a test object under `<prefix>/tmp/` when a destination is created',
    without: 'the destination is refused with "Access denied"',
  },
  {
    action: 's3:DeleteObject',
    option: 'deleteObject',
    on: 'tmp',
    purpose:
      'deletes the test object after writing it; the exported files cannot be deleted with the key (nor a file a run that ended for good left unrecorded: the platform logs it, and it stays)',
    without: 'the test object stays under `<prefix>/tmp/`',
  },
  {
    action: 's3:GetObject',
    option: 'readObject',
    on: 'prefix',
    purpose: 'checks the size of each file it wrote (a HEAD request; the key can also read the files)',
    without: 'file sizes are not verified',
  },
  {
    action: 's3:AbortMultipartUpload',
    option: 'abortMultipartUpload',
    on: 'prefix',
    purpose: 'cleans up the parts of a large file whose upload failed',
    without: 'parts of failed uploads stay until a lifecycle rule removes them',
  },
];

/** The actions granted with `options`: s3:PutObject always, each optional one unless turned off. */
export function exportActions(options: ExportPermissionOptions = {}): string[] {
  return EXPORT_PERMISSIONS.filter((p) => p.option === undefined || options[p.option] !== false).map((p) => p.action);
}

/**
 * The object keys a destination writes: its key prefix, else the whole bucket. The test objects under
 * `<prefix>/tmp/` are inside it. (A destination with `include_bucket_in_prefix` writes under `<bucket>/<prefix>/`,
 * which an ExportBucket's grant does not cover: ExportDestination refuses it with the bucket's export access key.)
 */
export function exportKeyPattern(keyPrefix: string): string {
  const trimmed = keyPrefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '*' : `${trimmed}/*`;
}

/**
 * The IAM policy document (as an object) allowing exactly the export actions: on `objectsArn` (the ARN of the keys
 * under the prefix, ending in `/*`), and, for `s3:DeleteObject`, only on the test objects under its `tmp/`; with
 * `kmsKeyArn` (a bucket encrypted with SSE-KMS), the use of that key for writing, through S3 only.
 */
export function exportPolicyDocument(objectsArn: string, options: ExportPermissionOptions = {}, kmsKeyArn?: string): object {
  if (!objectsArn.endsWith('/*')) throw new Error(`the ARN of an export's objects ends in "/*"; got ${objectsArn}`);
  const granted = EXPORT_PERMISSIONS.filter((p) => p.option === undefined || options[p.option] !== false);
  const actionsOn = (on: ExportPermission['on']) => granted.filter((p) => p.on === on).map((p) => p.action);
  const statements = [{ Sid: 'AgentPlatformBulkExport', Effect: 'Allow', Action: actionsOn('prefix'), Resource: [objectsArn] }];
  if (actionsOn('tmp').length > 0) {
    const testObjects = `${objectsArn.slice(0, -1)}tmp/*`;
    statements.push({ Sid: 'AgentPlatformDestinationTestObject', Effect: 'Allow', Action: actionsOn('tmp'), Resource: [testObjects] });
  }
  // SSE-KMS: a write needs a data key; completing a multipart upload decrypts with the key. Only through S3: the
  // credentials cannot use the key by themselves (to decrypt other data it protects)
  const withKey =
    kmsKeyArn === undefined
      ? []
      : [
          {
            Sid: 'AgentPlatformBucketKey',
            Effect: 'Allow',
            Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
            Resource: [kmsKeyArn],
            Condition: { StringLike: { 'kms:ViaService': 's3.*' } },
          },
        ];
  return { Version: '2012-10-17', Statement: [...statements, ...withKey] };
}

/** The permissions as a markdown table, for the documentation. */
export function exportPermissionsMarkdown(): string {
  const keys = { prefix: '`<prefix>/*`', tmp: '`<prefix>/tmp/*`' };
  const rows = EXPORT_PERMISSIONS.map(
    (p) =>
      `| \`${p.action}\` | ${keys[p.on]} | ${p.option ? `optional, on by default (\`${p.option}: false\` turns it off)` : 'required'} | ${p.purpose} | ${p.without} |`,
  );
  return ['| action | on | granted | the platform | without it |', '|---|---|---|---|---|', ...rows].join('\n');
}
