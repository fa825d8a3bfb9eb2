/**
 * The S3 permissions of bulk exports, as one table (as aws-s3's `perms.ts`): the IAM policy that `ExportBucket`
 * grants, the table in `docs/constructs.md`, and the tests that replay the policy on a real S3 server all read it.
 */

/** Which optional permissions an export grant includes; each is on unless turned off. */
export interface ExportPermissionOptions {
  /**
   * `s3:DeleteObject`: the platform deletes the test object it writes when a destination is created.
   * @default true
   */
  readonly deleteObject?: boolean;
  /**
   * `s3:GetObject`: the platform reads back each file it wrote to verify its size.
   * @default true
   */
  readonly getObject?: boolean;
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
  /** What the platform does with it. */
  readonly purpose: string;
  /** What happens without it. */
  readonly without: string;
}

/** Every action the export system uses, required first. */
export const EXPORT_PERMISSIONS: readonly ExportPermission[] = [
  {
    action: 's3:PutObject',
    purpose: 'writes the Parquet files, and a test object under `<prefix>/tmp/` when a destination is created',
    without: 'the destination is refused with "Access denied"',
  },
  {
    action: 's3:DeleteObject',
    option: 'deleteObject',
    purpose: 'deletes the test object after writing it',
    without: 'the test object stays under `<prefix>/tmp/`',
  },
  {
    action: 's3:GetObject',
    option: 'getObject',
    purpose: 'reads back each file it wrote to verify its size',
    without: 'file sizes are not verified',
  },
  {
    action: 's3:AbortMultipartUpload',
    option: 'abortMultipartUpload',
    purpose: 'cleans up the parts of a large file whose upload failed',
    without: 'parts of failed uploads stay until a lifecycle rule removes them',
  },
];

/** The actions granted with `options`: s3:PutObject always, each optional one unless turned off. */
export function exportActions(options: ExportPermissionOptions = {}): string[] {
  return EXPORT_PERMISSIONS.filter((p) => p.option === undefined || options[p.option] !== false).map((p) => p.action);
}

/**
 * The object keys a destination writes: its key prefix (with the bucket name first when `include_bucket_in_prefix`
 * asks for it), else the whole bucket. The test objects under `<prefix>/tmp/` are inside it.
 */
export function exportKeyPattern(keyPrefix: string): string {
  const trimmed = keyPrefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '*' : `${trimmed}/*`;
}

/** The IAM policy document (as an object) allowing exactly the export actions on `objectsArn`. */
export function exportPolicyDocument(objectsArn: string, options: ExportPermissionOptions = {}): object {
  return {
    Version: '2012-10-17',
    Statement: [{ Sid: 'AgentPlatformBulkExport', Effect: 'Allow', Action: exportActions(options), Resource: [objectsArn] }],
  };
}

/** The permissions as a markdown table, for the documentation. */
export function exportPermissionsMarkdown(): string {
  const rows = EXPORT_PERMISSIONS.map(
    (p) => `| \`${p.action}\` | ${p.option ? `optional, on by default (\`${p.option}: false\` turns it off)` : 'required'} | ${p.purpose} | ${p.without} |`,
  );
  return ['| action | granted | the platform | without it |', '|---|---|---|---|', ...rows].join('\n');
}
