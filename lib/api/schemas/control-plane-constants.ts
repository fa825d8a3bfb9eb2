/**
 * The plain values of the control plane's rules (status lists, sources, limits, the tag-ref rule), without zod, so
 * that code on a start-up path (the terraform provider is launched several times per command) can use them without
 * loading the schema library. `control-plane.ts` builds its schemas on these and re-exports them.
 */

/** Every revision status, in pipeline order, then the final and the odd ones. */
export const REVISION_STATUSES = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;

/** One of {@link REVISION_STATUSES}. */
export type RevisionStatusName = (typeof REVISION_STATUSES)[number];

/** Statuses after which a revision never changes again. */
export const FINAL_REVISION_STATUSES: readonly RevisionStatusName[] = [
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
];

/** Final statuses of a revision that did not deploy because it failed. */
export const FAILED_REVISION_STATUSES: readonly RevisionStatusName[] = ['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED'];

/** Where a deployment's code comes from. */
export const DEPLOYMENT_SOURCES = ['github', 'external_docker'] as const;

/**
 * Kinds of deployment known to this project (the local platform takes these). The spec does not show the field; the
 * real platform takes these and may take more, so the provider and the constructs send any string the user sets.
 */
export const DEPLOYMENT_TYPES = ['dev', 'prod', 'dev_free', 'dev_zero', 'dev_free_zero'] as const;

/**
 * Lifecycle of the deployment itself (its revisions have their own status). `AWAITING_FINAL_DELETE` is the real
 * platform's last step of a deletion; the local platform goes from `AWAITING_DELETE` straight to gone.
 */
export const DEPLOYMENT_STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'AWAITING_FINAL_DELETE', 'UNKNOWN'] as const;

/** Statuses of a deployment being deleted: the platform refuses every change to it, and it is gone soon. */
export const DELETING_DEPLOYMENT_STATUSES: readonly string[] = ['AWAITING_DELETE', 'AWAITING_FINAL_DELETE'];

/** Whether a deployment status says it is being deleted (an unknown status does not). */
export const isBeingDeleted = (status: string | null | undefined): boolean => typeof status === 'string' && DELETING_DEPLOYMENT_STATUSES.includes(status);

/** Whether a revision status is one of the failed final ones (an unknown status is not). */
export const isFailedRevisionStatus = (status: string | null | undefined): boolean =>
  typeof status === 'string' && (FAILED_REVISION_STATUSES as readonly string[]).includes(status);

/** A tag ref is immutable, so it cannot be combined with `build_on_push`. */
export const TAG_REF_PREFIX = 'refs/tags/';

/** The platform's defaults of a github deployment's revision when a request leaves them out. */
export const DEFAULT_REPO_REF = 'main';
export const DEFAULT_GRAPH_CONFIG_PATH = 'langgraph.json';

/** Whether a `repo_ref` names a tag (`refs/tags/...`). */
export const isTagRef = (ref: string | null | undefined): boolean => typeof ref === 'string' && ref.startsWith(TAG_REF_PREFIX);

/**
 * The local platform's rules for deployment names and secrets (the spec shows neither): the provider and the
 * constructs warn of what breaks them, and refuse nothing. Deployment names: a letter or digit, then letters, digits,
 * `-` or `_`.
 */
export const DEPLOYMENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Longest deployment name. */
export const DEPLOYMENT_NAME_MAX_LENGTH = 63;

/** Secret names are environment variable names. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Longest secret name, in characters. */
export const MAX_SECRET_NAME_LENGTH = 128;

/** Most secrets a deployment may have. */
export const MAX_SECRETS = 100;

/** Longest secret value, in characters. */
export const MAX_SECRET_VALUE_LENGTH = 65_536;

/** Limits of list endpoints, as the spec states them for the revision list. */
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
