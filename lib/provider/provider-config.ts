/**
 * The provider block: its schema, and how a configuration plus the environment resolve into settings.
 * Formats are checked at validate time; a missing API key is an error at configure time (plan, apply, import),
 * because at validate time the key may simply not be known yet.
 */
import { httpUrlProblem, redactUserInfo, withoutUserInfo } from '../api/urls';
import type { CtyValue } from './cty/value';
import { UNKNOWN } from './cty/value';
import type { Diagnostics } from './framework/diagnostics';
import { toModel } from './framework/model';
import { attr, defineSchema, objectType, type SchemaModel } from './framework/schema';
import { durationProblem, parseDuration } from './framework/timeouts';
import { isUuid } from '../api/ids';

/** Environment variables read when the provider block leaves a setting out. */
export const PROVIDER_ENV = {
  apiKey: 'AGENTPLATFORM_API_KEY',
  tenantId: 'AGENTPLATFORM_TENANT_ID',
  controlPlaneUrl: 'AGENTPLATFORM_CONTROL_PLANE_URL',
  tracingUrl: 'AGENTPLATFORM_TRACING_URL',
} as const;

/** Default of `request_timeout`. */
export const DEFAULT_REQUEST_TIMEOUT = '30s';
/** Default of `max_retries`. */
export const DEFAULT_MAX_RETRIES = 3;

function urlProblem(text: string): string | undefined {
  // a user name or password in the URL is not refused here: the URL is no resource attribute, kept in no state; the
  // rest of it must be written in full all the same, and the message never quotes the user name or password
  if (httpUrlProblem(withoutUserInfo(text)) !== 'not-http-url') return undefined;
  return `${JSON.stringify(redactUserInfo(text))} is not an http:// or https:// URL written in full: write it like "https://api.example.com".`;
}

/**
 * Why a workspace id looks wrong: the spec does not type it (`X-Tenant-Id` "carries the workspace id"), so this is a
 * warning, never a refusal; the local platform's ids are UUIDs, as are the real platform's known ones.
 */
function tenantIdProblem(text: string): string | undefined {
  // empty is unset, as for every setting of the block (a variable whose default is "")
  return text === '' || isUuid(text) ? undefined : `${JSON.stringify(text)} is not a UUID such as "6f1c2a9e-8d4b-4f7a-9c3e-2b5d8a1f0e47", the form of a workspace id: the platform may refuse it.`;
}

/** Schema of the `provider "agentplatform"` block. */
export const providerSchema = defineSchema({
  description: 'Manages agent deployments and trace exports of the agent platform (or of the local platform).',
  attributes: {
    api_key: attr.string({
      optional: true,
      sensitive: true,
      description: `API key sent with every request. Default: the \`${PROVIDER_ENV.apiKey}\` environment variable.`,
    }),
    tenant_id: attr.string({
      optional: true,
      description:
        `Workspace to act in (\`X-Tenant-Id\`), by its id, e.g. a UUID. Default: \`${PROVIDER_ENV.tenantId}\`, else the key's ` +
        'default workspace. Objects in state stay in their own: see [Workspaces](#workspaces).',
    }),
    control_plane_url: attr.string({
      optional: true,
      validate: urlProblem,
      description:
        `Base URL of the control plane API (deployments). Default: \`${PROVIDER_ENV.controlPlaneUrl}\`. ` +
        'See [Objects deleted outside Terraform](#objects-deleted-outside-terraform).',
    }),
    tracing_url: attr.string({
      optional: true,
      validate: urlProblem,
      description:
        `Base URL of the tracing API (export destinations, bulk exports). Default: \`${PROVIDER_ENV.tracingUrl}\`. ` +
        'See [Objects deleted outside Terraform](#objects-deleted-outside-terraform).',
    }),
    request_timeout: attr.string({
      optional: true,
      validate: durationProblem,
      description: `Time allowed for each HTTP request attempt, e.g. \`"30s"\` or \`"2m"\`. Default: \`"${DEFAULT_REQUEST_TIMEOUT}"\`.`,
    }),
    max_retries: attr.number({
      optional: true,
      integer: true,
      min: 0,
      max: 20,
      description:
        'Retries of a failed request attempt, with backoff; a request the server may have acted on is never repeated ' +
        `blindly. Default: \`${DEFAULT_MAX_RETRIES}\`. See [Retries](#retries).`,
    }),
  },
});

/** The provider block's model. */
export type ProviderConfigModel = SchemaModel<typeof providerSchema>;

/** Settings resolved from the provider block and the environment. */
export interface ProviderConfig {
  /** The API key, or undefined while it is not known yet (it depends on a resource still to be created). */
  readonly apiKey: string | undefined;
  /** Workspace id, if any. */
  readonly tenantId: string | undefined;
  /** Control plane base URL, if set. */
  readonly controlPlaneUrl: string | undefined;
  /** Tracing API base URL, if set. */
  readonly tracingUrl: string | undefined;
  /** Per-attempt request timeout in milliseconds. */
  readonly requestTimeoutMs: number;
  /** Retries per request. */
  readonly maxRetries: number;
  /** Names of settings terraform could not know yet (unknown values in the provider block). */
  readonly unknown: readonly string[];
}

/**
 * Resolves a configuration value of the provider block: block first, then environment, then defaults. Reports a
 * missing API key against `api_key`.
 */
export function resolveProviderConfig(config: CtyValue, env: NodeJS.ProcessEnv, diagnostics: Diagnostics): ProviderConfig {
  const model = toModel(config, objectType(providerSchema.attributes), 'keep') as Record<string, unknown> | null;
  const unknown = Object.entries(model ?? {}).filter(([, v]) => v === UNKNOWN).map(([k]) => k);
  const pick = (key: keyof ProviderConfigModel, envName?: string): string | undefined => {
    const v = model?.[key];
    if (typeof v === 'string' && v !== '') return v;
    if (v === UNKNOWN) return undefined;
    return envName ? env[envName] || undefined : undefined;
  };
  const apiKey = pick('api_key', PROVIDER_ENV.apiKey);
  if (apiKey === undefined && !unknown.includes('api_key')) {
    diagnostics.error(
      'Missing API key',
      `The agentplatform provider needs an API key: set \`api_key\` in the provider block or the ${PROVIDER_ENV.apiKey} environment variable.`,
      'api_key',
    );
  }
  for (const [key, envName] of [['control_plane_url', PROVIDER_ENV.controlPlaneUrl], ['tracing_url', PROVIDER_ENV.tracingUrl]] as const) {
    const fromEnv = typeof model?.[key] !== 'string' && model?.[key] !== UNKNOWN ? env[envName] : undefined;
    const problem = fromEnv ? urlProblem(fromEnv) : undefined;
    if (problem) diagnostics.error(`Invalid ${envName}`, `The ${envName} environment variable ${problem}`);
  }
  // the environment's value is taken when the block's is unset or empty (see pick)
  const tenantInBlock = model?.tenant_id;
  const tenantFromEnv = tenantInBlock === null || tenantInBlock === undefined || tenantInBlock === '' ? env[PROVIDER_ENV.tenantId] : undefined;
  const tenantProblem = tenantIdProblem(tenantFromEnv ?? (typeof tenantInBlock === 'string' ? tenantInBlock : ''));
  if (tenantProblem) {
    if (tenantFromEnv) diagnostics.warning(`Unusual ${PROVIDER_ENV.tenantId}`, `The ${PROVIDER_ENV.tenantId} environment variable: ${tenantProblem}`);
    else diagnostics.warning('Unusual tenant_id', tenantProblem, 'tenant_id');
  }
  const timeoutText = pick('request_timeout') ?? DEFAULT_REQUEST_TIMEOUT;
  const retries = model?.max_retries;
  return {
    apiKey,
    tenantId: pick('tenant_id', PROVIDER_ENV.tenantId),
    controlPlaneUrl: pick('control_plane_url', PROVIDER_ENV.controlPlaneUrl),
    tracingUrl: pick('tracing_url', PROVIDER_ENV.tracingUrl),
    requestTimeoutMs: parseDuration(timeoutText) ?? parseDuration(DEFAULT_REQUEST_TIMEOUT)!,
    maxRetries: typeof retries === 'number' ? retries : DEFAULT_MAX_RETRIES,
    unknown,
  };
}
