/**
 * Keeps secrets (API keys, bearer tokens, deployment secret values) out of every text that can reach a user: error
 * messages, error bodies, logs. A server that echoes a key back in its error detail must not make it leak.
 */

/** What replaces a secret in redacted text. */
export const REDACTED = '[REDACTED]';

/**
 * Secrets shorter than this are not redacted: they carry no meaningful secret and would match almost any text,
 * garbling ids and messages.
 */
export const MIN_REDACTED_SECRET_LENGTH = 4;

/** A set of secret strings, and the functions that scrub them out of text and parsed JSON values. */
export class SecretRedactor {
  private readonly secrets = new Set<string>();

  /** @param secrets initial secrets; empty, null and undefined values are ignored */
  constructor(secrets: Iterable<string | null | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Registers a secret; empty, null, undefined and too short values are ignored. */
  add(secret: string | null | undefined): void {
    if (typeof secret === 'string' && secret.length >= MIN_REDACTED_SECRET_LENGTH) this.secrets.add(secret);
  }

  /** Every occurrence of every registered secret in `text` replaced by `[REDACTED]`. */
  redact(text: string): string {
    let result = text;
    // Longest first, so that a secret containing another one is removed whole.
    for (const secret of [...this.secrets].sort((a, b) => b.length - a.length)) {
      result = result.split(secret).join(REDACTED);
    }
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
