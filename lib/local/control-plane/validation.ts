/**
 * Body rules of `POST /v2/deployments` and `PATCH /v2/deployments/{id}`. Shape errors come from strict zod schemas
 * built on the shared ones; the rules between fields (source-specific fields, immutable fields, tag refs with
 * build_on_push, scale bounds) are checked after, all reported in one 422.
 */
import { z } from 'zod';
import {
  DeploymentSource,
  DeploymentType,
  isTagRef,
  ResourceSpec,
  SourceConfig,
  SourceRevisionConfigInput,
  type DeploymentCreate,
  type DeploymentPatch,
} from '../../api/schemas/control-plane';
import { MAX_SECRET_NAME_LENGTH, MAX_SECRET_VALUE_LENGTH, MAX_SECRETS } from '../../api/schemas/control-plane-constants';
import { httpUrlProblem } from '../../api/urls';
import { RequestValidator } from '../validation';
import {
  DEPLOYMENT_NAME_MAX_LENGTH,
  DEPLOYMENT_NAME_PATTERN,
  initialSourceConfig,
  mergeSourceConfig,
  SECRET_NAME_PATTERN,
  type StoredRevisionConfig,
  type StoredSourceConfig,
} from './model';

const nonEmpty = z.string().min(1).nullable().optional();

const SourceConfigBody = z.strictObject({
  ...SourceConfig.shape,
  integration_id: nonEmpty,
  repo_url: nonEmpty,
  deployment_type: DeploymentType.nullable().optional(),
  custom_url: nonEmpty,
  resource_spec: z.strictObject(ResourceSpec.shape).nullable().optional(),
});

const RevisionConfigBody = z.strictObject({
  ...SourceRevisionConfigInput.shape,
  repo_ref: nonEmpty,
  graph_config_path: nonEmpty,
  image_uri: nonEmpty,
});

const SecretsBody = z
  .array(
    z.strictObject({
      name: z.string().min(1).max(MAX_SECRET_NAME_LENGTH).regex(SECRET_NAME_PATTERN),
      // characters as pydantic counts them (code points), not UTF-16 units
      value: z.string().superRefine((value, ctx) => {
        if (value.length > MAX_SECRET_VALUE_LENGTH && [...value].length > MAX_SECRET_VALUE_LENGTH) {
          ctx.addIssue({ code: 'too_big', origin: 'string', maximum: MAX_SECRET_VALUE_LENGTH, inclusive: true, input: value });
        }
      }),
    }),
  )
  .max(MAX_SECRETS);

const CreateBody = z.strictObject({
  name: z.string().min(1).max(DEPLOYMENT_NAME_MAX_LENGTH).regex(DEPLOYMENT_NAME_PATTERN),
  source: DeploymentSource,
  source_config: SourceConfigBody.optional(),
  source_revision_config: RevisionConfigBody.optional(),
  secrets: SecretsBody.optional(),
});

const PatchBody = z.strictObject({
  // immutable, like repo_url and deployment_type: the current value or null is accepted
  source: DeploymentSource.nullable().optional(),
  source_config: SourceConfigBody.optional(),
  source_revision_config: RevisionConfigBody.optional(),
  secrets: SecretsBody.optional(),
});

/** What a PATCH is checked against. */
export interface CurrentDeployment {
  readonly source: DeploymentSource;
  readonly sourceConfig: StoredSourceConfig;
  readonly latestRevision: StoredRevisionConfig;
}

const SOURCE_CONFIG = ['body', 'source_config'];
const REVISION_CONFIG = ['body', 'source_revision_config'];
const valueError = (v: RequestValidator, loc: (string | number)[], msg: string) =>
  v.add(loc, 'value_error', `Value error, ${msg}`);

/** Validates a create body (shape, then the rules between fields); throws a 422 naming every problem. */
export function validateCreate(body: unknown): DeploymentCreate {
  const v = new RequestValidator();
  const input: DeploymentCreate = v.valid(v.parse(CreateBody, body, ['body']));
  const config = input.source_config;
  const revision = input.source_revision_config;
  if (input.source === 'github' && !config?.repo_url) {
    v.add(
      [...SOURCE_CONFIG, 'repo_url'],
      'missing',
      "Field required: a 'github' deployment needs source_config.repo_url",
    );
  }
  if (input.source === 'external_docker' && !revision?.image_uri) {
    v.add(
      [...REVISION_CONFIG, 'image_uri'],
      'missing',
      "Field required: an 'external_docker' deployment needs source_revision_config.image_uri",
    );
  }
  checkSourceSpecificFields(v, input.source, config, revision);
  checkOutcome(v, {
    source: input.source,
    sourceConfig: initialSourceConfig(config),
    repoRef: revision?.repo_ref ?? null,
    sent: config,
    secrets: input.secrets,
  });
  v.throwIfFailed();
  return input;
}

/**
 * Checks the shape of a PATCH body, recording problems in `v` (with the path parameter's, as FastAPI reports them
 * together). The rules that need the current deployment come after, in `checkPatchRules`.
 */
export const parsePatchBody = (v: RequestValidator, body: unknown): DeploymentPatch | undefined =>
  v.parse(PatchBody, body, ['body']) as DeploymentPatch | undefined;

/** Checks a PATCH against the deployment it changes; throws a 422 naming every problem. */
export function checkPatchRules(patch: DeploymentPatch, current: CurrentDeployment): void {
  const v = new RequestValidator();
  const config = patch.source_config;
  if (patch.source != null && patch.source !== current.source) {
    valueError(v, ['body', 'source'], `source cannot be changed (this deployment's source is '${current.source}')`);
  }
  for (const key of ['integration_id', 'repo_url', 'deployment_type'] as const) {
    const sent = config?.[key];
    if (sent !== undefined && sent !== null && sent !== current.sourceConfig[key]) {
      valueError(
        v,
        [...SOURCE_CONFIG, key],
        `${key} cannot be changed after the deployment is created (it is ${JSON.stringify(
          current.sourceConfig[key],
        )}); create a new deployment instead`,
      );
    }
  }
  checkSourceSpecificFields(v, current.source, config, patch.source_revision_config);
  checkOutcome(v, {
    source: current.source,
    sourceConfig: mergeSourceConfig(current.sourceConfig, config),
    repoRef: patch.source_revision_config?.repo_ref ?? current.latestRevision.repo_ref,
    sent: config,
    secrets: patch.secrets,
  });
  v.throwIfFailed();
}

function checkSourceSpecificFields(
  v: RequestValidator,
  source: DeploymentSource,
  config: SourceConfig | undefined,
  revision: z.infer<typeof RevisionConfigBody> | undefined,
): void {
  const onlyFor = (loc: (string | number)[], field: string, allowed: DeploymentSource) =>
    valueError(v, loc, `${field} is only allowed for source '${allowed}', not '${source}'`);
  if (source === 'github') {
    if (revision?.image_uri != null) onlyFor([...REVISION_CONFIG, 'image_uri'], 'image_uri', 'external_docker');
    return;
  }
  for (const key of ['repo_ref', 'graph_config_path'] as const) {
    if (revision?.[key] != null) onlyFor([...REVISION_CONFIG, key], key, 'github');
  }
  for (const key of ['repo_url', 'integration_id'] as const) {
    if (config?.[key] != null) onlyFor([...SOURCE_CONFIG, key], key, 'github');
  }
  if (config?.build_on_push === true) onlyFor([...SOURCE_CONFIG, 'build_on_push'], 'build_on_push', 'github');
}

/** A deployment as it would be after the request, with what the request sent (problems are located there). */
interface Outcome {
  readonly source: DeploymentSource;
  readonly sourceConfig: StoredSourceConfig;
  readonly repoRef: string | null;
  readonly sent: SourceConfig | undefined;
  readonly secrets: DeploymentCreate['secrets'];
}

function checkOutcome(
  v: RequestValidator,
  { source, sourceConfig, repoRef, sent: sentConfig, secrets }: Outcome,
): void {
  if (source === 'github' && sourceConfig.build_on_push && isTagRef(repoRef)) {
    const loc =
      sentConfig?.build_on_push === true ? [...SOURCE_CONFIG, 'build_on_push'] : [...REVISION_CONFIG, 'repo_ref'];
    valueError(v, loc, `build_on_push must be false when repo_ref is a tag ('${repoRef}'): tags are immutable`);
  }
  const repoUrlProblem = sentConfig?.repo_url == null ? undefined : httpUrlProblem(sentConfig.repo_url);
  if (repoUrlProblem === 'not-http-url') {
    valueError(v, [...SOURCE_CONFIG, 'repo_url'], 'repo_url must be an http(s) URL of a git repository');
  } else if (repoUrlProblem === 'user-info') {
    valueError(v, [...SOURCE_CONFIG, 'repo_url'], USER_INFO_REFUSED('repo_url'));
  }
  const customUrlProblem = sentConfig?.custom_url == null ? undefined : httpUrlProblem(sentConfig.custom_url);
  if (customUrlProblem === 'not-http-url') {
    valueError(v, [...SOURCE_CONFIG, 'custom_url'], 'custom_url must be an absolute http(s) URL');
  } else if (customUrlProblem === 'user-info') {
    valueError(v, [...SOURCE_CONFIG, 'custom_url'], USER_INFO_REFUSED('custom_url'));
  }
  const spec = sourceConfig.resource_spec;
  if (spec?.min_scale != null && spec.max_scale != null && spec.min_scale > spec.max_scale) {
    // the error is where the request broke the rule: at max_scale when only it was sent
    const sentOnlyMax = sentConfig?.resource_spec?.max_scale != null && sentConfig.resource_spec.min_scale == null;
    valueError(
      v,
      [...SOURCE_CONFIG, 'resource_spec', sentOnlyMax ? 'max_scale' : 'min_scale'],
      `min_scale (${spec.min_scale}) must be less than or equal to max_scale (${spec.max_scale})`,
    );
  }
  const seen = new Set<string>();
  secrets?.forEach((secret, index) => {
    if (seen.has(secret.name))
      valueError(v, ['body', 'secrets', index, 'name'], `duplicate secret name '${secret.name}'`);
    seen.add(secret.name);
  });
}

/**
 * A user name or password in a deployment's URL is refused: the URL is stored and returned as it is, so a token in it
 * would be readable by every key of the workspace. A private repository is reached through `integration_id`.
 */
const USER_INFO_REFUSED = (field: string): string =>
  `${field} must not carry a user name or password: it is stored and returned as sent` +
  (field === 'repo_url' ? '; a private repository is reached through integration_id' : '');

