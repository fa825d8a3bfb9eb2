/**
 * What an unexplained API error tells the user to check: the URL setting only when the request never left (a refused
 * connection, a name that does not resolve), never for one that was sent and got no answer, which reached whatever
 * listens at that URL.
 */
import { NetworkError, TimeoutError } from '../../lib/api/errors';
import { DiagnosticError } from '../../lib/provider/framework';
import { explainApiError } from '../../lib/provider/api-errors';

const request = { method: 'PATCH', url: 'http://127.0.0.1:8123/v2/deployments/d' };

function explained(err: Error, typeName = 'agentplatform_deployment'): DiagnosticError {
  const diagnostic = explainApiError(err, typeName);
  if (!(diagnostic instanceof DiagnosticError)) throw new Error(`expected a diagnostic, got ${String(diagnostic)}`);
  return diagnostic;
}

test('a connection refused before anything was sent names the URL setting of the API', () => {
  const refused = explained(new NetworkError('network error: connect ECONNREFUSED', { ...request, code: 'ECONNREFUSED' }));
  expect(refused.summary).toBe('Platform not reachable');
  expect(refused.detail).toContain('Check `control_plane_url` in the provider block or the AGENTPLATFORM_CONTROL_PLANE_URL environment variable');
  const unresolved = explained(new NetworkError('network error: getaddrinfo ENOTFOUND', { ...request, code: 'ENOTFOUND' }), 'agentplatform_bulk_export');
  expect(unresolved.detail).toContain('Check `tracing_url`');
});

test.each([
  ['a connection lost once the request was sent', new NetworkError('network error: other side closed', { ...request, code: 'UND_ERR_SOCKET' }), 'the connection closed before an answer came'],
  ['a timeout', new TimeoutError({ ...request, timeoutMs: 30_000 }), 'a slow platform may need a longer one'],
])('%s says no answer came, and not to check the URL', (_, err, says) => {
  const diagnostic = explained(err);
  expect(diagnostic.summary).toBe('No answer from the platform');
  expect(diagnostic.detail).toContain(says);
  expect(diagnostic.detail).not.toMatch(/control_plane_url|CONTROL_PLANE_URL/);
});
