/**
 * The URLs users give the platform (a deployment's `repo_url` and `custom_url`, a destination's `endpoint_url`) and
 * the provider (its API URLs): whether one is an absolute http(s) URL written in full — the scheme (any case), `//`,
 * a host, and no whitespace — with no user name or password. One check for the local platform, the provider and the
 * constructs. The spec states no form for the platform's URLs: the local platform refuses what is not written in full
 * (a URL that WHATWG parsing would mend, `http:/host`, `https://my agent`), the provider and the constructs only warn
 * of it, and refuse a user name or password, which would be kept in plan and state. The provider's own API URLs must
 * be http(s): it calls them. A user name or password is found on the raw text, however malformed the rest, and a
 * message that quotes a URL quotes it through {@link redactUserInfo}.
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

// user-info is read on the raw text, before any other check, so that no malformed URL (a space in its path, a
// backslash, `http:/`) takes a password past the refusal. As WHATWG parsing does, tabs and newlines are dropped
// anywhere and controls and spaces at the start; an http(s) authority follows any run of slashes and backslashes
// (`https:\\user:pw@host`, `https:user:pw@host`), that of another scheme only `//`. Classes that do not overlap keep
// the match linear in the length of the text.
const HTTP_USER_INFO = /^https?:[/\\]*[^/\\?#]*@/i;
const ANY_USER_INFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;
const asParsed = (value: string): string => value.replace(/[\t\n\r]/g, '').replace(/^[\x00-\x20]+/, '');

/** Why `value` is not a URL the platform takes; undefined when it is. */
export function httpUrlProblem(value: string): HttpUrlProblem | undefined {
  const raw = asParsed(value);
  if (HTTP_USER_INFO.test(raw) || ANY_USER_INFO.test(raw)) return 'user-info';
  if (!WRITTEN_IN_FULL.test(value)) return 'not-http-url';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not-http-url';
  }
  return url.username !== '' || url.password !== '' ? 'user-info' : undefined;
}

/** `value` with what comes before an `@` of its authority (a user name or password, scheme or not) replaced. */
function replaceUserInfo(value: string, replacement: string): string {
  // what may come before an authority: a scheme, if any, and slashes (`token@github.com/acme`, `user:pw@host` too)
  const prefix = /^[\x00-\x20]*(?:[a-z][a-z0-9+.-]*:)?[\s/\\]*/i.exec(value)?.[0] ?? '';
  const rest = value.slice(prefix.length);
  const authorityEnd = rest.search(/[/\\?#]/);
  const at = (authorityEnd < 0 ? rest : rest.slice(0, authorityEnd)).lastIndexOf('@');
  return at < 0 ? value : `${prefix}${replacement}${rest.slice(at + 1)}`;
}

/**
 * `value` as a message may quote it: a user name or password is written `***` (`https://***@host/path`), so that no
 * warning or error prints a secret the URL carried.
 */
export const redactUserInfo = (value: string): string => replaceUserInfo(value, '***@');

/** `value` without its user name or password, for a check of the rest of its form. */
export const withoutUserInfo = (value: string): string => replaceUserInfo(value, '');

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
