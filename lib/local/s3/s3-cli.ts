/**
 * `agentplatform-local s3`: the in-process S3-compatible server (s3rver) on its own, for export destinations of a
 * local platform run from the command line (the demo and the tests start theirs in their own process). It prints its
 * endpoint and credentials, and serves until SIGINT or SIGTERM; objects stay in the directory.
 */
import { parseArgs } from 'node:util';
import { startInProcessS3 } from './in-process-s3';

const USAGE = `Usage: agentplatform-local s3 [options]

  --port <n>        TCP port on 127.0.0.1, 0 for any free one (default 4568)
  --dir <dir>       where buckets and objects are kept (default .local-s3)
  --bucket <name>   a bucket to create when missing, repeatable (default agent-traces)
  --help            show this text

Destinations use it with endpoint_url set to the printed endpoint, path-style addressing, the access key id S3RVER
and any secret (it checks no signature: it is no place for real data; see docs/s3-servers.md).
`;

/** Where the command writes. */
export interface TextSink {
  write(text: string): unknown;
}

/** Runs the command until a signal stops it; resolves to the exit code of a usage mistake or a failed start. */
export async function s3Command(argv: readonly string[], out: TextSink = process.stdout, err: TextSink = process.stderr): Promise<number | undefined> {
  let values: { port?: string; dir?: string; bucket?: string[]; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { port: { type: 'string' }, dir: { type: 'string' }, bucket: { type: 'string', multiple: true }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (problem) {
    err.write(`agentplatform-local s3: ${(problem as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out.write(USAGE);
    return 0;
  }
  const port = Number(values.port ?? 4568);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    err.write(`agentplatform-local s3: --port must be a whole number from 0 to 65535; got ${values.port}\n\n${USAGE}`);
    return 2;
  }
  const buckets = values.bucket ?? ['agent-traces'];
  let s3;
  try {
    s3 = await startInProcessS3({ port, directory: values.dir ?? '.local-s3', buckets });
  } catch (problem) {
    err.write(`agentplatform-local s3: ${(problem as Error).message}\n`);
    return 1;
  }
  const stop = () => void s3.close().then(() => process.exit(0));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  out.write(
    `in-process S3 server ready at ${s3.endpoint} (buckets: ${buckets.join(', ')})\n` +
      `access key id: ${s3.accessKeyId}; any secret access key; path-style addressing\n`,
  );
  return undefined;
}
