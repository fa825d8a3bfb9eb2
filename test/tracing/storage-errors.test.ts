/**
 * How an attempt's error is read (the failure table's storage rows): what the store answered, or that something
 * else failed, decides whether the run is retried and what its `errors` say. The errors are shaped as the S3 client
 * throws them; the same kinds are proven against real stores in destinations-ceph.test.ts and export-failures.test.ts.
 */
import { SecretRedactor } from '../../lib/api/redact';
import { classifyStorageError, MAX_DESCRIBED_MESSAGE_CHARS } from '../../lib/local/tracing/destinations/storage-errors';
import { decideFailure, MAX_PROCESSING_ERROR_CHARS } from '../../lib/local/tracing/exports/failures';

/** An error of the S3 client for an answer with this status and error code, with S3's request id when given. */
function answer(status: number, code: string, requestId?: string): Error {
  return Object.assign(new Error(`${code} from the store`), {
    name: code,
    $metadata: { httpStatusCode: status, ...(requestId ? { requestId } : {}) },
  });
}

/** An error with a `code`, as Node and native modules throw them. */
const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

function decision(err: unknown): { retryable: boolean; message: string } {
  const decided = decideFailure(err, undefined);
  if (decided.action !== 'record') throw new Error('expected a recorded failure');
  return { retryable: decided.retryable, message: decided.message };
}

test('a gateway that could not reach the store or limits the rate (429, 502, 503, 504 without S3 request id) is a passing problem: retried', () => {
  for (const status of [429, 502, 503, 504]) {
    const err = answer(status, 'Unknown');
    expect(classifyStorageError(err).kind).toBe('transient');
    expect(decision(err)).toEqual({ retryable: true, message: expect.stringMatching(/^Storage unavailable: .*\(HTTP \d{3}\)/) });
  }
});

test('any other answer without S3 request id means the endpoint is not S3: not retried', () => {
  for (const status of [404, 405, 500]) {
    const err = answer(status, 'Unknown');
    expect(classifyStorageError(err).kind).toBe('not_s3');
    expect(decision(err)).toEqual({ retryable: false, message: expect.stringContaining('Invalid endpoint') });
  }
});

test('a multipart upload the store no longer knows (NoSuchUpload) is retried: the file is written again', () => {
  expect(decision(answer(404, 'NoSuchUpload', 'req-1'))).toEqual({
    retryable: true,
    message: expect.stringMatching(/^Storage unavailable: NoSuchUpload \(HTTP 404\)/),
  });
  // a bucket that is gone is not
  expect(decision(answer(404, 'NoSuchBucket', 'req-2'))).toEqual({ retryable: false, message: expect.stringContaining('Bucket is not valid') });
});

test('errors with a code that do not come from the store are processing errors; network errors are the store being away', () => {
  const outOfMemory = coded('Worker terminated due to reaching memory limit: JS heap out of memory', 'ERR_WORKER_OUT_OF_MEMORY');
  expect(decision(outOfMemory)).toEqual({ retryable: true, message: `Processing error: Error: ${outOfMemory.message}` });
  expect(decision(coded('database is locked', 'SQLITE_BUSY'))).toEqual({ retryable: true, message: 'Processing error: Error: database is locked' });
  expect(decision(coded('socket hang up', 'ECONNRESET'))).toEqual({ retryable: true, message: expect.stringMatching(/^Storage unavailable: /) });
});

test('credentials the S3 client cannot resolve (none given, none in the environment) are not retried', () => {
  const err = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
  expect(decision(err)).toEqual({ retryable: false, message: expect.stringContaining('Access denied') });
});

test('TLS failures (plain HTTP behind https:, an untrusted certificate) are the endpoint not answering as asked', () => {
  for (const code of ['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
    expect(classifyStorageError(coded(`TLS failure ${code}`, code)).kind).toBe('unreachable');
  }
  // the SDK's wrapper of another realm's error keeps only the text
  expect(classifyStorageError(new Error('write EPROTO 80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number')).kind).toBe('unreachable');
});

test('a request S3 refuses as it was sent, by a code that says so, is not retried: sent again, it fails again', () => {
  for (const err of [answer(400, 'KeyTooLongError', 'req-3'), answer(400, 'InvalidRequest', 'req-4'), answer(400, 'InvalidArgument', 'req-5'), answer(400, 'EntityTooLarge', 'req-6'), answer(413, 'Unknown', 'req-9')]) {
    expect(classifyStorageError(err).kind).toBe('refused');
    expect(decision(err)).toEqual({ retryable: false, message: expect.stringMatching(/^Storage or destination error \(not retried\): The store refused the request - /) });
  }
  // the passing ones among the 4xx stay retried: a body damaged or cut short on the way, and a 400 of no known code
  for (const code of ['RequestTimeout', 'IncompleteBody', 'BadDigest', 'XAmzContentSHA256Mismatch', 'InvalidPart', 'Unknown']) {
    expect([code, decision(answer(400, code, 'req-7')).retryable]).toEqual([code, true]);
  }
  expect(decision(answer(409, 'OperationAborted', 'req-8')).retryable).toBe(true);
});

test('a secret the store writes back is redacted before its message is cut short: no piece of it is left at the cut', () => {
  // 31 characters: too short for pieces, so a copy cut short is recognised by its first 16 characters only
  const secret = 'Secret-Access-Key-0123456789abc';
  const redactor = new SecretRedactor([secret]);
  const storeError = Object.assign(new Error(`${'x'.repeat(MAX_DESCRIBED_MESSAGE_CHARS - 10)} ${secret} is not allowed`), {
    name: 'InternalError',
    $metadata: { httpStatusCode: 500, requestId: 'r' },
  });
  const failure = classifyStorageError(storeError, redactor);
  expect(failure.description).toBe(`InternalError (HTTP 500): ${'x'.repeat(MAX_DESCRIBED_MESSAGE_CHARS - 10)} [REDACTED]`);
  const stored = decideFailure(storeError, undefined, redactor);
  expect(stored).toMatchObject({ action: 'record', message: `Storage unavailable: ${failure.description}` });
  const processing = decideFailure(new Error(`${'y'.repeat(MAX_PROCESSING_ERROR_CHARS - 20)} ${secret}`), undefined, redactor);
  expect(processing).toMatchObject({ action: 'record', message: `Processing error: Error: ${'y'.repeat(MAX_PROCESSING_ERROR_CHARS - 20)} [REDACTED]` });
});
