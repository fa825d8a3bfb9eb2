/**
 * The stored shape of deployments and revisions, their defaults, and the rules that derive one state from another
 * (merging a PATCH, the commit sha of a github revision, the failure a user asked for). Shared by validation, the
 * store and the pipeline so each rule is written once.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_GRAPH_CONFIG_PATH, DEFAULT_REPO_REF } from '../../api/schemas/control-plane-constants';
import type {
  DeploymentSource,
  DeploymentType,
  ResourceSpec,
  RevisionStatus,
  SourceConfig,
  SourceRevisionConfigInput,
} from '../../api/schemas/control-plane';

/** A deployment's source config with every key present and defaults applied. */
export interface StoredSourceConfig {
  integration_id: string | null;
  repo_url: string | null;
  deployment_type: DeploymentType;
  build_on_push: boolean;
  custom_url: string | null;
  resource_spec: ResourceSpec | null;
}

/** A revision's source config as stored and returned. */
export interface StoredRevisionConfig {
  repo_ref: string | null;
  graph_config_path: string | null;
  image_uri: string | null;
  repo_commit_sha: string | null;
}

/** The name rules and the defaults of a revision are the API's own, shared with the provider and the constructs. */
export {
  DEFAULT_GRAPH_CONFIG_PATH,
  DEFAULT_REPO_REF,
  DEPLOYMENT_NAME_MAX_LENGTH,
  DEPLOYMENT_NAME_PATTERN,
  SECRET_NAME_PATTERN,
} from '../../api/schemas/control-plane-constants';

/** Statuses a revision moves through on success, in order, each followed by the next. */
export const PIPELINE_STEPS = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
] as const;
export type PipelineStep = (typeof PIPELINE_STEPS)[number];

/** Markers a user puts in `repo_ref`, `graph_config_path` or `image_uri` to get a failed revision. */
export const FAILURE_MARKERS: Readonly<Record<string, { step: PipelineStep; status: RevisionStatus }>> = {
  'fail-create': { step: 'CREATING', status: 'CREATE_FAILED' },
  'fail-build': { step: 'BUILDING', status: 'BUILD_FAILED' },
  'fail-deploy': { step: 'DEPLOYING', status: 'DEPLOY_FAILED' },
};

/** The step at which a revision with this config fails (the earliest marker wins), or null. */
export function failingStep(config: StoredRevisionConfig): PipelineStep | null {
  const text = [config.repo_ref, config.graph_config_path, config.image_uri].filter(Boolean).join('\n');
  const steps = Object.entries(FAILURE_MARKERS)
    .filter(([marker]) => text.includes(marker))
    .map(([, failure]) => failure.step);
  return steps.sort((a, b) => PIPELINE_STEPS.indexOf(a) - PIPELINE_STEPS.indexOf(b))[0] ?? null;
}

/** A stable fake commit: the same repository and ref always "resolve" to the same sha. */
export const commitShaOf = (repoUrl: string, ref: string): string =>
  createHash('sha1').update(`${repoUrl}\n${ref}`).digest('hex');

/** The source config of a new deployment. */
export function initialSourceConfig(input: SourceConfig | undefined): StoredSourceConfig {
  return {
    integration_id: input?.integration_id ?? null,
    repo_url: input?.repo_url ?? null,
    deployment_type: input?.deployment_type ?? 'prod',
    build_on_push: input?.build_on_push ?? false,
    custom_url: input?.custom_url ?? null,
    resource_spec: input?.resource_spec ? mergeResourceSpec(null, input.resource_spec) : null,
  };
}

function mergeResourceSpec(current: ResourceSpec | null, patch: ResourceSpec): ResourceSpec {
  const pick = <K extends keyof ResourceSpec>(key: K) =>
    patch[key] === undefined ? current?.[key] ?? null : patch[key] ?? null;
  return { min_scale: pick('min_scale'), max_scale: pick('max_scale'), cpu: pick('cpu'), memory_mb: pick('memory_mb') };
}

/**
 * A PATCH's source config applied to the current one. Immutable keys are validated elsewhere and keep their value;
 * for mutable keys an absent key keeps the value and `null` resets it to its default.
 */
export function mergeSourceConfig(current: StoredSourceConfig, patch: SourceConfig | undefined): StoredSourceConfig {
  if (!patch) return current;
  return {
    ...current,
    build_on_push: patch.build_on_push === undefined ? current.build_on_push : patch.build_on_push ?? false,
    custom_url: patch.custom_url === undefined ? current.custom_url : patch.custom_url ?? null,
    resource_spec:
      patch.resource_spec === undefined
        ? current.resource_spec
        : patch.resource_spec === null
        ? null
        : mergeResourceSpec(current.resource_spec, patch.resource_spec),
  };
}

/** The config of a first revision, with github defaults and its commit. */
export function initialRevisionConfig(
  source: DeploymentSource,
  sourceConfig: StoredSourceConfig,
  input: SourceRevisionConfigInput | undefined,
): StoredRevisionConfig {
  if (source === 'external_docker') {
    return { repo_ref: null, graph_config_path: null, image_uri: input?.image_uri ?? null, repo_commit_sha: null };
  }
  const repoRef = input?.repo_ref ?? DEFAULT_REPO_REF;
  return {
    repo_ref: repoRef,
    graph_config_path: input?.graph_config_path ?? DEFAULT_GRAPH_CONFIG_PATH,
    image_uri: null,
    repo_commit_sha: commitShaOf(sourceConfig.repo_url ?? '', repoRef),
  };
}

/** True when a PATCH's revision config asks for a new revision (any non-null field). */
export const asksForNewRevision = (patch: SourceRevisionConfigInput | undefined): boolean =>
  !!patch && [patch.repo_ref, patch.graph_config_path, patch.image_uri].some((v) => v !== null && v !== undefined);

/** The config of a revision made by a PATCH: the latest revision's values overridden by the non-null ones sent. */
export function nextRevisionConfig(
  sourceConfig: StoredSourceConfig,
  latest: StoredRevisionConfig,
  patch: SourceRevisionConfigInput | undefined,
): StoredRevisionConfig {
  const repoRef = patch?.repo_ref ?? latest.repo_ref;
  return {
    repo_ref: repoRef,
    graph_config_path: patch?.graph_config_path ?? latest.graph_config_path,
    image_uri: patch?.image_uri ?? latest.image_uri,
    repo_commit_sha: repoRef === null ? null : commitShaOf(sourceConfig.repo_url ?? '', repoRef),
  };
}
