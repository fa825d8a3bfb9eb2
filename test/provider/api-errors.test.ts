/**
 * What an unexplained API error tells the user to check: the URL setting only when the request never left (a refused
 * connection, a name that does not resolve), never for one that was sent and got no answer, which reached whatever
 * listens at that URL.
 */
import { ForbiddenError, NetworkError, NotFoundError, ServerError, TimeoutError } from '../../lib/api/errors';
import { DiagnosticError } from '../../lib/provider/framework';
import { confirmGone, explainApiError } from '../../lib/provider/api-errors';

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

describe('a 404 for an object by id, checked with a list at the same URL', () => {
  const notFound = new NotFoundError('GET …/v2/deployments/d: 404 Not Found', { ...request, method: 'GET', status: 404 });
  const list = { method: 'GET', url: 'http://127.0.0.1:8123/v2/deployments' };

  test('the list answers: the object is gone', async () => {
    await expect(confirmGone(notFound, 'control-plane', async () => [])).resolves.toBeUndefined();
  });

  test('the list is answered 404 too: the URL setting is named', async () => {
    const listed = confirmGone(notFound, 'control-plane', () => Promise.reject(new NotFoundError('404', { ...list, status: 404 })));
    await expect(listed).rejects.toMatchObject({ summary: 'Not found, and `control_plane_url` may not point at the control plane' });
  });

  test.each([
    ['a key that may not list', new ForbiddenError('403 Forbidden', { ...list, status: 403 })],
    ['a passing server error', new ServerError('502 Bad Gateway', { ...list, status: 502 })],
    ['no answer', new TimeoutError({ ...list, timeoutMs: 30_000 })],
  ])('the list fails otherwise (%s): not confirmed gone, kept, and no URL blamed', async (_, listErr) => {
    const listed = confirmGone(notFound, 'control-plane', () => Promise.reject(listErr));
    await expect(listed).rejects.toMatchObject({ summary: 'Not found, and not confirmed gone', detail: expect.stringContaining('terraform state rm') });
    await expect(listed).rejects.toMatchObject({ detail: expect.not.stringMatching(/control_plane_url/) });
  });
});

test("a 403 names both workspaces a request may have gone to: the provider's for a new object, the object's own in state", () => {
  const diagnostic = explained(new ForbiddenError('GET …: 403 Forbidden', { ...request, method: 'GET', status: 403 }));
  expect(diagnostic.summary).toBe('Workspace not allowed');
  expect(diagnostic.detail).toContain("the provider's `tenant_id` (or AGENTPLATFORM_TENANT_ID) for a new object, the object's own `tenant_id` (in the state)");
  expect(diagnostic.detail).toContain('terraform state rm <address>');
});

test.each(['ERR_SSL_WRONG_VERSION_NUMBER', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT'])(
  'a failed TLS handshake (%s) names the URL and the CA to trust, and no request is taken for sent',
  (code) => {
    const diagnostic = explained(new NetworkError(`network error (${code})`, { ...request, code }));
    expect(diagnostic.summary).toBe('TLS handshake with the platform failed');
    expect(diagnostic.detail).toContain('`control_plane_url` (or AGENTPLATFORM_CONTROL_PLANE_URL)');
    expect(diagnostic.detail).toContain('NODE_EXTRA_CA_CERTS');
  },
);
