/**
 * Reading a request's JSON body: its size limit, its decoding (UTF-8 only), its nesting, its parse, and text that is
 * not well-formed Unicode. Problems are FastAPI's (pydantic v2) error items, as in validation.ts.
 */
import type { Context } from 'hono';
import { HttpError, RequestValidationError } from './errors';
import { jsonErrorPosition } from './json-error-position';
import { BODY_TOO_DEEP, MAX_BODY_DEPTH, exceedsJsonTextDepth, malformedTextPath, mayHoldSurrogates, withWellFormedText } from './json-values';

/** pydantic's item of a body that is no object. */
export const NOT_AN_OBJECT: [type: string, msg: string] = ['model_attributes_type', 'Input should be a valid dictionary or object to extract fields from'];

/**
 * The largest request body the platform reads: 32 MiB (a batch of runs with large inputs and outputs fits; a body
 * that would take the platform's memory does not).
 */
export const MAX_REQUEST_BODY_BYTES = 32 * 1024 * 1024;

const tooLarge = (): HttpError =>
  new HttpError(413, `Request body too large: at most ${MAX_REQUEST_BODY_BYTES / 1024 / 1024} MiB; send fewer items per request`);

/** Decodes UTF-8, refusing what is not: malformed bytes are not taken as U+FFFD. A BOM is kept, as JSON.parse refuses it. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Decodes UTF-8, each malformed sequence as U+FFFD. */
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The offset of the first byte of `bytes` that begins no valid UTF-8 sequence (as the Encoding standard reads it), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // the continuation bytes a lead byte takes, and the narrower range of the first one (no overlong form, no surrogate)
    let need: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) need = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2;
      if (lead === 0xe0) lower = 0xa0;
      if (lead === 0xed) upper = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3;
      if (lead === 0xf0) lower = 0x90;
      if (lead === 0xf4) upper = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < lower || next > upper) return i;
      lower = 0x80;
      upper = 0xbf;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * The body as text, read up to {@link MAX_REQUEST_BODY_BYTES}: a larger one is a 413, and is not read further. Bytes
 * that are not UTF-8 are refused (422 `string_unicode`), as a lone surrogate is, or replaced with U+FFFD where a lone
 * surrogate is too (`malformedText: 'replace'`).
 */
async function readBodyText(c: Context, malformedText: JsonBodyOptions['malformedText']): Promise<string> {
  const declared = Number(c.req.header('content-length'));
  if (declared > MAX_REQUEST_BODY_BYTES) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_REQUEST_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const whole = Buffer.concat(chunks, bytes);
  if (malformedText === 'replace') return lenientUtf8.decode(whole);
  try {
    return strictUtf8.decode(whole);
  } catch {
    const at = firstInvalidUtf8(whole);
    throw new RequestValidationError([
      {
        loc: ['body'],
        msg: `Input should be a valid string, not valid UTF-8: byte ${at} of the body (counting from 0) begins no UTF-8 sequence; send the text as UTF-8`,
        type: 'string_unicode',
      },
    ]);
  }
}

/**
 * Whether FastAPI reads a body of this `Content-Type` as JSON: `application/json`, `application/<anything>+json`, or
 * no `Content-Type` at all.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const [main, sub] = header.split(';')[0]!.trim().toLowerCase().split('/');
  return main === 'application' && sub !== undefined && (sub === 'json' || sub.endsWith('+json'));
}

/** How a route reads its body. */
export interface JsonBodyOptions {
  /**
   * Read the body as JSON whatever its `Content-Type` (the agent server, as the real one does). By default a body
   * of another type (`curl -d` sends `application/x-www-form-urlencoded`) is not an object, as FastAPI answers:
   * `model_attributes_type` at `["body"]`.
   */
  readonly anyContentType?: boolean;
  /**
   * What becomes of a string or key that is not well-formed Unicode (a lone surrogate), and of bytes that are not
   * UTF-8: `refuse` them (422 `string_unicode`, the default), or `replace` each with U+FFFD, as traces take them: a
   * tracing SDK that cut a string in the middle of a pair or of a character should not lose the whole batch.
   */
  readonly malformedText?: 'refuse' | 'replace';
}

/** The message of a string (or key) holding a lone UTF-16 surrogate, which no text column can keep. */
const MALFORMED_TEXT =
  'Input should be a valid string, not well-formed Unicode: it holds a lone UTF-16 surrogate (such as the escape \\ud800 ' +
  'without its pair); send the text as UTF-8, or escape both halves of a surrogate pair';

/**
 * The parsed JSON body of a request. An empty body is `missing` at `["body"]`; malformed JSON is `json_invalid` at
 * `["body", <position>]`, as FastAPI answers; a body over {@link MAX_REQUEST_BODY_BYTES} is a 413. A string or key
 * that is not well-formed Unicode (a lone surrogate) is `string_unicode` at its place: stored, it would come back
 * changed; bytes that are not UTF-8 are `string_unicode` at `["body"]`. A body nested deeper than
 * {@link MAX_BODY_DEPTH} is refused at `["body"]` before it is parsed.
 */
export async function readJsonBody(c: Context, options: JsonBodyOptions = {}): Promise<unknown> {
  const text = await readBodyText(c, options.malformedText);
  if (text === '') {
    throw new RequestValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  }
  if (!options.anyContentType && !isJsonContentType(c.req.header('content-type'))) {
    const [type, msg] = NOT_AN_OBJECT;
    throw new RequestValidationError([{ loc: ['body'], msg: `${msg}; send it as Content-Type: application/json`, type }]);
  }
  // before the parse: the cost of a body nested a million levels deep is then one pass over its text
  if (exceedsJsonTextDepth(text, MAX_BODY_DEPTH)) {
    throw new RequestValidationError([{ loc: ['body'], msg: `Value error, ${BODY_TOO_DEEP}`, type: 'value_error' }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Node's message names a position for few mistakes: the offset is found by a scan of the text
    const position = jsonErrorPosition(text);
    throw new RequestValidationError([{ loc: ['body', Math.max(0, position)], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
  if (!mayHoldSurrogates(text)) return value;
  if (options.malformedText === 'replace') return withWellFormedText(value);
  const malformed = malformedTextPath(value);
  if (malformed) throw new RequestValidationError([{ loc: ['body', ...malformed], msg: MALFORMED_TEXT, type: 'string_unicode' }]);
  return value;
}
