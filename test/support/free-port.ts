import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** The lowest port the kernel may hand out for outgoing connections and port-0 listeners (Linux default 32768). */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > 0 ? port : 32768;
  } catch {
    return 32768;
  }
}

/**
 * Ports are drawn from [FIRST_PORT, ephemeral start): below it, no outgoing connection can take one meanwhile; from
 * 25001, above the ports terraform lets a provider plugin listen on (PLUGIN_MIN_PORT..PLUGIN_MAX_PORT, 10000..25000),
 * which the providers of terraform runs in other test files take at the same time.
 */
const FIRST_PORT = 25001;

function listenOn(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Returns `count` distinct TCP ports of 127.0.0.1 that were free a moment ago, for services that cannot listen on
 * port 0 themselves. The ports lie below the kernel's ephemeral range, so that the outgoing connections of other
 * tests (which take ephemeral ports) cannot occupy one between this call and the service's bind. All are held open
 * together before release, so they never repeat within one call.
 */
export async function freePorts(count: number): Promise<number[]> {
  const end = ephemeralRangeStart();
  const servers: Server[] = [];
  try {
    for (let attempt = 0; servers.length < count; attempt++) {
      if (attempt >= 1000) throw new Error(`no ${count} free ports of 127.0.0.1 found in [${FIRST_PORT}, ${end})`);
      // A machine whose ephemeral range starts low leaves no such room: the kernel's choice (port 0) is all there is.
      const port = end - FIRST_PORT < 1000 ? 0 : FIRST_PORT + Math.floor(Math.random() * (end - FIRST_PORT));
      const server = await listenOn(port);
      if (server !== undefined) servers.push(server);
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** Returns one TCP port of 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
