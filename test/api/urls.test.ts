/** The one URL check of the platform, the provider and the constructs (lib/api/urls.ts). */
import { httpUrlProblem } from '../../lib/api/urls';

test.each([
  ['https://github.com/acme/agent', undefined],
  ['HTTPS://GitHub.com/acme/agent/', undefined],
  ['http://127.0.0.1:9000', undefined],
  ['https://s3.example.com?x=1', undefined],
  ['https://x-access-token:ghp_0123@github.com/acme/agent', 'user-info'],
  ['https://user@agent.example.com', 'user-info'],
  ['https://github.com/acme/my agent', 'not-http-url'],
  [' https://github.com/acme/agent', 'not-http-url'],
  ['http:/github.com/acme/agent', 'not-http-url'],
  ['https:github.com', 'not-http-url'],
  ['https://', 'not-http-url'],
  ['https:///path', 'not-http-url'],
  ['ftp://example.com/agent', 'not-http-url'],
  ['github.com/acme/agent', 'not-http-url'],
  ['https://exa mple.com', 'not-http-url'],
  ['https://[::1', 'not-http-url'],
  ['https://github.com\\evil.com/agent', 'not-http-url'],
  ['https://github.com/acme\\agent', 'not-http-url'],
])('%j: %s', (value, problem) => {
  expect(httpUrlProblem(value)).toBe(problem);
});
