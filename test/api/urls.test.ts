/** The one URL check of the platform, the provider and the constructs (lib/api/urls.ts). */
import { httpUrlProblem, redactUserInfo, withoutUserInfo } from '../../lib/api/urls';

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
  // a user name or password is found however malformed the rest, so that none passes the refusal into state
  ['https://user:TOKEN@host/a b', 'user-info'],
  ['http:/user:TOKEN@github.com/acme/agent', 'user-info'],
  ['https:user:TOKEN@github.com', 'user-info'],
  ['https:\\\\user:TOKEN@github.com', 'user-info'],
  ['https://user:TOKEN@github.com\\evil.com', 'user-info'],
  [' HTTPS://user:TOKEN@github.com', 'user-info'],
  ['https://us\ner:TOKEN@github.com', 'user-info'],
  ['ssh://git:TOKEN@github.com/acme/agent', 'user-info'],
  ['https://@github.com', 'user-info'],
  // an `@` past the authority is no user-info
  ['https://github.com/acme/agent@v1', undefined],
  ['https://github.com?ref=a@b', undefined],
  ['https://github.com/a b@c', 'not-http-url'],
  ['git@github.com:acme/agent.git', 'not-http-url'],
])('%j: %s', (value, problem) => {
  expect(httpUrlProblem(value)).toBe(problem);
});

test.each([
  ['https://user:TOKEN@host/a b', 'https://***@host/a b'],
  ['http:/user:TOKEN@github.com/acme', 'http:/***@github.com/acme'],
  ['https:\\\\user:TOKEN@github.com', 'https:\\\\***@github.com'],
  ['x-access-token:TOKEN@github.com/acme/agent', 'x-access-token:***@github.com/acme/agent'],
  ['TOKEN@github.com/acme/agent', '***@github.com/acme/agent'],
  ['https://a:b@c:TOKEN@host', 'https://***@host'],
  ['https://github.com/acme/agent@v1', 'https://github.com/acme/agent@v1'],
  ['https://github.com/acme/my agent', 'https://github.com/acme/my agent'],
])('%j is quoted as %j', (value, quoted) => {
  expect(redactUserInfo(value)).toBe(quoted);
});

test('a long run of spaces or slashes is judged at once (the checks stay linear)', () => {
  for (const value of [`https:${'/'.repeat(200_000)}x`, `${' '.repeat(200_000)}x`, `https://${' '.repeat(200_000)}`, `a${'a'.repeat(200_000)}`]) {
    expect(httpUrlProblem(value)).toBe('not-http-url');
    expect(redactUserInfo(value)).toBe(value);
  }
});

test('the form of the rest of a URL is judged without its user-info', () => {
  expect(httpUrlProblem(withoutUserInfo('https://user:TOKEN@api.example.com/v1'))).toBeUndefined();
  expect(httpUrlProblem(withoutUserInfo('https://user:TOKEN@api.example.com/a b'))).toBe('not-http-url');
});
