/**
 * The AWS provider's classes that `ExportBucket` makes, loaded on first use: the AWS bindings are an optional peer
 * dependency of the construct packages, needed only by an app that makes an `ExportBucket`, so loading the library
 * must not load them.
 */
import type { IamAccessKey } from '@cdktf/provider-aws/lib/iam-access-key';
import type { IamRolePolicy } from '@cdktf/provider-aws/lib/iam-role-policy';
import type { IamUser } from '@cdktf/provider-aws/lib/iam-user';
import type { IamUserPolicy } from '@cdktf/provider-aws/lib/iam-user-policy';
import type { S3Bucket } from '@cdktf/provider-aws/lib/s3-bucket';
import type { S3BucketLifecycleConfiguration } from '@cdktf/provider-aws/lib/s3-bucket-lifecycle-configuration';
import type { S3BucketOwnershipControls } from '@cdktf/provider-aws/lib/s3-bucket-ownership-controls';
import type { S3BucketPublicAccessBlock } from '@cdktf/provider-aws/lib/s3-bucket-public-access-block';
import type { S3BucketServerSideEncryptionConfigurationA } from '@cdktf/provider-aws/lib/s3-bucket-server-side-encryption-configuration';

/** The classes of {@link awsResources}. */
export interface AwsResources {
  readonly IamAccessKey: typeof IamAccessKey;
  readonly IamRolePolicy: typeof IamRolePolicy;
  readonly IamUser: typeof IamUser;
  readonly IamUserPolicy: typeof IamUserPolicy;
  readonly S3Bucket: typeof S3Bucket;
  readonly S3BucketLifecycleConfiguration: typeof S3BucketLifecycleConfiguration;
  readonly S3BucketOwnershipControls: typeof S3BucketOwnershipControls;
  readonly S3BucketPublicAccessBlock: typeof S3BucketPublicAccessBlock;
  readonly S3BucketServerSideEncryptionConfigurationA: typeof S3BucketServerSideEncryptionConfigurationA;
}

let loaded: AwsResources | undefined;

/** The AWS provider's classes, loaded the first time; an error that says what to install when they are missing. */
export function awsResources(): AwsResources {
  try {
    loaded ??= {
      IamAccessKey: (require('@cdktf/provider-aws/lib/iam-access-key') as typeof import('@cdktf/provider-aws/lib/iam-access-key')).IamAccessKey,
      IamRolePolicy: (require('@cdktf/provider-aws/lib/iam-role-policy') as typeof import('@cdktf/provider-aws/lib/iam-role-policy')).IamRolePolicy,
      IamUser: (require('@cdktf/provider-aws/lib/iam-user') as typeof import('@cdktf/provider-aws/lib/iam-user')).IamUser,
      IamUserPolicy: (require('@cdktf/provider-aws/lib/iam-user-policy') as typeof import('@cdktf/provider-aws/lib/iam-user-policy')).IamUserPolicy,
      S3Bucket: (require('@cdktf/provider-aws/lib/s3-bucket') as typeof import('@cdktf/provider-aws/lib/s3-bucket')).S3Bucket,
      S3BucketLifecycleConfiguration: (
        require('@cdktf/provider-aws/lib/s3-bucket-lifecycle-configuration') as typeof import('@cdktf/provider-aws/lib/s3-bucket-lifecycle-configuration')
      ).S3BucketLifecycleConfiguration,
      S3BucketOwnershipControls: (
        require('@cdktf/provider-aws/lib/s3-bucket-ownership-controls') as typeof import('@cdktf/provider-aws/lib/s3-bucket-ownership-controls')
      ).S3BucketOwnershipControls,
      S3BucketPublicAccessBlock: (
        require('@cdktf/provider-aws/lib/s3-bucket-public-access-block') as typeof import('@cdktf/provider-aws/lib/s3-bucket-public-access-block')
      ).S3BucketPublicAccessBlock,
      S3BucketServerSideEncryptionConfigurationA: (
        require('@cdktf/provider-aws/lib/s3-bucket-server-side-encryption-configuration') as typeof import('@cdktf/provider-aws/lib/s3-bucket-server-side-encryption-configuration')
      ).S3BucketServerSideEncryptionConfigurationA,
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(
      'ExportBucket makes AWS resources with the AWS provider bindings, an optional peer dependency: install them in the app ' +
        '(npm install @cdktf/provider-aws@21 with cdktf, npm install @cdktn/provider-aws@25 with CDK Terrain).',
    );
  }
  return loaded;
}
