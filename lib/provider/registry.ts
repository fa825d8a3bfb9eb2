/**
 * The resources and data sources this provider serves, each loaded only when terraform first mentions it (a plan
 * that touches one resource type never loads the others). Add an entry per handler file:
 *
 *     agentplatform_deployment: () => (require('./resources/deployment/resource') as typeof import('./resources/deployment/resource')).default,
 *
 * The key must equal the definition's `typeName`.
 */
import type { DataSourceDefinition, ResourceDefinition } from './framework/resource';

/** Lazily loaded definitions by Terraform type name. */
export interface ProviderRegistry {
  /** Managed resource types. */
  readonly resources: Readonly<Record<string, () => ResourceDefinition>>;
  /** Data source types. */
  readonly dataSources: Readonly<Record<string, () => DataSourceDefinition>>;
  /**
   * Turns an error a handler threw into the one to report (a diagnostic that names the setting to check), or returns
   * it as it is. @default every error as it is
   */
  readonly explainError?: (err: unknown, typeName: string | undefined) => unknown;
}

/** What the provider serves. */
export const registry: ProviderRegistry = {
  explainError: (err, typeName) => (require('./api-errors') as typeof import('./api-errors')).explainApiError(err, typeName),
  resources: {
    agentplatform_deployment: () => (require('./resources/deployment/resource') as typeof import('./resources/deployment/resource')).default,
    agentplatform_export_destination: () =>
      (require('./resources/export-destination/resource') as typeof import('./resources/export-destination/resource')).default,
    agentplatform_bulk_export: () => (require('./resources/bulk-export/resource') as typeof import('./resources/bulk-export/resource')).default,
    agentplatform_assistant: () => (require('./resources/assistant/resource') as typeof import('./resources/assistant/resource')).default,
    agentplatform_tracing_project: () =>
      (require('./resources/tracing-project/resource') as typeof import('./resources/tracing-project/resource')).default,
    agentplatform_cron: () => (require('./resources/cron/resource') as typeof import('./resources/cron/resource')).default,
  },
  dataSources: {
    agentplatform_revisions: () => (require('./data-sources/revisions') as typeof import('./data-sources/revisions')).default,
    agentplatform_sandbox_templates: () =>
      (require('./data-sources/sandbox-templates') as typeof import('./data-sources/sandbox-templates')).default,
    agentplatform_bulk_export_runs: () =>
      (require('./data-sources/bulk-export-runs') as typeof import('./data-sources/bulk-export-runs')).default,
    agentplatform_tracing_project: () =>
      (require('./data-sources/tracing-project') as typeof import('./data-sources/tracing-project')).default,
  },
};
