/**
 * Keeps secrets (API keys, bearer tokens, deployment secret values, storage credentials) out of every text that can
 * reach a user: error messages, error bodies, logs. A server that echoes a secret back in its error detail must not
 * make it leak, whether it echoes it as sent, escaped (JSON, Python, URL or HTML escaping), or cut short.
 */

/** What replaces a secret in redacted text. */
export const REDACTED = '[REDACTED]';

/**
 * Secrets shorter than this are not redacted: they carry no meaningful secret and would match almost any text,
 * garbling ids and messages.
 */
export const MIN_REDACTED_SECRET_LENGTH = 4;

/**
 * A copy of a secret cut short is redacted when it keeps at least this many of the secret's first characters, and at
 * least half of them: a server that truncates what it echoes (`'sk-live-0123…'`) must not leak most of a key, while
 * a few common first characters alone (`sk-`) are left alone.
 */
export const MIN_REDACTED_PREFIX_LENGTH = 8;

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The ways a server may write a secret back: as sent, and escaped as JSON, Python, URLs and HTML do. */
function writtenForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const asciiJson = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const python = secret.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  const url = encodeURIComponent(secret);
  return [
    secret,
    json,
    asciiJson,
    asciiJson.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => `\\u${hex.toUpperCase()}`),
    python,
    url,
    url.replace(/%20/g, '+'),
    secret.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]),
  ];
}

/** A set of secret strings, and the functions that scrub them out of text and parsed JSON values. */
export class SecretRedactor {
  private readonly secrets = new Set<string>();
  /** Every written form of every secret, longest first (so a secret containing another one is removed whole). */
  private forms: string[] | undefined;

  /** @param secrets initial secrets; empty, null and undefined values are ignored */
  constructor(secrets: Iterable<string | null | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Registers a secret; empty, null, undefined and too short values are ignored. */
  add(secret: string | null | undefined): void {
    if (typeof secret === 'string' && secret.length >= MIN_REDACTED_SECRET_LENGTH && !this.secrets.has(secret)) {
      this.secrets.add(secret);
      this.forms = undefined;
    }
  }

  /** Every occurrence of every registered secret in `text`, whole, escaped or cut short, replaced by `[REDACTED]`. */
  redact(text: string): string {
    this.forms ??= [...new Set([...this.secrets].flatMap(writtenForms))].sort((a, b) => b.length - a.length);
    let result = text;
    for (const form of this.forms) if (result.includes(form)) result = result.split(form).join(REDACTED);
    for (const form of this.forms) result = redactPrefixes(result, form);
    return result;
  }

  /** A deep copy of a parsed JSON value with every string (keys included) redacted. */
  redactValue(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [this.redact(key), this.redactValue(item)]),
      );
    }
    return value;
  }
}

/** `text` with every run of characters that starts `secret` and holds enough of it (see above) redacted. */
function redactPrefixes(text: string, secret: string): string {
  const least = Math.max(MIN_REDACTED_PREFIX_LENGTH, Math.ceil(secret.length / 2));
  if (secret.length <= least) return text;
  const start = secret.slice(0, least);
  let result = '';
  let from = 0;
  for (let at = text.indexOf(start); at >= 0; at = text.indexOf(start, at + 1)) {
    if (at < from) continue;
    let end = at + least;
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at]) end++;
    result += text.slice(from, at) + REDACTED;
    from = end;
  }
  return result + text.slice(from);
}
