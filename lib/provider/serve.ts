/**
 * The provider process: go-plugin's handshake (one line on stdout), tfplugin6 served over gRPC with mutual TLS on a
 * unix socket (on 127.0.0.1 on Windows), and an exit on `GRPCController/Shutdown` or when terraform dies. Only what
 * the handshake needs is loaded before it; the RPC layer (`rpc-layer.ts`) is loaded right after it, through the
 * entry point's `rpcLayer`, or, when the entry point has GetProviderSchema's answer prepared at build time, at the
 * first call that needs it: terraform's first launch of a command asks for the schema alone and never loads it.
 */
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from './log';
import { createServerCertificate } from './plugin/certificate';
import { startGrpcServer, type GrpcMethod } from './plugin/grpc-server';
import { METHODS } from './proto/descriptor';
import type { ProviderRegistry } from './registry';
import type * as RpcLayer from './rpc-layer';

/** The environment variable and value go-plugin uses to tell a plugin that terraform launched it. */
export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
/** See {@link MAGIC_COOKIE_KEY}. */
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

/** go-plugin core protocol version and the tfplugin protocol version this provider speaks. */
const CORE_PROTOCOL_VERSION = 1;
const PLUGIN_PROTOCOL_VERSION = 6;
const WATCHDOG_INTERVAL_MS = 1000;
/** After Shutdown, how long to wait for terraform to hang up before exiting anyway (go-plugin kills after 2 s). */
const SHUTDOWN_GRACE_MS = 1000;
/** The longest path a unix socket binds to: `sun_path` holds 104 bytes on macOS (108 on Linux) with its NUL. */
const MAX_SOCKET_PATH_BYTES = 103;

const NOT_A_COMMAND = `This binary is a plugin for terraform: the agentplatform provider.
It is not meant to be run by hand. terraform starts it when a configuration declares

  terraform {
    required_providers {
      agentplatform = { source = "agentplatform/agentplatform" }
    }
  }

and finds it in a provider mirror or a private registry (the release's executables, no Node.js needed), or in the
configuration's terraform.d (the launcher: node_modules/.bin/agentplatform-provider install --dir <configuration dir>).
See the Installation section of the provider's documentation (docs/provider.md).
`;

/** Options of {@link serve}. */
export interface ServeOptions {
  /**
   * Loads the RPC layer after the handshake (right after it, or at the first call that needs it when `schemaAnswer`
   * gives one): a `require` in `main.ts`, an asset in the single executable.
   */
  readonly rpcLayer: () => typeof RpcLayer;
  /**
   * GetProviderSchema's answer as the RPC layer encodes it, made at build time, or `undefined`. With it the layer is
   * loaded only by a call that needs it; not used with a `registry` of the caller's.
   */
  readonly schemaAnswer?: () => Buffer | undefined;
  /** What the provider serves. @default the registry of `registry.ts` */
  readonly registry?: ProviderRegistry;
}

/** Runs the provider until terraform shuts it down. Exits the process with 1 when not launched by terraform. */
export async function serve(options: ServeOptions): Promise<void> {
  const env = process.env;
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    writeSync(2, NOT_A_COMMAND);
    process.exit(1);
  }
  const offered = (env.PLUGIN_PROTOCOL_VERSIONS ?? String(PLUGIN_PROTOCOL_VERSION)).split(',').map((v) => v.trim());
  if (!offered.includes(String(PLUGIN_PROTOCOL_VERSION))) {
    writeSync(2, `terraform offers plugin protocol versions ${offered.join(', ')}; this provider speaks version 6 (terraform >= 1.0).\n`);
    process.exit(1);
  }
  const log = createLogger();
  guardProcess(log);
  const clientCertPem = env.PLUGIN_CLIENT_CERT;
  const certificate = clientCertPem ? createServerCertificate() : undefined;
  let methods: ((path: string) => GrpcMethod | undefined) | undefined;
  const rpc = (): ((path: string) => GrpcMethod | undefined) => (methods ??= loadRpcLayer(options, log, shutdown));
  const schemaAnswer = options.registry ? undefined : options.schemaAnswer?.();
  const resolve = (path: string): GrpcMethod | undefined => {
    const noClients = (): void => shutdown(async () => undefined);
    const early = !methods && schemaAnswer ? withoutRpcLayer(path, schemaAnswer, log, noClients) : undefined;
    return early ?? rpc()(path);
  };
  // Exiting as soon as the Shutdown answer is queued could cut it off: exit once terraform has hung up.
  const shutdown = (closeClients: () => Promise<void>): void => {
    log.debug('terraform shut the provider down');
    const exit = (): never => process.exit(0);
    setTimeout(exit, SHUTDOWN_GRACE_MS);
    void closeClients().finally(() => server.close(exit));
  };
  const socketPath = unixSocketPath(env);
  const server = await startGrpcServer({
    tls: certificate && clientCertPem ? { certPem: certificate.certPem, keyPem: certificate.keyPem, clientCertPem } : undefined,
    ports: candidatePorts(env),
    socketPath,
    log,
    resolve,
  });
  const cert = certificate ? certificate.der.toString('base64').replace(/=+$/, '') : '';
  const address = socketPath ? `unix|${socketPath}` : `tcp|127.0.0.1:${server.port}`;
  writeSync(1, `${CORE_PROTOCOL_VERSION}|${PLUGIN_PROTOCOL_VERSION}|${address}|grpc|${cert}\n`);
  // without a prepared schema every launch needs the layer: it loads while terraform connects
  if (!schemaAnswer) setImmediate(rpc);
  log.debug(`serving on ${address}`);
}

/**
 * What terraform's schema launch calls, answered without the RPC layer: go-plugin's silent streams, GetProviderSchema
 * from the answer prepared at build time, and Shutdown (no API client has been made).
 */
function withoutRpcLayer(path: string, schemaAnswer: Buffer, log: Logger, onShutdown: () => void): GrpcMethod | undefined {
  if (path === '/tfplugin6.Provider/GetProviderSchema') {
    return {
      kind: 'unary',
      call: async () => {
        log.debug('GetProviderSchema answered in 0 ms (prepared at build time)');
        return schemaAnswer;
      },
    };
  }
  if (path === '/plugin.GRPCController/Shutdown') return { kind: 'unary', call: async () => Buffer.alloc(0), afterResponse: onShutdown };
  return METHODS[path]?.[2] ? { kind: 'idle-stream' } : undefined;
}

/**
 * Where there are unix sockets, go-plugin's own servers listen on one, in a fresh folder of PLUGIN_UNIX_SOCKET_DIR or
 * the temporary folder, removed when the process exits; Windows gets a TCP port.
 */
function unixSocketPath(env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === 'win32') return undefined;
  let dir: string;
  try {
    dir = mkdtempSync(join(env.PLUGIN_UNIX_SOCKET_DIR || tmpdir(), 'plugin'));
  } catch {
    return undefined; // a folder that cannot be written to: a TCP port serves as well
  }
  const path = join(dir, 'grpc.sock');
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return path;
}

function loadRpcLayer(
  options: ServeOptions,
  log: Logger,
  shutdown: (closeClients: () => Promise<void>) => void,
): (path: string) => GrpcMethod | undefined {
  const { ProviderServer, grpcMethods, registry } = options.rpcLayer();
  const server = new ProviderServer({ registry: options.registry ?? registry, log });
  return grpcMethods(server, () => shutdown(() => server.close()));
}

/** A random port of PLUGIN_MIN_PORT..PLUGIN_MAX_PORT (a few tries), then any free port. */
function candidatePorts(env: NodeJS.ProcessEnv): number[] {
  const min = Number(env.PLUGIN_MIN_PORT);
  const max = Number(env.PLUGIN_MAX_PORT);
  if (!Number.isInteger(min) || !Number.isInteger(max) || min <= 0 || max < min) return [0];
  const tries = Array.from({ length: 5 }, () => min + Math.floor(Math.random() * (max - min + 1)));
  return [...new Set(tries), 0];
}

/**
 * Process rules of a plugin: Ctrl-C reaches the whole process group but terraform handles it (it calls
 * StopProvider), so SIGINT is ignored; a crash prints `panic: ` first, which terraform shows as a provider crash;
 * and when terraform dies without shutting us down (SIGKILL) the provider notices its parent is gone and exits.
 */
function guardProcess(log: Logger): void {
  process.on('SIGINT', () => log.debug('SIGINT ignored: terraform stops the provider itself'));
  const panic = (err: unknown): void => {
    const e = err instanceof Error ? err : new Error(String(err));
    try {
      writeSync(2, `panic: ${e.message}\n${e.stack ?? ''}\n`);
    } finally {
      process.exit(2);
    }
  };
  process.on('uncaughtException', panic);
  process.on('unhandledRejection', panic);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent || !isAlive(parent)) {
      log.warn('terraform is gone: exiting');
      process.exit(0);
    }
  }, WATCHDOG_INTERVAL_MS).unref();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
