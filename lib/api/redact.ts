/**
 * Keeps secrets (API keys, bearer tokens, deployment secret values, storage credentials) out of every text that can
 * reach a user: error messages, error bodies, logs. A server that echoes a secret back in its error detail must not
 * make it leak, whether it echoes it as sent, escaped (JSON, Python, Go, URLs, HTML or XML, even one escaping inside
 * another), in other letter case, cut short, only a piece of it, or Base64-encoded.
 *
 * The text is looked at as it reads once its escapes are undone (redact-decode.ts); each secret is looked for there,
 * also undone of escapes, and what is replaced is the span of the original text the match came from.
 */
import { decodeEscapes, foldCase } from './redact-decode';

/** What replaces a secret in redacted text. */
export const REDACTED = '[REDACTED]';

/**
 * Secrets shorter than this are not redacted: they carry no meaningful secret and would match almost any text,
 * garbling ids and messages.
 */
export const MIN_REDACTED_SECRET_LENGTH = 4;

/**
 * A copy of a secret shorter than twice {@link REDACTED_PIECE_LENGTH} cut short is redacted when it keeps at least
 * this many of the secret's first characters, and at least half of them: a server that truncates what it echoes
 * (`'sk-live-0123…'`) must not leak most of a key, while a few common first characters alone (`sk-`) are left alone.
 */
export const MIN_REDACTED_PREFIX_LENGTH = 8;

/**
 * Of a secret at least twice this long, any run of this many consecutive characters, taken from anywhere in it, is
 * redacted (in any letter case): a server that cuts, or quotes only the middle of, a long token (an STS session
 * token runs to a thousand characters) must not leak any long piece of it. So many characters in a row of a key or a
 * token are, in practice, found nowhere else.
 */
export const REDACTED_PIECE_LENGTH = 16;

/**
 * A piece with fewer different characters than this (`================`, a run of spaces) is not looked for: it says
 * nothing of the secret, and may well be found in other text.
 */
const MIN_DISTINCT_PIECE_CHARACTERS = 4;

/** A registered secret, as it is looked for. */
interface Entry {
  /** As written: the secret as registered, or the characters of its Base64 encoding that stand for it alone. */
  readonly raw: string;
  /**
   * Undone of escapes and in lower case, as it is looked for in a decoded text (the whole of it); undefined for a
   * secret that is mostly escapes (`%41%42`), looked for as written only: undone, it would be too short.
   */
  readonly folded: string | undefined;
  /** The first characters of it (undone of escapes) that a cut copy must keep, for a secret that has no pieces. */
  readonly prefix: string | undefined;
  /** The secret undone of escapes, for extending a prefix match. */
  readonly decoded: string;
}

/** What the redactor looks for: every secret, and the pieces of the long ones (with their rolling hashes). */
interface Index {
  readonly entries: readonly Entry[];
  readonly pieces: ReadonlySet<string>;
  readonly pieceHashes: ReadonlySet<number>;
}

/** A polynomial rolling hash of the last {@link REDACTED_PIECE_LENGTH} characters: pieces are found in linear time. */
const HASH_BASE = 1_000_003;
const HASH_TOP = Array.from({ length: REDACTED_PIECE_LENGTH - 1 }).reduce<number>((power) => Math.imul(power, HASH_BASE), 1);
const hashOf = (piece: string): number => {
  let hash = 0;
  for (let i = 0; i < piece.length; i++) hash = (Math.imul(hash, HASH_BASE) + piece.charCodeAt(i)) | 0;
  return hash;
};

/** Whether `piece` has at least {@link MIN_DISTINCT_PIECE_CHARACTERS} different characters. */
function variedEnough(piece: string): boolean {
  const seen: string[] = [];
  for (const c of piece) if (!seen.includes(c) && seen.push(c) >= MIN_DISTINCT_PIECE_CHARACTERS) return true;
  return false;
}

/** A set of secret strings, and the functions that scrub them out of text and parsed JSON values. */
export class SecretRedactor {
  private readonly secrets = new Set<string>();
  private index: Index | undefined;

  /** @param secrets initial secrets; empty, null and undefined values are ignored */
  constructor(secrets: Iterable<string | null | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Registers a secret; empty, null, undefined and too short values are ignored. */
  add(secret: string | null | undefined): void {
    if (typeof secret === 'string' && secret.length >= MIN_REDACTED_SECRET_LENGTH && !this.secrets.has(secret)) {
      this.secrets.add(secret);
      this.index = undefined;
    }
  }

  /**
   * Every occurrence in `text` of every registered secret, whole or a piece of it, as written or escaped, replaced by
   * `[REDACTED]` (overlapping occurrences by one).
   */
  redact(text: string): string {
    if (this.secrets.size === 0 || text.length < MIN_REDACTED_SECRET_LENGTH) return text;
    const index = (this.index ??= buildIndex(this.secrets));
    const spans: Array<[number, number]> = [];
    for (const { raw } of index.entries) {
      for (let at = text.indexOf(raw); at >= 0; at = text.indexOf(raw, at + 1)) spans.push([at, at + raw.length]);
    }
    const decoded = decodeEscapes(text);
    const folded = foldCase(decoded.text);
    /** Marks the characters `from` (inclusive) to `to` (exclusive) of the decoded text. */
    const mark = (from: number, to: number) => spans.push([decoded.starts[from], decoded.ends[to - 1]]);
    for (const entry of index.entries) {
      if (entry.folded === undefined) continue;
      for (let at = folded.indexOf(entry.folded); at >= 0; at = folded.indexOf(entry.folded, at + 1)) mark(at, at + entry.folded.length);
      if (entry.prefix === undefined) continue;
      for (let at = decoded.text.indexOf(entry.prefix); at >= 0; at = decoded.text.indexOf(entry.prefix, at + 1)) {
        let end = at + entry.prefix.length;
        while (end < decoded.text.length && end - at < entry.decoded.length && decoded.text[end] === entry.decoded[end - at]) end++;
        mark(at, end);
      }
    }
    if (index.pieces.size > 0) {
      let hash = 0;
      for (let end = 1; end <= folded.length; end++) {
        const start = end - REDACTED_PIECE_LENGTH;
        if (start > 0) hash = (hash - Math.imul(folded.charCodeAt(start - 1), HASH_TOP)) | 0;
        hash = (Math.imul(hash, HASH_BASE) + folded.charCodeAt(end - 1)) | 0;
        if (start >= 0 && index.pieceHashes.has(hash) && index.pieces.has(folded.slice(start, end))) mark(start, end);
      }
    }
    return replaceSpans(text, spans);
  }

  /**
   * `text` redacted, then cut to at most `maxChars` characters (more when the cut falls inside a `[REDACTED]`, kept
   * whole). Redacted first: a piece of a secret left at the cut may be too short to be told from other text.
   */
  redactAndCut(text: string, maxChars: number): string {
    const redacted = this.redact(text);
    if (redacted.length <= maxChars) return redacted;
    const marker = redacted.lastIndexOf(REDACTED, maxChars - 1);
    return redacted.slice(0, marker >= 0 && marker + REDACTED.length > maxChars ? marker + REDACTED.length : maxChars);
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

function buildIndex(secrets: Iterable<string>): Index {
  const entries: Entry[] = [];
  const pieces = new Set<string>();
  const pieceHashes = new Set<number>();
  const addPieces = (folded: string) => {
    for (let at = 0; at + REDACTED_PIECE_LENGTH <= folded.length; at++) {
      const piece = folded.slice(at, at + REDACTED_PIECE_LENGTH);
      if (!pieces.has(piece) && variedEnough(piece)) pieces.add(piece), pieceHashes.add(hashOf(piece));
    }
  };
  for (const raw of secrets) {
    const decoded = decodeEscapes(raw).text;
    const folded = foldCase(decoded);
    if (folded.length < MIN_REDACTED_SECRET_LENGTH) {
      entries.push({ raw, folded: undefined, prefix: undefined, decoded });
      continue;
    }
    let prefix: string | undefined;
    if (folded.length >= 2 * REDACTED_PIECE_LENGTH) addPieces(folded);
    else {
      const least = Math.max(MIN_REDACTED_PREFIX_LENGTH, Math.ceil(decoded.length / 2));
      if (decoded.length > least) prefix = decoded.slice(0, least);
    }
    entries.push({ raw, folded, prefix, decoded });
    for (const core of base64Cores(raw)) {
      const coreFolded = foldCase(decodeEscapes(core).text);
      if (coreFolded.length >= 2 * REDACTED_PIECE_LENGTH) addPieces(coreFolded);
      else if (coreFolded.length >= REDACTED_PIECE_LENGTH) entries.push({ raw: core, folded: coreFolded, prefix: undefined, decoded: core });
    }
  }
  return { entries, pieces, pieceHashes };
}

/**
 * The characters of the Base64 (and base64url) encodings of a text that stand for it alone, whatever came before it
 * (one each for the three places it may start within Base64's groups of 3 bytes): a secret sent in a `Basic`
 * authorization header, or in a token, echoed as it was sent.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [0, 1, 2].flatMap((before) => {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * before) / 6), Math.floor((8 * (before + bytes.length)) / 6));
    return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
  });
}

/** `text` with each span (merged with those it overlaps) replaced by `[REDACTED]`. */
function replaceSpans(text: string, spans: Array<[number, number]>): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let result = '';
  let from = 0;
  let [start, end] = spans[0];
  for (const [spanStart, spanEnd] of spans) {
    if (spanStart < end) {
      end = Math.max(end, spanEnd);
      continue;
    }
    result += text.slice(from, start) + REDACTED;
    from = end;
    [start, end] = [spanStart, spanEnd];
  }
  return result + text.slice(from, start) + REDACTED + text.slice(end);
}
