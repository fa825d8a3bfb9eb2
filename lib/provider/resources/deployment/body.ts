/**
 * `agentplatform_deployment`'s model to and from the control plane's JSON: the state of a deployment as the API
 * returns it, the body that creates one, and the PATCH that carries only what changed.
 */
import type { Deployment, DeploymentCreate, DeploymentPatch, DeploymentType, SourceConfig, SourceRevisionConfigInput } from '../../../api/schemas/control-plane';
import type { DeploymentModel } from './schema';
import { workspaceId } from '../shared/workspace';
import { given } from '../../framework';

/** Attributes that only Terraform keeps (the API has no such field): carried over from the configuration or state. */
export type LocalSettings = Pick<DeploymentModel, 'secrets_version' | 'wait_for_deployed' | 'timeouts' | 'smoke_test' | 'smoke_test_revision_id'>;

/** The Terraform-only settings of a configuration or state, `wait_for_deployed` defaulted (an import leaves it null). */
export function localSettings(from: LocalSettings): LocalSettings {
  const { secrets_version, timeouts, smoke_test, smoke_test_revision_id } = from;
  return { secrets_version, wait_for_deployed: from.wait_for_deployed ?? true, timeouts, smoke_test, smoke_test_revision_id };
}

/**
 * The state of a deployment as the API returns it, with the settings only Terraform keeps. What the answer leaves
 * out keeps its value in `base` (the plan on create and update, the prior state on read): the spec shows only `id`
 * and `latest_revision_id` of a deployment.
 */
export function toModel(d: Deployment, revisionStatus: string | null, base: DeploymentModel): DeploymentModel {
  const config = d.source_config ?? {};
  const revision = d.source_revision_config ?? {};
  const spec = config.resource_spec;
  return {
    id: d.id,
    name: given(d.name, base.name),
    source: given(d.source, base.source),
    integration_id: given(config.integration_id, base.integration_id),
    repo_url: given(config.repo_url, base.repo_url),
    deployment_type: given(config.deployment_type, base.deployment_type),
    repo_ref: given(revision.repo_ref, base.repo_ref),
    graph_config_path: given(revision.graph_config_path, base.graph_config_path),
    image_uri: given(revision.image_uri, base.image_uri),
    build_on_push: given(config.build_on_push, base.build_on_push),
    custom_url: given(config.custom_url, base.custom_url),
    resource_spec: spec === undefined ? base.resource_spec : spec && resourceSpec(spec, base.resource_spec),
    secrets: null,
    ...localSettings(base),
    secret_names: d.secrets ? sortedNames(d.secrets.map((secret) => secret.name)) : base.secret_names,
    latest_revision_id: d.latest_revision_id,
    active_revision_id: given(d.active_revision_id, base.active_revision_id),
    revision_status: revisionStatus,
    repo_commit_sha: given(revision.repo_commit_sha, base.repo_commit_sha),
    url: given(d.url, base.url),
    created_at: given(d.created_at, base.created_at),
    tenant_id: d.tenant_id ? workspaceId(d.tenant_id) : base.tenant_id,
  };
}

type ResourceSpecModel = NonNullable<DeploymentModel['resource_spec']>;

/** `resource_spec` as answered, each field the answer leaves out kept from `base`. */
function resourceSpec(spec: NonNullable<NonNullable<Deployment['source_config']>['resource_spec']>, base: ResourceSpecModel | null): ResourceSpecModel {
  const kept = (key: keyof ResourceSpecModel): number | null => given(spec[key], base?.[key] ?? null);
  return { min_scale: kept('min_scale'), max_scale: kept('max_scale'), cpu: kept('cpu'), memory_mb: kept('memory_mb') };
}

/** Leaves out null fields: the platform applies its defaults to what is not sent. */
function present<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], null> } | undefined {
  const entries = Object.entries(fields).filter(([, v]) => v !== null && v !== undefined);
  return entries.length ? (Object.fromEntries(entries) as { [K in keyof T]?: Exclude<T[K], null> }) : undefined;
}

function secretList(secrets: Record<string, string> | null): { name: string; value: string }[] {
  return sortedNames(Object.keys(secrets ?? {})).map((name) => ({ name, value: secrets![name]! }));
}

/** Secret names in the order `secret_names` keeps them. */
export function sortedNames(names: readonly string[]): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Whether an update sends the configured `secrets`: when `secrets_version` changes, or when their names differ from
 * the names the deployment has (`secret_names`, which read takes from the platform), since the values are never shown.
 * A state written before `secret_names` existed has none (until a refresh reads them): `secrets_version` alone decides.
 */
export function sendsSecrets(prior: DeploymentModel, secretsVersion: number | null, secrets: Record<string, unknown>): boolean {
  if (secretsVersion !== prior.secrets_version) return true;
  return prior.secret_names !== null && JSON.stringify(sortedNames(Object.keys(secrets))) !== JSON.stringify(prior.secret_names);
}

/**
 * The create request: the planned values the configuration sets, and the secrets. What the configuration leaves out
 * is null in the plan of a create (`deployment_type`, `build_on_push`, ...), so it is not sent: the platform chooses.
 */
export function createBody(planned: DeploymentModel, secrets: Record<string, string> | null): DeploymentCreate {
  const spec = planned.resource_spec;
  return {
    name: planned.name,
    // planned from the configuration, which validation holds to the known values
    source: planned.source as DeploymentCreate['source'],
    source_config: present({
      integration_id: planned.integration_id,
      repo_url: planned.repo_url,
      // any kind the user names: the spec does not close the list
      deployment_type: planned.deployment_type as DeploymentType | null,
      build_on_push: planned.build_on_push,
      custom_url: planned.custom_url,
      resource_spec: spec && (present(spec) ?? {}),
    }),
    source_revision_config: present({ repo_ref: planned.repo_ref, graph_config_path: planned.graph_config_path, image_uri: planned.image_uri }),
    ...(secrets ? { secrets: secretList(secrets) } : {}),
  };
}

/**
 * The PATCH that turns `prior` into `planned`: only what changed; undefined when the API has nothing to change. A new
 * `secrets_version`, or configured names that differ from the deployment's, send `secrets` as configured (`{}`
 * removes them all); without `secrets` in the configuration the deployment's secrets are left as they are.
 */
export function patchOf(prior: DeploymentModel, planned: DeploymentModel, secrets: Record<string, string> | null): DeploymentPatch | undefined {
  const sourceConfig: SourceConfig = {};
  // null: left out of the configuration and not known yet, so nothing to send
  if (planned.build_on_push !== null && planned.build_on_push !== prior.build_on_push) sourceConfig.build_on_push = planned.build_on_push;
  if (planned.custom_url !== prior.custom_url) sourceConfig.custom_url = planned.custom_url;
  if (JSON.stringify(planned.resource_spec) !== JSON.stringify(prior.resource_spec)) sourceConfig.resource_spec = planned.resource_spec;
  const revisionConfig: SourceRevisionConfigInput = {};
  for (const key of ['repo_ref', 'graph_config_path', 'image_uri'] as const) {
    if (planned[key] !== null && planned[key] !== prior[key]) revisionConfig[key] = planned[key];
  }
  const patch: DeploymentPatch = {
    ...(Object.keys(sourceConfig).length ? { source_config: sourceConfig } : {}),
    ...(Object.keys(revisionConfig).length ? { source_revision_config: revisionConfig } : {}),
    ...(secrets !== null && sendsSecrets(prior, planned.secrets_version, secrets) ? { secrets: secretList(secrets) } : {}),
  };
  return Object.keys(patch).length ? patch : undefined;
}

/**
 * The PATCH that deploys a deployment's source again as a new revision, for a deployment whose latest revision
 * failed and whose configuration did not change: the platform makes a revision of any non-null source field sent.
 */
export function redeployPatch(planned: DeploymentModel): DeploymentPatch | undefined {
  for (const key of ['image_uri', 'repo_ref', 'graph_config_path'] as const) {
    const value = planned[key];
    if (typeof value === 'string') return { source_revision_config: { [key]: value } };
  }
  return undefined;
}
