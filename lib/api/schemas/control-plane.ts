/**
 * Zod schemas of the deployment control plane (area A of the platform API). Request bodies are closed to what the
 * spec names; responses are read tolerantly (see `tolerant.ts`): the clients parse every response with these, and
 * whatever the local platform answers passes them.
 */
import { z } from 'zod';
import { DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES, REVISION_STATUSES } from './control-plane-constants';
import { looseNumber, openEnum } from './tolerant';

export * from './control-plane-constants';

export const RevisionStatus = z.enum(REVISION_STATUSES);
export type RevisionStatus = z.infer<typeof RevisionStatus>;

export const DeploymentSource = z.enum(DEPLOYMENT_SOURCES);
export type DeploymentSource = z.infer<typeof DeploymentSource>;

export const DeploymentType = z.enum(DEPLOYMENT_TYPES);
export type DeploymentType = z.infer<typeof DeploymentType>;

export const DeploymentStatus = z.enum(DEPLOYMENT_STATUSES);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

export const SourceRevisionConfig = z.object({
  repo_ref: z.string().nullable().optional(),
  graph_config_path: z.string().nullable().optional(),
  image_uri: z.string().nullable().optional(),
  repo_commit_sha: z.string().nullable().optional(),
});
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;

/** The writable part of a source revision config (`repo_commit_sha` is read-only). */
export const SourceRevisionConfigInput = SourceRevisionConfig.omit({ repo_commit_sha: true });
export type SourceRevisionConfigInput = z.infer<typeof SourceRevisionConfigInput>;

/** A revision as the platform answers it: every field the spec marks required; a status or source added since is kept. */
export const Revision = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  status: openEnum(REVISION_STATUSES),
  source: openEnum(DEPLOYMENT_SOURCES),
  source_revision_config: SourceRevisionConfig,
});
export type Revision = z.infer<typeof Revision>;

export const RevisionsList = z.object({
  resources: z.array(Revision),
  offset: z.number().int(),
});
export type RevisionsList = z.infer<typeof RevisionsList>;

export const ValidationErrorItem = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export type ValidationErrorItem = z.infer<typeof ValidationErrorItem>;

export const HTTPValidationError = z.object({ detail: z.array(ValidationErrorItem) });
export type HTTPValidationError = z.infer<typeof HTTPValidationError>;

/** The body of every non-validation error: `{"detail": "..."}`. */
export const ErrorDetail = z.object({ detail: z.string() });

export const ResourceSpec = z.object({
  min_scale: z.number().int().min(0).nullable().optional(),
  max_scale: z.number().int().min(1).nullable().optional(),
  cpu: z.number().positive().nullable().optional(),
  memory_mb: z.number().int().positive().nullable().optional(),
});
export type ResourceSpec = z.infer<typeof ResourceSpec>;

export const SourceConfig = z.object({
  integration_id: z.string().nullable().optional(),
  repo_url: z.string().nullable().optional(),
  deployment_type: DeploymentType.nullable().optional(),
  build_on_push: z.boolean().nullable().optional(),
  custom_url: z.string().nullable().optional(),
  resource_spec: ResourceSpec.nullable().optional(),
});
export type SourceConfig = z.infer<typeof SourceConfig>;

/** Secrets are sent with their values; responses carry the names only. */
export const SecretInput = z.object({ name: z.string(), value: z.string() });
export type SecretInput = z.infer<typeof SecretInput>;
export const SecretName = z.object({ name: z.string() });

export const DeploymentCreate = z.object({
  name: z.string(),
  source: DeploymentSource,
  source_config: SourceConfig.optional(),
  source_revision_config: SourceRevisionConfigInput.optional(),
  secrets: z.array(SecretInput).optional(),
});
export type DeploymentCreate = z.infer<typeof DeploymentCreate>;

/**
 * PATCH body. `source` may be sent but must equal the current one. A non-null `repo_ref`, `graph_config_path` or
 * `image_uri`, or a change of secrets, creates a new revision.
 */
export const DeploymentPatch = z.object({
  source: DeploymentSource.optional(),
  source_config: SourceConfig.optional(),
  source_revision_config: SourceRevisionConfigInput.optional(),
  secrets: z.array(SecretInput).optional(),
});
export type DeploymentPatch = z.infer<typeof DeploymentPatch>;

/** `resource_spec` as the platform answers it: a number may come as a decimal string (`"0.5"`). */
const AnsweredResourceSpec = z.object({
  min_scale: looseNumber.nullable().optional(),
  max_scale: looseNumber.nullable().optional(),
  cpu: looseNumber.nullable().optional(),
  memory_mb: looseNumber.nullable().optional(),
});

/** `source_config` as the platform answers it: a deployment type added since (`dev_free`, ...) is kept. */
export const AnsweredSourceConfig = z.object({
  ...SourceConfig.shape,
  deployment_type: openEnum(DEPLOYMENT_TYPES).nullable().optional(),
  resource_spec: AnsweredResourceSpec.nullable().optional(),
});
export type AnsweredSourceConfig = z.infer<typeof AnsweredSourceConfig>;

/**
 * A deployment as the platform answers it. The spec shows `id` and `latest_revision_id` (the revision to wait for)
 * only: they are required, every other field may be left out, and a status or type added since is kept.
 */
export const Deployment = z.object({
  id: z.string(),
  latest_revision_id: z.string().nullable(),
  tenant_id: z.string().optional(),
  name: z.string().optional(),
  source: openEnum(DEPLOYMENT_SOURCES).optional(),
  source_config: AnsweredSourceConfig.optional(),
  source_revision_config: SourceRevisionConfig.optional(),
  secrets: z.array(SecretName).optional(),
  status: openEnum(DEPLOYMENT_STATUSES).optional(),
  active_revision_id: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type Deployment = z.infer<typeof Deployment>;

/** A deployment as the local platform answers it: every field, each in its closed form. */
export const DeploymentRecord = z.object({
  id: z.guid(),
  tenant_id: z.string(),
  name: z.string(),
  source: DeploymentSource,
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfig,
  secrets: z.array(SecretName),
  status: DeploymentStatus,
  latest_revision_id: z.guid().nullable(),
  active_revision_id: z.guid().nullable(),
  url: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DeploymentRecord = z.infer<typeof DeploymentRecord>;
export const DeploymentRecordsList = z.object({ resources: z.array(DeploymentRecord), offset: z.number().int() });

/** A page of deployments; the spec does not show this list, and its callers page by counting what they received. */
export const DeploymentsList = z.object({
  resources: z.array(Deployment),
  offset: z.number().int().optional(),
});
export type DeploymentsList = z.infer<typeof DeploymentsList>;

/** A sandbox template as the platform answers it: the spec does not say which fields are required, so none is. */
export const SandboxTemplate = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  image: z.string().optional(),
  resources: z
    .object({
      cpu: z.string().nullable().optional(),
      memory: z.string().nullable().optional(),
      storage: z.string().nullable().optional(),
    })
    .optional(),
  volume_mounts: z.array(z.object({ volume_name: z.string().optional(), mount_path: z.string().optional() })).optional(),
  proxy_config: z
    .object({
      rules: z
        .array(
          z.object({
            name: z.string().optional(),
            match_hosts: z.array(z.string()).optional(),
            inject_headers: z.record(z.string(), z.string()).optional(),
            match_paths: z.array(z.string()).optional(),
            enabled: z.boolean().optional(),
          }),
        )
        .optional(),
      no_proxy: z.array(z.string()).optional(),
    })
    .optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type SandboxTemplate = z.infer<typeof SandboxTemplate>;

/** A sandbox template as the local platform answers it: every field. */
export const SandboxTemplateRecord = z.object({
  id: z.guid(),
  name: z.string(),
  image: z.string(),
  resources: z.object({
    cpu: z.string().nullable().optional(),
    memory: z.string().nullable().optional(),
    storage: z.string().nullable().optional(),
  }),
  volume_mounts: z.array(z.object({ volume_name: z.string(), mount_path: z.string() })),
  proxy_config: z.object({
    rules: z.array(
      z.object({
        name: z.string(),
        match_hosts: z.array(z.string()),
        inject_headers: z.record(z.string(), z.string()),
        match_paths: z.array(z.string()),
        enabled: z.boolean(),
      }),
    ),
    no_proxy: z.array(z.string()),
  }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SandboxTemplateRecord = z.infer<typeof SandboxTemplateRecord>;
export const SandboxTemplateRecordsList = z.object({ templates: z.array(SandboxTemplateRecord) });

export const SandboxTemplatesList = z.object({ templates: z.array(SandboxTemplate) });
export type SandboxTemplatesList = z.infer<typeof SandboxTemplatesList>;
