/**
 * The URLs users give the platform (a deployment's `repo_url` and `custom_url`, a destination's `endpoint_url`) and
 * the provider (its API URLs): whether one is an absolute http(s) URL written in full — the scheme (any case), `//`,
 * a host, and no whitespace — with no user name or password. One check for the local platform, the provider and the
 * constructs. The spec states no form for the platform's URLs: the local platform refuses what is not written in full
 * (a URL that WHATWG parsing would mend, `http:/host`, `https://my agent`), the provider and the constructs only warn
 * of it, and refuse a user name or password, which would be kept in plan and state. The provider's own API URLs must
 * be http(s): it calls them.
 */

/** What is wrong with a URL. */
export type HttpUrlProblem =
  /** Not an absolute http(s) URL written in full. */
  | 'not-http-url'
  /** It carries a user name or password, which would be kept and returned as written. */
  | 'user-info';

// no backslash anywhere: WHATWG parsing takes it for a slash (`https://github.com\\evil.com` has host github.com),
// other parsers do not
const WRITTEN_IN_FULL = /^https?:\/\/[^\s/?#\\]+(?:[/?#][^\s\\]*)?$/i;

/** Why `value` is not a URL the platform takes; undefined when it is. */
export function httpUrlProblem(value: string): HttpUrlProblem | undefined {
  if (!WRITTEN_IN_FULL.test(value)) return 'not-http-url';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not-http-url';
  }
  return url.username !== '' || url.password !== '' ? 'user-info' : undefined;
}

/**
 * Whether two URLs name the same address as a server compares them: scheme and host in any case, a default port
 * written or not, and a path with or without its trailing slash (`https://git.example.com/acme/agent/` is
 * `https://git.example.com/acme/agent`). A platform that stores a URL may hand it back so normalised.
 */
export function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  const canonical = (text: string): string | undefined => {
    try {
      const url = new URL(text);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}${url.hash}`;
    } catch {
      return undefined;
    }
  };
  const left = canonical(a);
  return left !== undefined && left === canonical(b);
}
