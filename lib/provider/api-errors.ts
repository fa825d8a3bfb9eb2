/**
 * What an API error that a handler did not explain means for the provider's settings: a refused key, a workspace the
 * key may not use, or a platform that cannot be reached, each with the setting (and its environment variable) to
 * check; a request that was sent and got no answer is told apart, since its URL reached something. Errors are told
 * apart by their name and status, so that nothing of the API clients (zod) is loaded here before a request has failed.
 */
import { URL_SETTING } from './context';
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
  if (err.name !== 'NetworkError' && err.name !== 'TimeoutError') return err;
  const { mayHaveActed } = require('../api/retry') as typeof import('../api/retry');
  // a request that was sent reached something that listens there: the URL is not what to check
  if (mayHaveActed(err)) {
    return new DiagnosticError(
      'No answer from the platform',
      `${err.message}\n\nThe request was sent, and ` +
        (err.name === 'TimeoutError'
          ? 'no answer came within `request_timeout`: a slow platform may need a longer one.'
          : 'the connection closed before an answer came: the platform, or a proxy in front of it, dropped it. Try again; the next plan reads what the platform holds.'),
    );
  }
  const setting = URL_SETTING[typeName && TRACING_TYPES.has(typeName) ? 'tracing' : 'control-plane'];
  return new DiagnosticError(
    'Platform not reachable',
    `${err.message}\n\nCheck \`${setting.attribute}\` in the provider block or the ${setting.env} environment variable, and that the platform runs there.`,
  );
}
