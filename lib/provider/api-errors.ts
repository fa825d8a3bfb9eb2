/**
 * What an API error that a handler did not explain means for the provider's settings: a refused key, a workspace the
 * key may not use, a platform that cannot be reached, or a base URL that does not serve the API, each with the setting
 * (and its environment variable) to check; a request that was sent and got no answer is told apart, since its URL
 * reached something. Errors are told apart by their name and status, so that nothing of the API clients (zod) is
 * loaded here before a request has failed.
 */
import { URL_SETTING, type ApiName } from './context';
import { DiagnosticError } from './framework/diagnostics';

/** The types that reach the tracing API; every other one reaches the control plane. */
const TRACING_TYPES = new Set(['agentplatform_export_destination', 'agentplatform_bulk_export', 'agentplatform_bulk_export_runs', 'agentplatform_tracing_project']);

/** The error as a diagnostic that names the setting to check, or the error itself when it is not about one. */
export function explainApiError(err: unknown, typeName: string | undefined): unknown {
  if (err instanceof DiagnosticError || !(err instanceof Error)) return err;
  const status = (err as { status?: unknown }).status;
  if (status === 401) {
    return new DiagnosticError('API key refused', `${err.message}\n\nCheck \`api_key\` in the provider block or the AGENTPLATFORM_API_KEY environment variable.`);
  }
  if (status === 403) {
    return new DiagnosticError(
      'Workspace not allowed',
      `${err.message}\n\nThe API key may not act in the workspace the request went to: the provider's \`tenant_id\` (or ` +
        "AGENTPLATFORM_TENANT_ID) for a new object, the object's own `tenant_id` (in the state) for one that exists. Check " +
        'that setting, or give the key access to the workspace; an object in a workspace the key may no longer reach can be ' +
        'removed from the state with `terraform state rm <address>` (it stays on the platform).',
    );
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
  if ((require('../api/retry') as typeof import('../api/retry')).failedHandshake(err)) {
    return new DiagnosticError(
      'TLS handshake with the platform failed',
      `${err.message}\n\nCheck that \`${setting.attribute}\` (or ${setting.env}) names the platform's https address (an https:// URL ` +
        'to a plain HTTP port fails this way), and that this machine trusts its certificate: a certificate of a CA of your own ' +
        'is given to the provider with the NODE_EXTRA_CA_CERTS environment variable (a file of PEM certificates).',
    );
  }
  return new DiagnosticError(
    'Platform not reachable',
    `${err.message}\n\nCheck \`${setting.attribute}\` in the provider block or the ${setting.env} environment variable, and that the platform runs there.`,
  );
}

/**
 * Returns when a 404 for an object by id means that the object is gone: when `list`, a list of such objects on the
 * same client, succeeds. A base URL that does not serve the API (a path too many, another server) answers 404 to
 * every request, and reading that as "deleted" would plan a second object and leave the running one unknown to the
 * state; so when the list is answered 404 too, or with something that is not the API's answer, this throws an error
 * that names the URL setting. When the list fails otherwise (a key that may not list, a passing failure), it throws
 * that the object could not be confirmed gone. Either way the object stays in state.
 */
export async function confirmGone(notFound: unknown, api: ApiName, list: () => Promise<unknown>): Promise<void> {
  try {
    await list();
  } catch (listErr) {
    const setting = URL_SETTING[api];
    const status = (listErr as { status?: unknown }).status;
    if (status === 404 || (listErr as Error).name === 'ResponseParseError') {
      throw new DiagnosticError(
        `Not found, and \`${setting.attribute}\` may not point at the ${setting.what}`,
        `${messageOf(notFound)}\n\nA list at the same base URL failed as well (${messageOf(listErr)}), so the 404 may come from a URL ` +
          `that does not serve the ${setting.what}, not from a deleted object: the object is kept in the state. Check ` +
          `\`${setting.attribute}\` in the provider block or the ${setting.env} environment variable: the base URL that the API's own paths follow.`,
      );
    }
    throw new DiagnosticError(
      'Not found, and not confirmed gone',
      `${messageOf(notFound)}\n\nA list at the same base URL, which would confirm that the object is gone, failed: ` +
        `${messageOf(listErr)}. The object is kept in the state: try again. If the API key may read objects but not list them, ` +
        'and the object is gone, remove it from the state with `terraform state rm <address>`.',
    );
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
