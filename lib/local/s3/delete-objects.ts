/**
 * DeleteObjects (`POST /<bucket>?delete`) for the in-process S3 server, in place of s3rver's own, which parses the
 * keys of the request as XML values, so that a key made of digits is read as a number (`0001` deletes `1`), and
 * trims them (` a` deletes `a`). Here each key is taken as sent, checked as the server checks a key in a path (no
 * `.`/`..` segment, no empty segment, none too long to be a file name), and deleted when it exists. A key that fails
 * the check gets its own `<Error>` in the answer, as S3 reports a key it could not delete; the others are deleted.
 */
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type S3rver from 's3rver';

/** S3's limit of keys per request. */
const MAX_KEYS = 1000;
/** A body larger than this cannot be 1,000 keys of at most 1,024 bytes each. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Loads a module as s3rver would: one of its dependencies, or one of its own (`./middleware/...`). */
export const fromS3rver = createRequire(require.resolve('s3rver'));

// the XML parser s3rver itself uses (its dependency, at the version it was tested with)
const xml = fromS3rver('fast-xml-parser') as {
  validate(text: string): true | object;
  parse(text: string, options: object): Record<string, unknown>;
};
const he = fromS3rver('he') as { decode(text: string): string; escape(text: string): string };

/** The request's body as text, or undefined when it is larger than {@link MAX_BODY_BYTES}. */
async function bodyText(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An S3 error document. */
export function s3ErrorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${he.escape(message)}</Message></Error>`;
}

/** The keys and the Quiet flag of a DeleteObjects body, or an error code and message. */
function parseDelete(text: string): { keys: string[]; quiet: boolean } | { code: string; message: string } {
  const malformed = { code: 'MalformedXML', message: 'The XML you provided was not well-formed or did not validate against our published schema.' };
  if (xml.validate(text) !== true) return malformed;
  const parsed = xml.parse(text, { parseNodeValue: false, trimValues: false, tagValueProcessor: (value: string) => he.decode(value) });
  const root = parsed.Delete as { Object?: unknown; Quiet?: unknown } | undefined;
  const objects = root?.Object === undefined ? [] : ([] as unknown[]).concat(root.Object);
  if (objects.length === 0 || objects.length > MAX_KEYS) return malformed;
  const keys = objects.map((object) => (object as { Key?: unknown } | null)?.Key);
  if (!keys.every((key): key is string => typeof key === 'string' && key !== '')) return malformed;
  return { keys, quiet: typeof root?.Quiet === 'string' && root.Quiet.trim() === 'true' };
}

/**
 * Answers one DeleteObjects request on `bucket`. `keyProblem` says why a key cannot be stored here (undefined when
 * it can): such a key is reported, not deleted.
 */
export async function deleteObjects(
  store: S3rver.Store,
  bucket: string,
  request: IncomingMessage,
  keyProblem: (key: string) => string | undefined,
): Promise<{ status: number; body: string }> {
  if (!(await store.getBucket(bucket))) return { status: 404, body: s3ErrorXml('NoSuchBucket', 'The specified bucket does not exist') };
  const text = await bodyText(request);
  if (text === undefined) return { status: 400, body: s3ErrorXml('MaxMessageLengthExceeded', 'Your request was too big.') };
  const parsed = parseDelete(text);
  if ('code' in parsed) return { status: 400, body: s3ErrorXml(parsed.code, parsed.message) };
  const entries: string[] = [];
  for (const key of parsed.keys) {
    const problem = keyProblem(key);
    if (problem !== undefined) {
      entries.push(`<Error><Key>${he.escape(key)}</Key><Code>InvalidArgument</Code><Message>${he.escape(problem)}</Message></Error>`);
      continue;
    }
    if (await store.existsObject(bucket, key)) await store.deleteObject(bucket, key);
    // S3 reports a key that did not exist as deleted too
    if (!parsed.quiet) entries.push(`<Deleted><Key>${he.escape(key)}</Key></Deleted>`);
  }
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${entries.join('')}</DeleteResult>`;
  return { status: 200, body };
}
