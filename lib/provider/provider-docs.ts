/**
 * The provider page's "Behaviour" section: what the provider block's settings do beyond their short descriptions
 * (retries, workspaces, how an object deleted outside Terraform is told from a wrong URL), for the docs generator.
 * Only the generator and the tests load this module, never the provider.
 */
import { MAX_RETRY_AFTER_MS } from '../api/retry';
import { PROVIDER_ENV } from './provider-config';

/** The provider page's Behaviour section, in markdown. */
export const PROVIDER_BEHAVIOUR = `
### Retries

\`max_retries\` is the number of retries of a failed request, with exponential backoff and jitter, or after the
\`Retry-After\` the server sends (at most ${MAX_RETRY_AFTER_MS / 1000} s). GET, PUT and DELETE are retried on connection errors, timeouts (\`request_timeout\`), 408, 429 and 5xx.
POST and PATCH (creates, updates, cancels) are not idempotent, so they are retried only when the server cannot have acted on them: 429, 503, and connection errors raised before the request was sent
(connection refused, DNS failure, connect timeout, a \`request_timeout\` that ran out while still connecting); a
timeout, a dropped connection or another 5xx after one was sent may hide a success, and so may a success whose body
cannot be read: it is never repeated blindly, and a create then finds out what it made (see each resource's import
notes and [convergence.md](convergence.md)), trying again within its \`timeouts.create\` (a few seconds once terraform
is stopping). Cancelling an export is retried like a GET.

### Workspaces

New objects are created in the workspace \`tenant_id\` (or \`${PROVIDER_ENV.tenantId}\`) names, else in the API key's
default workspace. An object in state is read, changed and deleted in the workspace it is in (its own \`tenant_id\`),
whichever workspace the provider is set to now. When the provider's \`tenant_id\` names another workspace, the plan
replaces the object: a new one in that workspace, the old one destroyed in its own (an export destination, which the
platform cannot delete, is left there). With no workspace set, an object stays where it is until it is replaced for
another reason; the data sources read the provider's workspace. A \`tenant_id\` known only after apply stops the plan of
objects in state (whether they move cannot be known yet): apply what it comes from first.

### Objects deleted outside Terraform

An object that answers 404 counts as deleted only when the same URL (\`control_plane_url\` for deployments,
\`tracing_url\` for export destinations and bulk exports) lists objects of its kind. When the list is answered 404 too
(a URL that does not serve the API), refresh and destroy stop with an error naming the setting; when it fails
otherwise, with one that says the object could not be confirmed gone. The state is kept either way.
`;
