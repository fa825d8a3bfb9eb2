/**
 * What an API error that a handler did not explain means for the provider's settings: a refused key, a workspace the
 * key may not use, or a platform that cannot be reached, each with the setting (and its environment variable) to
 * check. Errors are told apart by their name and status, so that nothing of the API clients (zod) is loaded here.
 */
import { DiagnosticError } from './framework/diagnostics';

/** The types that reach the tracing API; every other one reaches the control plane. */
const TRACING_TYPES = new Set(['agentplatform_export_destination', 'agentplatform_bulk_export', 'agentplatform_bulk_export_runs']);

/** The error as a diagnostic that names the setting to check, or the error itself when it is not about one. */
export function explainApiError(err: unknown, typeName: string | undefined): unknown {
  if (err instanceof DiagnosticError || !(err instanceof Error)) return err;
  const status = (err as { status?: unknown }).status;
  if (status === 401) {
    return new DiagnosticError('API key refused', `${err.message}\n\nCheck \`api_key\` in the provider block or the AGENTPLATFORM_API_KEY environment variable.`);
  }
  if (status === 403) {
    return new DiagnosticError('Workspace not allowed', `${err.message}\n\nCheck \`tenant_id\` (or AGENTPLATFORM_TENANT_ID): the API key may not act in that workspace.`);
  }
  if (err.name === 'NetworkError' || err.name === 'TimeoutError') {
    const [setting, variable] = typeName && TRACING_TYPES.has(typeName)
      ? ['tracing_url', 'AGENTPLATFORM_TRACING_URL']
      : ['control_plane_url', 'AGENTPLATFORM_CONTROL_PLANE_URL'];
    return new DiagnosticError(
      'Platform not reachable',
      `${err.message}\n\nCheck \`${setting}\` in the provider block or the ${variable} environment variable, and that the platform runs there` +
        (err.name === 'TimeoutError' ? '; a slow platform may need a longer `request_timeout`.' : '.'),
    );
  }
  return err;
}
