import { randomUUID } from 'node:crypto';
import type { AddressInfo, Server } from 'node:net';
import S3rver from 's3rver';
import { deleteObjects, fromS3rver, s3ErrorXml } from './delete-objects';

/**
 * The access key id s3rver knows. s3rver rejects any other key id (InvalidAccessKeyId) but never checks a
 * signature, so any secret works with it.
 */
const S3RVER_ACCESS_KEY_ID = 'S3RVER';

/** Options of {@link startInProcessS3}. */
export interface InProcessS3Options {
  /**
   * TCP port on 127.0.0.1.
   * @default 0 (a free port chosen by the system)
   */
  readonly port?: number;
  /** Directory that holds the buckets and objects; kept on close, so data survives a restart. */
  readonly directory: string;
  /**
   * Buckets created at start when missing.
   * @default []
   */
  readonly buckets?: readonly string[];
}

/** A running in-process S3-compatible server. */
export interface InProcessS3 {
  /** Base URL, `http://127.0.0.1:<port>`; clients must use path-style addressing. */
  readonly endpoint: string;
  /** The port the server listens on. */
  readonly port: number;
  /** Region to sign with; the server ignores it. */
  readonly region: string;
  /** The one access key id the server accepts. */
  readonly accessKeyId: string;
  /** A secret to sign with; the server does not verify signatures, so its value does not matter. */
  readonly secretAccessKey: string;
  /** Stops listening; resolves once every connection is closed. Objects stay in `directory`. */
  close(): Promise<void>;
}

/** The segments of a path, each decoded as s3rver reads it (one that does not decode is left as sent). */
function decodedSegments(pathText: string): string[] {
  return pathText.split('/').map((raw) => {
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  });
}

/** Whether a path (an object's, or a copy source's) has a segment that would name a file elsewhere. */
function leavesDirectory(pathText: string): boolean {
  return decodedSegments(pathText).some((segment) => segment === '.' || segment === '..' || /[\\/]/.test(segment));
}

/**
 * The longest name of a file: s3rver keeps an object in files named after the last segment of its key with a suffix
 * of up to 22 bytes (`._S3rver_metadata.json`), in directories named after the others.
 */
const NAME_MAX_BYTES = 255;
const LAST_SEGMENT_MAX_BYTES = NAME_MAX_BYTES - '._S3rver_metadata.json'.length;

/** Whether a segment of a key (its segments as stored) is too long to be a file or directory name here. */
function segmentsTooLong(segments: readonly string[]): boolean {
  return segments.some((segment, i) => Buffer.byteLength(segment) > (i === segments.length - 1 ? LAST_SEGMENT_MAX_BYTES : NAME_MAX_BYTES));
}

/** Why a key sent in a body (DeleteObjects), as stored, cannot name a file here; undefined when it can. */
function bodyKeyProblem(key: string): string | undefined {
  const segments = key.split('/');
  if (segments.some((segment) => segment === '.' || segment === '..' || segment.includes('\\'))) return 'This server takes no object key with "." or ".." segments or backslashes';
  if (key.startsWith('/') || key.includes('//')) return 'This server takes no object key with an empty segment (a "//" or a leading "/")';
  if (segmentsTooLong(segments)) return `This server takes no object key with a segment longer than ${LAST_SEGMENT_MAX_BYTES} bytes (${NAME_MAX_BYTES} but for the last)`;
  return undefined;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;
const PART_NUMBER = /^\d{1,5}$/;

/** s3rver's authentication (its key id check), which its router runs before each route. */
const authenticate = (fromS3rver('./middleware/authentication') as () => S3rver.Middleware)();

/**
 * s3rver stores an object at its key joined to the bucket's directory, and a part of a multipart upload at its
 * upload id and part number joined to the uploads' directory: a key with `..` segments (`../../etc/x`), a copy source
 * with them, or an upload id or part number that is not what s3rver made would be written (or read) outside
 * `directory`. Such requests (and `.` segments, which would alias another key) are refused as S3 refuses a request it
 * cannot take: 400 `InvalidArgument`. So are keys with an empty segment (`a//b`, a leading `/`), which s3rver cannot
 * store (it answers them with a 404 that is no S3 error, which looks like no S3 server at all), and keys with a
 * segment too long for a file name (it answers a 500, which looks like a passing problem). The check runs last before s3rver's routes, on the path as they read it (a
 * Host of `<bucket>.s3.amazonaws.com` puts the bucket in it). The keys of DeleteObjects, sent in its body, are checked
 * the same way by its own handler (delete-objects.ts); a browser form's POST, whose key is in a form, is refused whole.
 */
const keepInsideDirectory: S3rver.Middleware = async (ctx, next) => {
  const { uploadId, partNumber } = ctx.query;
  const copySource = ctx.get('x-amz-copy-source');
  const segments = ctx.path.split('/').filter((segment) => segment !== '');
  // the key: what follows `/<bucket>/`
  const key = ctx.path.replace(/^\/+[^/]*\/?/, '');
  if (ctx.method === 'POST' && segments.length === 1 && ctx.query.delete !== undefined && !leavesDirectory(ctx.path)) {
    // answered here, before s3rver's router, whose routes authenticate: the same check of the key id runs first
    ctx.params = { bucket: segments[0] };
    return authenticate(ctx, async () => {
      const answer = await deleteObjects(ctx.app.store, segments[0], ctx.req, bodyKeyProblem);
      ctx.status = answer.status;
      ctx.type = 'application/xml';
      ctx.set('x-amz-request-id', randomUUID());
      ctx.body = answer.body;
    });
  }
  const escapes =
    leavesDirectory(ctx.path) ||
    key.startsWith('/') ||
    key.includes('//') ||
    segmentsTooLong(decodedSegments(key)) ||
    (ctx.method === 'POST' && segments.length <= 1) ||
    copySource.includes('?') ||
    leavesDirectory(copySource) ||
    (uploadId !== undefined && !(typeof uploadId === 'string' && UPLOAD_ID.test(uploadId))) ||
    (partNumber !== undefined && !(typeof partNumber === 'string' && PART_NUMBER.test(partNumber)));
  if (!escapes) return next();
  ctx.status = 400;
  ctx.type = 'application/xml';
  ctx.set('x-amz-request-id', randomUUID());
  ctx.body = s3ErrorXml(
    'InvalidArgument',
    'This server takes no object key with an empty segment (a "//" or a leading "/") or a segment longer ' +
      `than ${LAST_SEGMENT_MAX_BYTES} bytes (${NAME_MAX_BYTES} but for the last), no object key or copy source with "." ` +
      'or ".." segments or backslashes, only the upload ids it made, and no browser form upload (a POST on a bucket)',
  );
};

/**
 * Starts an S3-compatible server (s3rver) inside this process, for the demo and for tests that only move bytes.
 *
 * It is not a security boundary: it does not verify SigV4 signatures, allows anonymous requests, has no IAM
 * policies and no AbortMultipartUpload. Never use it to prove authentication or authorization; use Ceph RADOS
 * Gateway (`scripts/ceph/up.sh`) for that.
 */
export async function startInProcessS3(options: InProcessS3Options): Promise<InProcessS3> {
  const server = new S3rver({
    silent: true,
    directory: options.directory,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
    vhostBuckets: false,
  });
  // just before s3rver's routes, its last middleware (the others were added by its constructor, the Host rewrite among
  // them; Koa composes them when listening)
  server.middleware.splice(server.middleware.length - 1, 0, keepInsideDirectory);
  await server.configureBuckets();
  // listening here rather than in s3rver's run(), which never settles when the port is taken (the error goes
  // unhandled and ends the process)
  const listening = await new Promise<Server>((resolve, reject) => {
    const http = server.listen(options.port ?? 0, '127.0.0.1', () => {
      http.off('error', reject);
      resolve(http);
    });
    http.once('error', reject);
  });
  server.httpServer = listening;
  const { port } = listening.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    region: 'us-east-1',
    accessKeyId: S3RVER_ACCESS_KEY_ID,
    secretAccessKey: S3RVER_ACCESS_KEY_ID,
    close: () => (closed ??= server.close()),
  };
}
